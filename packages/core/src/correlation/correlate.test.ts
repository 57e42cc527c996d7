import { describe, expect, it } from 'vitest';
import type { FeedResult, FeedStatus, FeedVerdict } from '../feeds/feed-result.js';
import { correlateResults } from './correlate.js';
import { DEFAULT_SOURCE_WEIGHTS, STRATEGY_THRESHOLDS, type Thresholds } from './strategies.js';

const NOW = Date.parse('2026-11-01T00:00:00Z');

function r(
  feed: string,
  verdict: FeedVerdict,
  score: number,
  status: FeedStatus = 'ok',
  lastSeen?: string,
): FeedResult {
  return {
    feed,
    indicator: '198.51.100.23',
    type: 'ipv4',
    status,
    verdict,
    score,
    categories: [],
    tags: [],
    malwareFamilies: [],
    references: [],
    evidence: [`${feed} says ${verdict}`],
    durationMs: 1,
    cached: false,
    ...(lastSeen ? { lastSeen } : {}),
    ...(status !== 'ok' && status !== 'not_found' ? { error: { message: `${feed} failed: ${status}` } } : {}),
  };
}

function correlate(
  results: FeedResult[],
  thresholds: Thresholds,
  strategy: 'defensive' | 'balanced' | 'aggressive' | 'custom' = 'custom',
) {
  return correlateResults({
    indicator: '198.51.100.23',
    type: 'ipv4',
    results,
    strategy,
    thresholds,
    weightOf: (feed) => DEFAULT_SOURCE_WEIGHTS[feed] ?? 0.5,
    recencyHalfLifeDays: 180,
    now: NOW,
  });
}

const threeOfFive = [
  r('feed_scan', 'malicious', 0.8),
  r('feed_abuse', 'malicious', 0.9),
  r('feed_cti', 'malicious', 0.8),
  r('feed_otx', 'unknown', 0, 'not_found'),
  r('feed_urls', 'unknown', 0, 'not_found'),
];

