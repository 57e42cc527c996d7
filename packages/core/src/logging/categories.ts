import type { Logger } from './logger.js';

/**
 * What a log line is about, carried in its `category` field; `logging.filters.includeOnly` keeps the categories it
 * lists.
 *
 * - `client`: the client's own lifecycle (start, stop, concurrency), and lines logged through `client.logger`.
 * - `config`: warnings about the configuration.
 * - `feed`: feed requests that failed, were refused or rate-limited, and circuit breakers.
 * - `cache`: cache reads and writes that failed.
 * - `scheduler`: quotas and queueing.
 * - `lists`: local lists and warninglists being loaded.
 * - `vault`: the key vault (locking, rotation, memory protection).
 * - `audit`: audit events (`security.enableAuditLog`).
 * - `events`: event handlers that threw.
 * - `integration`: integrations (SIEM, queues, webhooks) and their lifecycle.
 * - `server`: the REST server (`@threatlib/server`), requests included.
 */
export const LOG_CATEGORIES = [
  'client',
  'config',
  'feed',
  'cache',
  'scheduler',
  'lists',
  'vault',
  'audit',
  'events',
  'integration',
  'server',
] as const;

/** One of {@link LOG_CATEGORIES}. */
export type LogCategory = (typeof LOG_CATEGORIES)[number];

/**
 * A logger whose lines carry `category` (and `bindings`): a pino child when the logger has `child()`, otherwise a
 * thin wrapper that adds the fields to each call. A field given in a call wins over the category.
 *
 * @example
 * ```ts
 * const log = withCategory(client.logger, 'integration', { integration: 'splunk' });
 * log.warn({ status: 503 }, 'Splunk refused a batch');
 * ```
 */
export function withCategory(logger: Logger, category: LogCategory, bindings: Record<string, unknown> = {}): Logger {
  const fields = { category, ...bindings };
  if (typeof logger.child === 'function') return logger.child(fields);
  const merged = (obj: object): object => ({ ...fields, ...obj });
  return {
    debug: (obj, msg) => logger.debug(merged(obj), msg),
    info: (obj, msg) => logger.info(merged(obj), msg),
    warn: (obj, msg) => logger.warn(merged(obj), msg),
    error: (obj, msg) => logger.error(merged(obj), msg),
    child: (more) => withCategory(logger, category, { ...bindings, ...more }),
  };
}
