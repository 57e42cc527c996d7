import * as z from 'zod';
import { ConfigurationError } from '../errors/configuration-error.js';
import { shownInput } from '../records/shown-input.js';
import { toConfigurationIssues } from './format-issues.js';
import { checkConfigKeys } from './merge-config.js';
import {
  type LoggingConfig,
  type ResolvedConfig,
  type SecurityConfig,
  type ThreatConfig,
  ThreatConfigSchema,
} from './schema.js';

/**
 * Validates a configuration and fills in every default.
 *
 * @throws {ConfigurationError} listing every problem as `path: reason`; a `__proto__`, `constructor` or `prototype`
 *   key anywhere is refused before anything else (`checkConfigKeys`).
 * @example
 * ```ts
 * parseConfig({ sources: ['feed_urls'], performance: { maxConcurrency: 51 } });
 * // ConfigurationError: Configuration invalid: performance.maxConcurrency: Too big: expected number to be <=50
 * ```
 */
export function parseConfig(input: unknown): ResolvedConfig {
  if (typeof input !== 'object' || input === null || Array.isArray(input)) {
    throw new ConfigurationError([
      {
        path: '(root)',
        message: `expected a configuration object, got ${input === undefined ? 'undefined' : shownInput(input)}`,
      },
    ]);
  }
  checkConfigKeys(input);
  const result = ThreatConfigSchema.safeParse(input as ThreatConfig);
  if (!result.success) {
    throw new ConfigurationError(toConfigurationIssues(result.error.issues, { input, schema: ThreatConfigSchema }));
  }
  return result.data;
}

const securityAndLogging = z.object({
  security: ThreatConfigSchema.shape.security,
  logging: ThreatConfigSchema.shape.logging,
});

/**
 * Validates only the `security` and `logging` parts of a configuration and fills in their defaults: what a vault
 * needs before the rest of the configuration (its `sources`, say) can be known.
 *
 * @throws {ConfigurationError} listing every problem in those parts as `path: reason`.
 */
export function parseSecurityAndLogging(input: object): { security: SecurityConfig; logging: LoggingConfig } {
  const { security, logging } = input as { security?: unknown; logging?: unknown };
  const parts = { security: security ?? {}, logging: logging ?? {} };
  const result = securityAndLogging.safeParse(parts);
  if (!result.success) {
    throw new ConfigurationError(
      toConfigurationIssues(result.error.issues, { input: parts, schema: securityAndLogging }),
    );
  }
  return result.data;
}
