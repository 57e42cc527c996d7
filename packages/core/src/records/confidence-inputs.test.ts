import { describe, expect, it } from 'vitest';
import type { AlertInput } from '../alerts/alert.js';
import { normaliseAlert } from '../alerts/memory-alert-store.js';
import { correlateResults } from '../correlation/correlate.js';
import { DEFAULT_SOURCE_WEIGHTS, STRATEGY_THRESHOLDS } from '../correlation/strategies.js';
import type { FeedResult } from '../feeds/feed-result.js';
import { toStixBundle } from '../stix/to-stix-bundle.js';
import { CaseSchema } from './case.js';
import { parseRecord } from './parse-record.js';

// Every 0..100 confidence core takes (alerts, cases, STIX) refuses a 0..1 score, saying what it would be; and
// correlate's own confidence is never such a score. The check itself: units/confidence-scale.ts.

const NOW = new Date('2026-03-01T12:00:00Z');
const messageOf = (run: () => unknown): string => {
  try {
    run();
  } catch (error) {
    return (error as Error).message;
  }
  throw new Error('expected a refusal');
};

describe('every 0..100 confidence core takes refuses a 0..1 score', () => {
  it("an alert's indicator (what sendAlert, POST /alerts and every alert store take)", () => {
    const alert: AlertInput = {
      title: 'Suspicious domain',
      severity: 'high',
      indicators: [{ type: 'domain', value: 'malicious-site.com', confidence: 0.9 }],
    };
    expect(messageOf(() => normaliseAlert(alert, NOW))).toBe(
      'Invalid alert: indicators[0].confidence: confidence is 0..100; got 0.9 (did you mean 90?)',
    );
    const kept = normaliseAlert(
      { ...alert, indicators: [{ type: 'domain', value: 'malicious-site.com', confidence: 1 }] },
      NOW,
    );
    expect(kept.indicators[0]?.confidence).toBe(1);
  });

  it("the webhook-handler form's correlation", () => {
    const alert = { title: 'Threat', indicator: '198.51.100.7', correlation: { confidence: 0.85, riskScore: 8 } };
    expect(messageOf(() => normaliseAlert(alert, NOW))).toBe(
      'Invalid alert: correlation.confidence: confidence is 0..100; got 0.85 (did you mean 85?)',
    );
  });

  it("a case's indicator (createCase)", () => {
    const input = {
      title: 'Phishing',
      priority: 'high',
      indicators: [{ type: 'domain', value: 'login-example.com', source: 'feed_urls', confidence: 0.5 }],
    };
    expect(messageOf(() => parseRecord(CaseSchema, input, 'case'))).toBe(
      'Invalid case: indicators[0].confidence: confidence is 0..100; got 0.5 (did you mean 50?)',
    );
  });

  it('a correlation written as STIX (which would round 0.9 to confidence 1)', () => {
    const correlation = { indicator: '198.51.100.7', type: 'ip', confidence: 0.9, verdict: 'malicious' } as const;
    expect(messageOf(() => toStixBundle([correlation]))).toMatch(
      /\[0\]\.confidence: confidence is 0\.\.100; got 0\.9 \(did you mean 90\?\)/,
    );
  });
});

describe("correlate's confidence is never a 0..1 fraction", () => {
  const answer = (feed: string, verdict: FeedResult['verdict'], score: number): FeedResult => ({
    feed,
    indicator: '198.51.100.23',
    type: 'ipv4',
    status: 'ok',
    verdict,
    score,
    categories: [],
    tags: [],
    malwareFamilies: [],
    references: [],
    evidence: [],
    durationMs: 1,
    cached: false,
  });
  const correlate = (results: FeedResult[]) =>
    correlateResults({
      indicator: '198.51.100.23',
      type: 'ipv4',
      results,
      strategy: 'defensive',
      thresholds: STRATEGY_THRESHOLDS.defensive,
      weightOf: (feed) => DEFAULT_SOURCE_WEIGHTS[feed] ?? 0.5,
      recencyHalfLifeDays: 180,
      now: NOW.getTime(),
    });

  it('a faint suspicion (0.4 % raw) reports 0, one of 0.6 % reports 1, so the alert made of it is taken', () => {
    const clean = [answer('feed_otx', 'clean', 0), answer('feed_cti', 'clean', 0)];
    const faint = correlate([answer('feed_abuse', 'suspicious', 0.01), ...clean, answer('feed_scan', 'clean', 0)]);
    const slight = correlate([answer('feed_abuse', 'suspicious', 0.02), ...clean]);
    for (const correlation of [faint, slight]) {
      expect(correlation.confidence === 0 || correlation.confidence >= 1).toBe(true);
      const alert = normaliseAlert({ title: 'Seen', indicator: correlation.indicator, correlation }, NOW);
      expect(alert.indicators[0]?.confidence).toBe(correlation.confidence);
    }
    expect([faint.confidence, slight.confidence]).toEqual([0, 1]);
  });
});
