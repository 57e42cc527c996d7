import { ConfigurationError, recordIssues } from '@threatlib/core';
import type { StorageBackend } from './storage-backend.js';
import { STORAGE_BACKENDS } from './storage-backends.js';

/** The options of `integrations.storage` checked against its back end's schema, and that back end. */
export interface ParsedStorageOptions {
  backend: StorageBackend;
  options: unknown;
}

/**
 * Picks the back end `options.type` names and validates the options against its schema.
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
  const result = backend.schema.safeParse(options);
  if (!result.success) {
    throw new ConfigurationError(
      recordIssues(result.error.issues).map((issue) => ({
        path: issue.path === '(root)' ? optionsPath : `${optionsPath}.${issue.path}`,
        message: issue.message,
      })),
    );
  }
  return { backend, options: result.data };
}
