import { ConfigurationError, type Logger } from '@threatlib/core';
import { type Clock, recordIssues } from '@threatlib/core/integration';
import type { MongoClientOptions } from 'mongodb';
import { z } from 'zod';

// MongoDB's rules for names: a database name has none of /\. "$*<>:|? and at most 63 bytes; a collection name does
// not start with "system." and has no "$" or NUL.
const databaseName = z.string().regex(/^[^/\\. "$*<>:|?\0]{1,63}$/, {
  error: 'expected a database name: 1 to 63 characters, none of / \\ . space " $ * < > : | ?',
});
const collectionName = z
  .string()
  .regex(/^(?!system\.)[^$\0]{1,120}$/, { error: 'expected a collection name: 1 to 120 characters, no "$"' });

/** The collection of each kind of record (the documented `collections: {threats, campaigns, indicators}`). */
export const collectionsSchema = z
  .strictObject({
    /** Threat records: `store('threats', {indicator, results, scanDate, ttl})`. */
    threats: collectionName.default('threats'),
    /** Campaigns. */
    campaigns: collectionName.default('campaigns'),
    /** One history record per indicator: first and last seen, times seen, latest verdict. */
    indicators: collectionName.default('indicators'),
    /** The client's alerts and their deliveries, when the store is the client's alert store. */
    alerts: collectionName.default('alerts'),
    /** Outgoing webhook deliveries waiting for their next attempt, when the store keeps the webhooks' outbox. */
    webhookOutbox: collectionName.default('webhookOutbox'),
    /** The state of lists fed over the network (a TAXII list's position and indicators), when the store keeps it. */
    listStates: collectionName.default('listStates'),
  })
  .prefault({});

/**
 * The key of a collection in `collections` (`threats`, `campaigns`, `indicators`, `alerts`, `webhookOutbox`,
 * `listStates`).
 */
export type CollectionKey = keyof z.output<typeof collectionsSchema>;

const documentStoreShape = {
  /** `mongodb://` or `mongodb+srv://` connection string (credentials may be in it; they never appear in an error). */
  uri: z
    .string({ error: 'expected a connection string such as "mongodb://127.0.0.1:27017"' })
    .regex(/^mongodb(?:\+srv)?:\/\/[^/]/, {
      error: 'expected a connection string such as "mongodb://127.0.0.1:27017" (mongodb:// or mongodb+srv://)',
    }),
  database: databaseName,
  collections: collectionsSchema,
  /**
   * How often expired records are deleted where the server has no TTL index (FerretDB), in ms. Reads never return an
   * expired record either way.
   */
  sweepIntervalMs: z.int().min(1_000).max(86_400_000).default(60_000),
  /** Most records one `query` returns (its `limit` may ask for fewer). */
  maxResults: z.int().min(1).max(100_000).default(10_000),
  /** How long an operation waits for a server to answer before it fails, in ms (the driver's server selection). */
  timeoutMs: z.int().min(100).max(600_000).default(10_000),
  /**
   * How long a command may wait for the server's reply once sent, in ms (the driver's `socketTimeoutMS`): past it the
   * connection is closed and the call fails, retryable, rather than wait for ever on a server that took the command
   * and never answers (FerretDB 1.x has commands it never answers).
   */
  operationTimeoutMs: z.int().min(100).max(3_600_000).default(60_000),
};

/** `new DocumentStoreStorage(options)`: the documented `{uri, database, collections}` and a few of our own. */
export const DocumentStoreOptionsSchema = z.strictObject(documentStoreShape);

/** `integrations.storage` for the document store: the same options with `type: 'mongodb'`. */
export const DocumentStoreIntegrationOptionsSchema = z.strictObject({
  type: z.literal('mongodb'),
  ...documentStoreShape,
});

/** The options of `new DocumentStoreStorage(options)`, as written. */
export type DocumentStoreOptions = z.input<typeof DocumentStoreOptionsSchema>;
/** The options with every default filled in. */
export type ResolvedDocumentStoreOptions = z.output<typeof DocumentStoreOptionsSchema>;

/**
 * Validates the options of a document store.
 *
 * @throws {ConfigurationError} `Configuration invalid: <optionsPath>.<option>: <reason>`, naming each problem.
 */
export function parseDocumentStoreOptions(options: unknown, optionsPath = ''): ResolvedDocumentStoreOptions {
  const result = DocumentStoreOptionsSchema.safeParse(options);
  if (result.success) return result.data;
  throw new ConfigurationError(
    recordIssues(result.error.issues).map((issue) => ({
      path: optionsPath === '' ? issue.path : issue.path === '(root)' ? optionsPath : `${optionsPath}.${issue.path}`,
      message: issue.message,
    })),
  );
}

/** What `new DocumentStoreStorage(options, runtime)` takes besides its options. */
export interface DocumentStoreRuntime {
  /** Where the store logs (sweeps, failures); silent without one. */
  logger?: Logger;
  /** The clock expiry is judged by and the sweeper runs on (tests pass a `ManualClock`). */
  clock?: Clock;
  /** Where the options sit in a configuration (`integrations.storage`), for error paths. */
  optionsPath?: string;
  /** More options for the driver's `MongoClient` (TLS, pool size, `monitorCommands`...). */
  driverOptions?: MongoClientOptions;
}
