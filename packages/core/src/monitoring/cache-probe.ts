import type { CacheStore } from '../cache/cache-store.js';
import type { Clock } from '../scheduler/clock.js';
import type { CacheHealth } from './health-report.js';
import { withinTime } from './time-limit.js';

/** How long a probe entry lives if its delete never happens: it must not linger in a shared Redis. */
const PROBE_TTL_MS = 60_000;

/**
 * Checks a cache by using it: writes a probe entry under a fresh random key, reads it back, compares, and deletes
 * it, all within `timeoutMs`. A back end that is down, refuses writes, returns something else or hangs fails the
 * check with the reason. `cache` undefined (caching disabled) passes.
 */
export async function probeCache(
  cache: CacheStore | undefined,
  options: { clock: Clock; timeoutMs: number },
): Promise<CacheHealth> {
  if (!cache) return { status: 'pass', enabled: false };
  const key = `health-probe:${crypto.randomUUID()}`;
  const nonce = crypto.randomUUID();
  const started = performance.now();
  const roundTrip = async () => {
    await cache.set(key, { probe: nonce }, PROBE_TTL_MS);
    const entry = await cache.get<{ probe?: unknown }>(key);
    await cache.delete(key);
    if (entry?.value?.probe !== nonce) throw new Error('the probe entry read back differs from the one written');
  };
  try {
    await withinTime(roundTrip(), options.timeoutMs, options.clock, 'the write/read/delete round trip');
    return { status: 'pass', enabled: true, kind: cache.kind, roundTripMs: elapsed(started) };
  } catch (error) {
    return {
      status: 'fail',
      enabled: true,
      kind: cache.kind,
      roundTripMs: elapsed(started),
      reason: error instanceof Error ? error.message : String(error),
    };
  }
}

function elapsed(started: number): number {
  return Math.round((performance.now() - started) * 100) / 100;
}
