import { createRequire } from 'node:module';
import type { pino as Pino } from 'pino';
import type { LoggingConfig } from '../config/schema.js';
import { type Logger, silentLogger } from './logger.js';

/**
 * Paths whose values are replaced by `[redacted]` in every log line: API keys, passwords, tokens and
 * Authorization headers, wherever they sit in the logged object.
 */
export const REDACTED_PATHS: readonly string[] = [
  'key',
  'apiKey',
  'apiKeys',
  'password',
  'token',
  'secret',
  'authorization',
  'headers.authorization',
  'headers["x-apikey"]',
  'headers["x-otx-api-key"]',
  'headers["x-api-key"]',
  'headers["auth-key"]',
  'headers.key',
  '*.key',
  '*.apiKey',
  '*.apiKeys',
  '*.password',
  '*.token',
  '*.secret',
  '*.authorization',
  '*.headers.authorization',
];

/** Options of {@link createLogger}. */
export interface CreateLoggerOptions {
  /**
   * Where the JSON lines go instead of stderr: anything with `write(line)`, such as a file stream, or an array
   * collector in a test that checks what was logged.
   */
  destination?: { write(line: string): unknown };
}

/**
 * Makes the default logger for a configuration: pino writing JSON lines to stderr (a library must leave stdout to
 * its host), or a silent logger when `logging.enabled` is false. Values at {@link REDACTED_PATHS} are redacted.
 */
export function createLogger(logging: LoggingConfig, options: CreateLoggerOptions = {}): Logger {
  if (!logging.enabled) return silentLogger;
  // Loaded on first use: a client given its own logger (or logging disabled) never pays for pino's ~15 MB.
  const { pino } = createRequire(import.meta.url)('pino') as { pino: typeof Pino };
  return pino(
    {
      name: 'threatlib',
      level: logging.level,
      redact: { paths: [...REDACTED_PATHS], censor: '[redacted]' },
    },
    options.destination ?? pino.destination({ dest: 2, sync: true }),
  );
}
