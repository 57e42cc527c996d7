import { BUILTIN_FEEDS, isBuiltinFeedId } from '../feeds/feed-ids.js';
import type { ResolvedConfig } from './schema.js';

/** Whether a listed source can be asked, and why not when it cannot. */
export interface FeedReadiness {
  feed: string;
  name: string;
  requiresKey: boolean;
  /** `ready`: it will be asked; `not_configured`: it needs a key that is missing. */
  status: 'ready' | 'not_configured';
  /** Base URL it will be asked at, when `apiKeys[feed].endpoint` replaces the default. */
  endpoint?: string;
  reason: string;
}

/** Reports, for every source of a configuration, whether it can be asked. */
export function feedReadiness(config: ResolvedConfig): FeedReadiness[] {
  return config.sources.map((feed) => {
    const info = isBuiltinFeedId(feed) ? BUILTIN_FEEDS[feed] : { name: feed, requiresKey: false };
    const entry = config.apiKeys[feed];
    const endpoint = typeof entry === 'object' ? entry.endpoint : undefined;
    const base = { feed, name: info.name, requiresKey: info.requiresKey, ...(endpoint ? { endpoint } : {}) };
    const hasKey = typeof entry === 'string' || entry?.key !== undefined;
    if (info.requiresKey && !hasKey) {
      return { ...base, status: 'not_configured', reason: 'needs an API key (apiKeys or its environment variable)' };
    }
    return {
      ...base,
      status: 'ready',
      reason: info.requiresKey ? 'API key configured' : !hasKey ? 'no key needed' : 'optional key configured',
    };
  });
}

/**
 * The configuration with every secret masked (API keys, passwords, user hashes, client secrets, encryption keys),
 * and functions shown as `[function]`, for printing.
 */
export function redactConfig(config: ResolvedConfig): Record<string, unknown> {
  const apiKeys = Object.fromEntries(
    Object.entries(config.apiKeys).map(([feed, entry]) => [
      feed,
      typeof entry === 'string' ? REDACTED : entry.key === undefined ? { ...entry } : { ...entry, key: REDACTED },
    ]),
  );
  return JSON.parse(
    JSON.stringify({ ...config, apiKeys }, (key, value: unknown) => {
      if (typeof value === 'function') return '[function]';
      if (SECRET_KEYS.has(key) && value !== undefined && value !== REDACTED) return REDACTED;
      // Webhook headers (logging, monitoring alerts) carry tokens under any name: show the names only.
      if (key === 'headers' && typeof value === 'object' && value !== null) {
        return Object.fromEntries(Object.keys(value).map((name) => [name, REDACTED]));
      }
      return value;
    }),
  ) as Record<string, unknown>;
}

const REDACTED = '[redacted]';
const SECRET_KEYS = new Set(['password', 'secret', 'clientSecret', 'encryptionKey', 'token', 'users']);
