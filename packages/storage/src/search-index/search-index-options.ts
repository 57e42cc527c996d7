import type { ClientOptions } from '@elastic/elasticsearch';
import { ConfigurationError, type Logger } from '@threatlib/core';
import { type Clock, recordIssues } from '@threatlib/core/integration';
import { z } from 'zod';

// Elasticsearch's rules for index names (lowercase, none of \ / * ? " < > | , # : or a space, not starting with -, _,
// + or .), kept stricter: the daily indices add "-YYYY.MM.DD" and must stay under the 255-byte limit.
const indexName = z.string().regex(/^[a-z0-9][a-z0-9._-]{0,199}$/, {
  error: 'expected an index name: 1 to 200 lowercase letters, digits, ".", "_" or "-", starting with a letter or digit',
});

/**
 * The name of each kind of document (the documented `indices: {threats, campaigns}`; `indicators` and `alerts` are
 * used by the storage integration). `threats` and `campaigns` are aliases over daily indices `<name>-YYYY.MM.DD`;
 * `indicators` and `alerts` are single indices.
 */
export const searchIndicesSchema = z
  .strictObject({
    /** Threat documents: `index('threats', {indicator, threat_type, confidence, sources, '@timestamp'})`. */
    threats: indexName.default('threats'),
    /** Campaign documents, the same shape. */
    campaigns: indexName.default('campaigns'),
    /** One history document per indicator: first and last seen, times seen, latest verdict. */
    indicators: indexName.default('indicators'),
    /** The client's alerts and their deliveries, when the store is the client's alert store. */
    alerts: indexName.default('alerts'),
  })
  .prefault({})
  .superRefine((indices, context) => {
    const entries = Object.entries(indices);
    for (const [i, [key, name]] of entries.entries()) {
      for (const [j, [otherKey, other]] of entries.entries()) {
        if (i === j) continue;
        if (name === other && i < j) {
          context.addIssue({ code: 'custom', path: [otherKey], message: `the same name as indices.${key}` });
        } else if (other.startsWith(`${name}-`)) {
          // The daily indices of `name` are `name-*`: another name there would fall under its template and retention.
          context.addIssue({
            code: 'custom',
            path: [otherKey],
            message: `starts with "${name}-", where indices.${key} keeps its daily indices`,
          });
        }
      }
    }
  });

/** The key of an index in `indices` (`threats`, `campaigns`, `indicators`, `alerts`). */
export type SearchIndexName = keyof z.output<typeof searchIndicesSchema>;

const authSchema = z.union(
  [
    z.strictObject({ username: z.string().min(1).max(1024), password: z.string().min(1).max(1024) }),
    z.strictObject({ apiKey: z.string().min(1).max(4096) }),
  ],
  { error: 'expected {username, password} or {apiKey}' },
);

const searchIndexShape = {
  /** The node's URL: `http://` or `https://` host and port, no credentials (they go in `auth`). */
  node: z
    .url({ protocol: /^https?$/, error: 'expected an http:// or https:// URL such as "http://127.0.0.1:9200"' })
    .refine((url) => !/^https?:\/\/[^/]*@/.test(url), {
      error: 'must not hold credentials: give them in auth: {username, password}',
    }),
  /** Basic authentication (`{username, password}`, as documented) or an API key (`{apiKey}`). */
  auth: authSchema.optional(),
  indices: searchIndicesSchema,
  /**
   * Days a daily index of `threats` and `campaigns` is kept: the index of a day is deleted once the whole day is more
   * than `retentionDays` days old (by the store's clock), at start and every `sweepIntervalMs`.
   */
  retentionDays: z.int().min(1).max(36_500).default(90),
  /** How often old daily indices and expired threat records are deleted, in ms. */
  sweepIntervalMs: z.int().min(1_000).max(86_400_000).default(3_600_000),
  /** Most documents in one bulk request. */
  batchSize: z.int().min(1).max(10_000).default(1_000),
  /** Most bytes of documents in one bulk request (Elasticsearch refuses requests over 100 MB by default). */
  flushBytes: z.int().min(1_024).max(50_000_000).default(5_000_000),
  /** Longest a document waits for its batch to fill before the batch is sent anyway, in ms (0: at once). */
  flushIntervalMs: z.int().min(0).max(60_000).default(100),
  /** Bulk requests in flight at once. */
  concurrency: z.int().min(1).max(16).default(2),
  /**
   * Times a bulk request that failed as a whole (no answer, 502/503/504) is tried again, and times a document refused
   * with 429 (Elasticsearch too busy) is sent again.
   */
  retries: z.int().min(0).max(10).default(3),
  /** Wait before the first retry, in ms; it doubles with each retry. */
  retryDelayMs: z.int().min(10).max(60_000).default(1_000),
  /** Most documents waiting to be sent; `index` refuses more at once (a `StorageError`) rather than use up memory. */
  maxQueued: z.int().min(1).max(10_000_000).default(100_000),
  /** Most documents one `search` returns (its `size` may ask for fewer). */
  maxResults: z.int().min(1).max(10_000).default(1_000),
  /** How long a request waits for Elasticsearch to answer, in ms. */
  requestTimeoutMs: z.int().min(100).max(600_000).default(30_000),
};

/** `new SearchIndexStorage(options)`: the documented `{node, auth, indices}` and a few of our own. */
export const SearchIndexOptionsSchema = z.strictObject(searchIndexShape);

/** `integrations.storage` for the search index: the same options with `type: 'elasticsearch'`. */
export const SearchIndexIntegrationOptionsSchema = z.strictObject({
  type: z.literal('elasticsearch'),
  ...searchIndexShape,
});

/** The options of `new SearchIndexStorage(options)`, as written. */
export type SearchIndexOptions = z.input<typeof SearchIndexOptionsSchema>;
/** The options with every default filled in. */
export type ResolvedSearchIndexOptions = z.output<typeof SearchIndexOptionsSchema>;

/**
 * Validates the options of a search index.
 *
 * @throws {ConfigurationError} `Configuration invalid: <optionsPath>.<option>: <reason>`, naming each problem.
 */
export function parseSearchIndexOptions(options: unknown, optionsPath = ''): ResolvedSearchIndexOptions {
  const result = SearchIndexOptionsSchema.safeParse(options);
  if (result.success) return result.data;
  throw new ConfigurationError(
    recordIssues(result.error.issues).map((issue) => ({
      path: optionsPath === '' ? issue.path : issue.path === '(root)' ? optionsPath : `${optionsPath}.${issue.path}`,
      message: issue.message,
    })),
  );
}

/** What `new SearchIndexStorage(options, runtime)` takes besides its options. */
export interface SearchIndexRuntime {
  /** Where the store logs (sweeps, failed requests); silent without one. */
  logger?: Logger;
  /** The clock batching, expiry and retention run on (tests pass a `ManualClock`). */
  clock?: Clock;
  /** Where the options sit in a configuration (`integrations.storage`), for error paths. */
  optionsPath?: string;
  /** More options for the `@elastic/elasticsearch` client (TLS, a custom `Connection`...), over the store's own. */
  clientOptions?: Omit<ClientOptions, 'node' | 'nodes' | 'auth'>;
}
