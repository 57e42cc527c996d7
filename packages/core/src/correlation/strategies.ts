import type { Strategy } from '../config/schema.js';

/** What an indicator must reach to be a threat. */
export interface Thresholds {
  /** Fraction 0..1 compared with correlation confidence / 100. */
  confidence: number;
  /** Distinct sources that say malicious or suspicious. */
  consensus: number;
  /** Risk score 1..10. */
  riskScore: number;
  /** How much each further agreeing source raises the risk score (1 = the documented 15% per source). */
  correlationWeight: number;
}

/**
 * The threshold presets. `defensive` is conservative (fewest false positives: several reliable sources must agree
 * strongly), `aggressive` is sensitive (one credible source is enough), `balanced` sits between.
 */
export const STRATEGY_THRESHOLDS: Readonly<Record<Exclude<Strategy, 'custom'>, Thresholds>> = {
  defensive: { confidence: 0.7, consensus: 3, riskScore: 7, correlationWeight: 1 },
  balanced: { confidence: 0.5, consensus: 2, riskScore: 5, correlationWeight: 1 },
  aggressive: { confidence: 0.3, consensus: 1, riskScore: 3, correlationWeight: 1 },
};

/**
 * Default reliability weight of each source, 0..1: how far a positive answer from it can be trusted on its own.
 * Multi-engine and curated sources weigh most; community pulses least. Override with `correlation.weights`.
 */
export const DEFAULT_SOURCE_WEIGHTS: Readonly<Record<string, number>> = {
  feed_scan: 0.9,
  feed_urls: 0.85,
  feed_abuse: 0.8,
  feed_cti: 0.8,
  feed_otx: 0.6,
};

/** Weight of a local list (`list:<name>`) unless the list sets its own. */
export const DEFAULT_LIST_WEIGHT = 0.7;

/** Weight of a third-party feed unless configured. */
export const DEFAULT_FEED_WEIGHT = 0.5;
