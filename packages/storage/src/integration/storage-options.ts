import { ConfigurationError, type ConfigurationIssue } from '@threatlib/core';
import { recordIssues, setOwn } from '@threatlib/core/integration';
import { z } from 'zod';
import { ttlSchema } from '../contract/record-ttl.js';
import type { StorageBackend } from './storage-backend.js';
import { STORAGE_BACKENDS } from './storage-backends.js';
import { DEFAULT_BATCHING } from './write-batcher.js';

/** Options of `integrations.storage` that are the integration's, whatever the back end. */
const IntegrationShape = z.object({
  /** Seconds each correlation's threat record is kept, at most a year (default 30 days). */
  ttl: ttlSchema.default(30 * 86_400),
  /**
   * Whether each correlation's sighting is folded into its indicator's history in `indicators` (default true), from
   * which `enrichIndicator` answers. False keeps threat records, campaigns and alerts only: one write a batch instead
   * of one per indicator, for a server where updates are slow (FerretDB 1.x reads the whole collection for each).
   */
  indicatorHistory: z.boolean().default(true),
  /** How the writes of the scan path are batched and held while the server is down. */
  batching: z
    .strictObject({
      maxDelayMs: z.int().min(1).max(60_000).default(DEFAULT_BATCHING.maxDelayMs),
      maxBatch: z.int().min(1).max(100_000).default(DEFAULT_BATCHING.maxBatch),
      maxBuffered: z.int().min(1).max(10_000_000).default(DEFAULT_BATCHING.maxBuffered),
      retryDelayMs: z.int().min(1).max(600_000).default(DEFAULT_BATCHING.retryDelayMs),
      maxRetryDelayMs: z.int().min(1).max(3_600_000).default(DEFAULT_BATCHING.maxRetryDelayMs),
    })
    .prefault({}),
});
const INTEGRATION_KEYS = ['ttl', 'indicatorHistory', 'batching'] as const;

/** The integration's own options, defaults filled in. */
export type StorageIntegrationSettings = z.output<typeof IntegrationShape>;

/** The options of `integrations.storage` checked: its back end, that back end's options, and the integration's. */
export interface ParsedStorageOptions {
  backend: StorageBackend;
  options: unknown;
  settings: StorageIntegrationSettings;
}

/**
 * Picks the back end `options.type` names and validates the options: `ttl`, `indicatorHistory` and `batching` against the integration's
 * schema, the rest against the back end's.
 *
 * @throws {ConfigurationError} `Configuration invalid: integrations.storage.<path>: ...` naming every problem, or the
 *   types there are when `type` names none.
 */
export function parseStorageOptions(options: unknown, optionsPath: string): ParsedStorageOptions {
  const types = Object.keys(STORAGE_BACKENDS);
  const type = (options as { type?: unknown } | null | undefined)?.type;
  const backend =
    typeof type === 'string' && Object.hasOwn(STORAGE_BACKENDS, type) ? STORAGE_BACKENDS[type] : undefined;
  if (backend === undefined) {
    throw new ConfigurationError([
      {
        path: `${optionsPath}.type`,
        message: `expected one of ${types.map((t) => JSON.stringify(t)).join(', ')}, got ${JSON.stringify(type) ?? 'nothing'}`,
      },
    ]);
  }
  const own: Record<string, unknown> = {};
  const rest: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(options as Record<string, unknown>)) {
    // Own keys whatever their name: a "__proto__" key assigned would become `rest`'s prototype, whose fields the
    // schema reads as options; kept, it is refused as the unknown option it is.
    setOwn((INTEGRATION_KEYS as readonly string[]).includes(key) ? own : rest, key, value);
  }
  const issues: ConfigurationIssue[] = [];
  const settings = IntegrationShape.safeParse(own);
  if (!settings.success) issues.push(...recordIssues(settings.error.issues));
  const parsed = backend.schema.safeParse(rest);
  if (!parsed.success) issues.push(...recordIssues(parsed.error.issues));
  if (!settings.success || !parsed.success) {
    throw new ConfigurationError(
      issues.map((issue) => ({
        path: issue.path === '(root)' ? optionsPath : `${optionsPath}.${issue.path}`,
        message: issue.message,
      })),
    );
  }
  return { backend, options: parsed.data, settings: settings.data };
}
