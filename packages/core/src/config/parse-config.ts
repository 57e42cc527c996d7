import { ConfigurationError } from '../errors/configuration-error.js';
import { toConfigurationIssues } from './format-issues.js';
import { type ResolvedConfig, type ThreatConfig, ThreatConfigSchema } from './schema.js';

/**
 * Validates a configuration and fills in every default.
 *
 * @throws {ConfigurationError} listing every problem as `path: reason`.
 * @example
 * ```ts
 * parseConfig({ sources: ['feed_urls'], performance: { maxConcurrency: 51 } });
 * // ConfigurationError: Configuration invalid: performance.maxConcurrency: Too big: expected number to be <=50
 * ```
 */
export function parseConfig(input: unknown): ResolvedConfig {
  if (typeof input !== 'object' || input === null || Array.isArray(input)) {
    throw new ConfigurationError([{ path: '(root)', message: 'expected a configuration object' }]);
  }
  const result = ThreatConfigSchema.safeParse(input as ThreatConfig);
  if (!result.success) throw new ConfigurationError(toConfigurationIssues(result.error.issues));
  return result.data;
}
