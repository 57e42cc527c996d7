import { describe, expect, expectTypeOf, it } from 'vitest';
import type { CorrelationResult } from '../client/correlation-result.js';
import { type AlertInput, AlertInputSchema } from './alert.js';

describe('the webhook-handler alert form', () => {
  it("takes the client's own correlation result as it is (INTERFACE.md 2.1: `correlation` is the result of correlate)", () => {
    // Compile-time: a CorrelationResult is assignable to the alert's `correlation` (the documented handler passes it).
    expectTypeOf<CorrelationResult>().toExtend<
      NonNullable<Extract<AlertInput, { correlation?: unknown }>['correlation']>
    >();
    const correlation = {
      indicator: '45.148.10.240',
      type: 'ipv4',
      confidence: 91,
      riskScore: 9,
      contributions: [
        { feed: 'feed_abuse', verdict: 'malicious', counted: true, weight: 1, score: 1 },
        { feed: 'feed_otx', verdict: 'clean', counted: true, weight: 1, score: 0 },
      ],
      results: [],
    };
    const alert = AlertInputSchema.parse({ title: 'Threat update', indicator: '45.148.10.240', correlation });
    // The sources are the feeds that flagged it.
    expect(alert.indicators).toEqual([
      expect.objectContaining({ value: '45.148.10.240', confidence: 91, sources: ['feed_abuse'] }),
    ]);
  });
});
