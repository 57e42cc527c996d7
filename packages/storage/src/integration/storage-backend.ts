import type { Logger } from '@threatlib/core';
import type { Clock } from '@threatlib/core/integration';
import type { z } from 'zod';
import type { ThreatStorage } from '../contract/threat-storage.js';

/** What the storage integration hands a back end it builds. */
export interface StorageBackendContext {
  /** The client's logger. */
  logger: Logger;
  /** Where the options sit in the configuration (`integrations.storage`), for error paths. */
  optionsPath: string;
  /** The clock expiry and sweeping run on. */
  clock: Clock;
}

/**
 * One back end `integrations.storage` can name by `type`: the strict schema of its options (with `type`) and how to
 * build it from them. Each back end's folder exports one, and `STORAGE_BACKENDS` lists them.
 */
export interface StorageBackend<Schema extends z.ZodType = z.ZodType> {
  /** The options, `type` included; defaults filled in by the schema. */
  readonly schema: Schema;
  /** Builds the back end (opening nothing: `start()` connects). */
  create(options: z.output<Schema>, context: StorageBackendContext): ThreatStorage;
}
