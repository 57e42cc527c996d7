import * as z from 'zod';
import type { Correlation } from '../correlation/correlate.js';
import { flaggedBy } from './flagged-by.js';
import { ThreatLevelSchema, threatLevelForRiskScore } from './severity.js';

/**
 * The value of a stream-broker event (`produce(topic, {key, value})`): exactly `{indicator, threatLevel, sources,
 * timestamp}`, `threatLevel` one of `low`, `medium`, `high`, `critical` (any case on input) and `timestamp` in
 * epoch milliseconds.
 *
 * @example
 * ```ts
 * await processor.produce('threats', {
 *   key: '198.51.100.4',
 *   value: { indicator: '198.51.100.4', threatLevel: 'high', sources: ['feed_abuse'], timestamp: Date.now() },
 * });
 * ```
 */
export const StreamEventSchema = z.strictObject({
  indicator: z.string().min(1, { error: 'must not be empty' }).max(8192),
  threatLevel: ThreatLevelSchema,
  /** Ids of the sources that flagged it. */
  sources: z.array(z.string().min(1).max(200)).max(100),
  timestamp: z.int({ error: 'expected epoch milliseconds (a whole number)' }).nonnegative({
    error: 'expected epoch milliseconds (not negative)',
  }),
});

/** A stream event value as given. */
export type StreamEventInput = z.input<typeof StreamEventSchema>;

/** A stream event value once parsed (`threatLevel` in lower case). */
export type StreamEvent = z.output<typeof StreamEventSchema>;

/**
 * The stream event of a correlation that concluded a threat: its threat level from the risk score (see
 * `threatLevelForRiskScore`) and the sources that flagged it.
 */
export function streamEventFor(
  correlation: Pick<Correlation, 'indicator' | 'riskScore' | 'contributions'>,
  timestamp: number,
): StreamEvent {
  return {
    indicator: correlation.indicator,
    threatLevel: threatLevelForRiskScore(correlation.riskScore),
    sources: flaggedBy(correlation),
    timestamp,
  };
}
