import { BUILTIN_FEEDS, isBuiltinFeedId } from '../feeds/feed-ids.js';
import type { ThreatConfig } from './schema.js';

/** A configuration that works but is probably not what the user wants. */
export interface ConfigWarning {
  /** Stable identifier of the kind of warning. */
  code:
    | 'MISSING_API_KEY'
    | 'HIGH_CONCURRENCY'
    | 'LOW_REQUEST_TIMEOUT'
    | 'HTTPS_NOT_ENFORCED'
    | 'AUTO_LOCK_DISABLED'
    /** A malformed environment variable the constructor's configuration overrides (the client warns; never fatal). */
    | 'ENV_VARIABLE_IGNORED';
  /** Dotted path of the option concerned, or the environment variable's name. */
  path: string;
  /** What the consequence is and how to change it. */
  message: string;
}

/**
 * Lists the warnings a configuration deserves. It never throws, even on a configuration the schema would refuse
 * (it reads what it can, with the schema's defaults); use `parseConfig` to check validity.
 *
 * Exactly these cases warn: a listed source that requires a key has no key in `apiKeys`; `maxConcurrency` above 20;
 * `requestTimeout` below 10000 ms; `security.enforceHttps` falsy; `security.autoLock` falsy.
 */
export function validateConfig(config: ThreatConfig | Record<string, unknown>): ConfigWarning[] {
  const warnings: ConfigWarning[] = [];
  const c = (typeof config === 'object' && config !== null ? config : {}) as Record<string, unknown>;
  const sources = Array.isArray(c.sources) ? c.sources : [];
  const apiKeys = record(c.apiKeys);
  const performance = record(c.performance);
  const security = record(c.security);

  for (const source of sources) {
    if (!isBuiltinFeedId(source) || !BUILTIN_FEEDS[source].requiresKey) continue;
    const entry = apiKeys[source];
    const hasKey =
      typeof entry === 'string' || (typeof entry === 'object' && entry !== null && record(entry).key != null);
    if (!hasKey) {
      warnings.push({
        code: 'MISSING_API_KEY',
        path: `apiKeys.${source}`,
        message: `${source} (${BUILTIN_FEEDS[source].name}) is listed in sources but has no API key; it will answer "not_configured" and never be asked`,
      });
    }
  }

  const maxConcurrency = performance.maxConcurrency ?? 10;
  if (typeof maxConcurrency === 'number' && maxConcurrency > 20) {
    warnings.push({
      code: 'HIGH_CONCURRENCY',
      path: 'performance.maxConcurrency',
      message: `maxConcurrency ${maxConcurrency} is above 20; most feed quotas will reject bursts this large`,
    });
  }

  const requestTimeout = performance.requestTimeout ?? 30_000;
  if (typeof requestTimeout === 'number' && requestTimeout < 10_000) {
    warnings.push({
      code: 'LOW_REQUEST_TIMEOUT',
      path: 'performance.requestTimeout',
      message: `requestTimeout ${requestTimeout} ms is below 10000 ms; slow feeds will time out and answer "timeout"`,
    });
  }

  if (!(security.enforceHttps ?? true)) {
    warnings.push({
      code: 'HTTPS_NOT_ENFORCED',
      path: 'security.enforceHttps',
      message: 'enforceHttps is off: API keys may be sent over plain HTTP',
    });
  }

  if (!(security.autoLock ?? true)) {
    warnings.push({
      code: 'AUTO_LOCK_DISABLED',
      path: 'security.autoLock',
      message: 'autoLock is off: an unlocked vault stays unlocked until lock() is called',
    });
  }

  return warnings;
}

function record(value: unknown): Record<string, unknown> {
  return typeof value === 'object' && value !== null ? (value as Record<string, unknown>) : {};
}
