import type { ResolvedConfig } from '../config/schema.js';
import { DEFAULT_FEED_QUOTAS, type QuotaWindows } from './default-quotas.js';

/**
 * The quota windows one feed is held to:
 *
 * - `performance.rateLimit.perFeed.<feed>`, when given, is the feed's whole quota (a paid plan, a mirror);
 * - otherwise the feed's documented default quota, with any window set at the top of `performance.rateLimit`
 *   (`requestsPerSecond`, `burstSize`, `requestsPerMinute`, `requestsPerHour`, `requestsPerDay`) replacing the
 *   default's window of the same name;
 * - `apiKeys.<feed>.rateLimit` (requests per minute) then replaces the minute window.
 *
 * With `performance.rateLimit.enabled: false` no window applies (pauses a feed asks for still do).
 */
export function quotaFor(config: ResolvedConfig, feed: string): QuotaWindows {
  const { rateLimit } = config.performance;
  if (!rateLimit.enabled) return {};
  const { enabled: _enabled, perFeed, quotaLowThreshold: _low, ...common } = rateLimit;
  const defined = (windows: QuotaWindows) =>
    Object.fromEntries(Object.entries(windows).filter(([, v]) => v !== undefined)) as QuotaWindows;
  let windows: QuotaWindows = perFeed[feed]
    ? defined(perFeed[feed])
    : { ...defined(DEFAULT_FEED_QUOTAS[feed] ?? {}), ...defined(common) };
  const entry = config.apiKeys[feed];
  if (typeof entry === 'object' && entry.rateLimit !== undefined) {
    windows = { ...windows, requestsPerMinute: entry.rateLimit };
  }
  return windows;
}