describe('correlateResults', () => {
  it('3 of 5 feeds flagging gives consensus 3 and one contribution per feed', () => {
    const c = correlate(threeOfFive, STRATEGY_THRESHOLDS.defensive, 'defensive');
    expect(c.consensus).toBe(3);
    expect(c.sourcesQueried).toBe(5);
    expect(c.sourcesAnswered).toBe(5);
    // (0.9×0.8 + 0.8×0.9 + 0.8×0.8) / (0.9 + 0.8 + 0.8) = 0.832
    expect(c.confidence).toBe(83.2);
    // 0.832 + 0.168 × 0.15 × 2 = 0.8824 -> round(1 + 9 × 0.8824) = 9
    expect(c.riskScore).toBe(9);
    expect(c.isThreat).toBe(true);
    expect(c.verdict).toBe('malicious');
    expect(c.contributions.map((x) => [x.feed, x.counted, x.weight, x.contribution])).toEqual([
      ['feed_scan', true, 0.9, 28.8],
      ['feed_abuse', true, 0.8, 28.8],
      ['feed_cti', true, 0.8, 25.6],
      ['feed_otx', false, 0.6, 0],
      ['feed_urls', false, 0.85, 0],
    ]);
  });

  // The same answers, three strategies: what each concludes.
  const oneStrongSource = [r('feed_abuse', 'malicious', 0.9), r('feed_scan', 'unknown', 0, 'not_found')];
  const twoStrongSources = [
    r('feed_scan', 'malicious', 0.8),
    r('feed_urls', 'malicious', 1),
    r('feed_otx', 'unknown', 0, 'not_found'),
  ];
  const twoWeakSources = [
    r('feed_scan', 'suspicious', 0.3),
    r('feed_otx', 'suspicious', 0.4),
    r('feed_abuse', 'clean', 0),
  ];
  it.each([
    [
      'one strong source',
      oneStrongSource,
      { defensive: 'suspicious', balanced: 'suspicious', aggressive: 'malicious' },
    ],
    [
      'two strong sources',
      twoStrongSources,
      { defensive: 'suspicious', balanced: 'malicious', aggressive: 'malicious' },
    ],
    ['three of five', threeOfFive, { defensive: 'malicious', balanced: 'malicious', aggressive: 'malicious' }],
    [
      'two weak sources and a clean one',
      twoWeakSources,
      { defensive: 'suspicious', balanced: 'suspicious', aggressive: 'suspicious' },
    ],
    [
      'everyone clean',
      [r('feed_scan', 'clean', 0), r('feed_abuse', 'clean', 0)],
      { defensive: 'clean', balanced: 'clean', aggressive: 'clean' },
    ],
  ] as const)('%s: defensive, balanced and aggressive decide as documented', (_name, results, expected) => {
    for (const strategy of ['defensive', 'balanced', 'aggressive'] as const) {
      const c = correlate([...results], STRATEGY_THRESHOLDS[strategy], strategy);
      expect({ strategy, verdict: c.verdict }).toEqual({ strategy, verdict: expected[strategy] });
      expect(c.isThreat).toBe(expected[strategy] === 'malicious');
      expect(c.strategy).toBe(strategy);
    }
  });

  it('leaves failed answers out of the score but reports them, and never calls failures clean', () => {
    const c = correlate(
      [
        r('feed_scan', 'unknown', 0, 'timeout'),
        r('feed_abuse', 'unknown', 0, 'auth_error'),
        r('feed_otx', 'unknown', 0, 'error'),
      ],
      STRATEGY_THRESHOLDS.aggressive,
    );
    expect(c.verdict).toBe('unknown');
    expect(c.confidence).toBe(0);
    expect(c.sourcesQueried).toBe(3);
    expect(c.sourcesAnswered).toBe(0);
    expect(c.failures.map((f) => [f.feed, f.status])).toEqual([
      ['feed_scan', 'timeout'],
      ['feed_abuse', 'auth_error'],
      ['feed_otx', 'error'],
    ]);
    expect(c.contributions.every((x) => !x.counted && x.reason.startsWith('not counted'))).toBe(true);
  });

  it('does not count a failure against a malicious answer', () => {
    const withFailure = correlate(
      [r('feed_abuse', 'malicious', 0.9), r('feed_scan', 'unknown', 0, 'rate_limited')],
      STRATEGY_THRESHOLDS.aggressive,
    );
    const alone = correlate([r('feed_abuse', 'malicious', 0.9)], STRATEGY_THRESHOLDS.aggressive);
    expect(withFailure.confidence).toBe(alone.confidence);
    expect(withFailure.sourcesQueried).toBe(2);
    expect(withFailure.failures).toHaveLength(1);
  });

  it('counts unsupported and not configured sources as not queried', () => {
    const c = correlate(
      [
        r('feed_abuse', 'unknown', 0, 'unsupported'),
        r('feed_cti', 'unknown', 0, 'not_configured'),
        r('feed_urls', 'malicious', 1),
      ],
      STRATEGY_THRESHOLDS.aggressive,
    );
    expect(c.sourcesQueried).toBe(1);
    expect(c.failures).toEqual([]);
  });

  it('discounts old evidence', () => {
    const fresh = correlate(
      [r('feed_abuse', 'malicious', 1, 'ok', '2026-10-20T00:00:00Z'), r('feed_scan', 'clean', 0)],
      STRATEGY_THRESHOLDS.aggressive,
    );
    const old = correlate(
      [r('feed_abuse', 'malicious', 1, 'ok', '2025-10-01T00:00:00Z'), r('feed_scan', 'clean', 0)],
      STRATEGY_THRESHOLDS.aggressive,
    );
    expect(fresh.contributions[0]?.recency).toBe(1);
    expect(old.contributions[0]?.recency).toBeLessThan(0.5);
    expect(old.confidence).toBeLessThan(fresh.confidence / 2);
  });

  it('custom thresholds decide with confidence as a fraction', () => {
    const strict: Thresholds = { confidence: 0.9, consensus: 1, riskScore: 1, correlationWeight: 1 };
    const lax: Thresholds = { confidence: 0.8, consensus: 1, riskScore: 1, correlationWeight: 1 };
    const results = [r('feed_abuse', 'malicious', 0.85)];
    expect(correlate(results, strict).isThreat).toBe(false);
    expect(correlate(results, lax).isThreat).toBe(true);
  });

  it('counts distinct sources, not raw answers', () => {
    const c = correlate(
      [r('feed_abuse', 'malicious', 0.9), r('feed_abuse', 'malicious', 0.9)],
      STRATEGY_THRESHOLDS.balanced,
    );
    expect(c.consensus).toBe(1);
  });
});
