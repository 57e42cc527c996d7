import { describe, expect, it } from 'vitest';
import { type FeedHealth, type HealthReport, summariseHealth } from './health-report.js';

const feed = (status: FeedHealth['status'], extra: Partial<FeedHealth> = {}): FeedHealth => ({
  feed: 'feed_otx',
  name: 'AlienVault OTX',
  status,
  configured: true,
  breaker: 'closed',
  keyRejected: false,
  ...(status === 'pass' ? {} : { reason: 'circuit breaker open until 2026-12-01T00:01:00.000Z' }),
  ...extra,
});

function checks(extra: Partial<HealthReport['checks']> = {}): HealthReport['checks'] {
  return {
    feeds: [feed('pass')],
    cache: { status: 'pass', enabled: true, kind: 'memory', roundTripMs: 0.1 },
    vault: { status: 'pass', configured: false },
    integrations: [{ name: 'siem', status: 'pass', healthy: true }],
    ...extra,
  };
}

describe('summariseHealth', () => {
  it('healthy when every check passes', () => {
    expect(summariseHealth(checks())).toEqual({ status: 'healthy', reasons: [] });
  });

  it('degraded for a failing or warning feed, or a failed cache round trip', () => {
    expect(summariseHealth(checks({ feeds: [feed('fail')] }))).toEqual({
      status: 'degraded',
      reasons: ['feed_otx: circuit breaker open until 2026-12-01T00:01:00.000Z'],
    });
    expect(summariseHealth(checks({ feeds: [feed('warn', { reason: 'half open' })] })).status).toBe('degraded');
    expect(
      summariseHealth(checks({ cache: { status: 'fail', enabled: true, kind: 'kvserver', reason: 'ECONNREFUSED' } })),
    ).toEqual({ status: 'degraded', reasons: ['cache: ECONNREFUSED'] });
  });

  it('feeds alone never make it unhealthy, even when every one had its key refused', () => {
    const refused = feed('fail', { keyRejected: true, reason: 'its API key was refused (HTTP 401)' });
    expect(summariseHealth(checks({ feeds: [refused, { ...refused, feed: 'feed_cti' }] })).status).toBe('degraded');
  });

  it('unhealthy for a locked vault or an unhealthy integration, whatever else passes', () => {
    expect(
      summariseHealth(checks({ vault: { status: 'fail', configured: true, locked: true, reason: 'locked' } })),
    ).toEqual({ status: 'unhealthy', reasons: ['vault: locked'] });
    expect(
      summariseHealth(
        checks({ integrations: [{ name: 'queue', status: 'fail', healthy: false, detail: 'broker unreachable' }] }),
      ),
    ).toEqual({ status: 'unhealthy', reasons: ['integration queue: broker unreachable'] });
  });
});
