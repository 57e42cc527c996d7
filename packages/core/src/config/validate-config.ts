import { STRATEGY_THRESHOLDS } from '../correlation/strategies.js';
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
    | 'ENV_VARIABLE_IGNORED'
    | 'STRATEGY_CANNOT_CONCLUDE';
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
 * `requestTimeout` below 10000 ms; `security.enforceHttps` falsy; `security.autoLock` falsy; the strategy's
 * consensus (sources that must agree) is larger than the sources and lists that can answer, so that no indicator
 * can ever be concluded a threat.
 *
 * @param options.hasKey whether a key for `feed` comes from elsewhere than `apiKeys` (a client's vault).
 */
export function validateConfig(
  config: ThreatConfig | Record<string, unknown>,
  options: { hasKey?: (feed: string) => boolean } = {},
): ConfigWarning[] {
  const warnings: ConfigWarning[] = [];
  const c = (typeof config === 'object' && config !== null ? config : {}) as Record<string, unknown>;
  const sources = Array.isArray(c.sources) ? c.sources : [];
  const apiKeys = record(c.apiKeys);
  const performance = record(c.performance);
  const security = record(c.security);

  const answering: string[] = [];
  for (const source of sources) {
    if (!isBuiltinFeedId(source)) continue;
    const entry = apiKeys[source];
    const hasKey =
      typeof entry === 'string' ||
      (typeof entry === 'object' && entry !== null && record(entry).key != null) ||
      options.hasKey?.(source) === true;
    if (!BUILTIN_FEEDS[source].requiresKey || hasKey) {
      answering.push(source);
      continue;
    }
    warnings.push({
      code: 'MISSING_API_KEY',
      path: `apiKeys.${source}`,
      message: `${source} (${BUILTIN_FEEDS[source].name}) is listed in sources but has no API key; it will answer "not_configured" and never be asked`,
    });
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

  const strategy = typeof c.strategy === 'string' ? c.strategy : 'defensive';
  const thresholds = record(c.thresholds);
  const consensus =
    strategy === 'custom'
      ? thresholds.consensus
      : STRATEGY_THRESHOLDS[strategy as keyof typeof STRATEGY_THRESHOLDS]?.consensus;
  const lists = Array.isArray(c.lists) ? c.lists.map((list) => `list:${String(record(list).name ?? '?')}`) : [];
  const able = [...answering, ...lists];
  // Only for a configuration that lists its sources: anything else is refused by the schema anyway.
  if (Array.isArray(c.sources) && typeof consensus === 'number' && consensus > able.length) {
    warnings.push({
      code: 'STRATEGY_CANNOT_CONCLUDE',
      path: strategy === 'custom' ? 'thresholds.consensus' : 'strategy',
      message: `strategy "${strategy}" concludes a threat only when ${consensus === 1 ? 'a source says so' : `${consensus} sources agree`}, but ${able.length === 0 ? 'no source or list can answer' : `only ${able.length} can answer (${able.join(', ')})`}: no indicator can ever be a threat. Configure keys for more feeds, add lists, or choose a strategy needing fewer (aggressive: 1, balanced: 2; custom thresholds.consensus)${strategy === 'defensive' && c.strategy === undefined ? '; defensive is the default' : ''}. Feeds added with registerFeed count too.`,
    });
  }

  return warnings;
}

function record(value: unknown): Record<string, unknown> {
  return typeof value === 'object' && value !== null ? (value as Record<string, unknown>) : {};
}
