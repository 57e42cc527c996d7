import type { Strategy } from '../config/schema.js';
import type { FeedResult, FeedStatus } from '../feeds/feed-result.js';
import type { IndicatorType } from '../indicators/index.js';
import type { Thresholds } from './strategies.js';

/** How one source counted in a correlation. */
export interface Contribution {
  feed: string;
  status: FeedStatus;
  verdict: FeedResult['verdict'];
  /** Whether the answer counted in the score (failed and unknown answers do not). */
  counted: boolean;
  /** Reliability weight of the source, 0..1. */
  weight: number;
  /** How much the answer's age discounts it, 0..1 (1 = recent or undated). */
  recency: number;
  /** The source's score, 0..1. */
  score: number;
  /** The share of the confidence this answer accounts for, 0..100. */
  contribution: number;
  reason: string;
}

/** The verdict of a correlation, with everything needed to explain it. */
export interface Correlation {
  indicator: string;
  type: IndicatorType;
  /**
   * 0..100: weighted, recency-adjusted maliciousness over the sources that answered, to one decimal; below 1 it is
   * rounded to 0 or 1, so that no correlation's confidence reads as a 0..1 score (which every 0..100 field refuses).
   */
  confidence: number;
  verdict: 'malicious' | 'suspicious' | 'clean' | 'unknown';
  isThreat: boolean;
  /** Distinct sources that say malicious or suspicious. */
  consensus: number;
  /** Sources asked (failures included; unsupported and not configured excluded). */
  sourcesQueried: number;
  /** Sources that gave an answer (ok or not found). */
  sourcesAnswered: number;
  /** 1..10. */
  riskScore: number;
  strategy: Strategy;
  thresholds: Thresholds;
  contributions: Contribution[];
  /** The sources that failed to answer, and why: a failure is never read as clean. */
  failures: Array<{ feed: string; status: FeedStatus; message: string }>;
  /** Set when a warninglist answered before any feed was asked. */
  warninglist?: { list: string; entry: string; reason: string };
}

/** What {@link correlateResults} needs besides the results. */
export interface CorrelationInput {
  indicator: string;
  type: IndicatorType;
  results: readonly FeedResult[];
  strategy: Strategy;
  thresholds: Thresholds;
  /** Reliability weight of a source id. */
  weightOf: (feed: string) => number;
  /** Evidence this many days old counts half (default 180). */
  recencyHalfLifeDays: number;
  /** For recency; injectable so tests are deterministic. */
  now: number;
}

const DAY = 86_400_000;
const NOT_QUERIED: ReadonlySet<FeedStatus> = new Set(['unsupported', 'not_configured']);

/**
 * Combines the feeds' answers into one verdict.
 *
 * confidence = 100 × Σ(weight × recency × score) / Σ weight, over answers with a verdict (malicious, suspicious or
 * clean); failed and unknown answers are left out and listed in `failures`. Recency is 1 for evidence seen in the
 * last 30 days, then halves every `recencyHalfLifeDays`, never below 0.25; a clean answer is not discounted.
 * consensus counts distinct sources saying malicious or suspicious. The risk score adds corroboration to
 * confidence: risk = c + (1 − c) × min(1, 0.15 × correlationWeight × (consensus − 1)), with c = confidence / 100,
 * mapped to 1..10. An indicator is a threat when confidence / 100, consensus and risk score all reach the
 * strategy's thresholds.
 */
export function correlateResults(input: CorrelationInput): Correlation {
  const { thresholds } = input;
  const contributions: Contribution[] = [];
  const failures: Correlation['failures'] = [];
  let weighted = 0;
  let totalWeight = 0;
  let sourcesQueried = 0;
  let sourcesAnswered = 0;
  const flagging = new Set<string>();

  for (const result of input.results) {
    if (!NOT_QUERIED.has(result.status)) sourcesQueried += 1;
    const answered = result.status === 'ok' || result.status === 'not_found';
    if (answered) sourcesAnswered += 1;
    else if (!NOT_QUERIED.has(result.status)) {
      failures.push({ feed: result.feed, status: result.status, message: result.error?.message ?? result.status });
    }
    const counted = answered && result.verdict !== 'unknown';
    const weight = input.weightOf(result.feed);
    const recency =
      counted && result.verdict !== 'clean' ? recencyFactor(result.lastSeen, input.now, input.recencyHalfLifeDays) : 1;
    if (counted) {
      weighted += weight * recency * result.score;
      totalWeight += weight;
      if (result.verdict === 'malicious' || result.verdict === 'suspicious') flagging.add(result.feed);
    }
    contributions.push({
      feed: result.feed,
      status: result.status,
      verdict: result.verdict,
      counted,
      weight,
      recency: round(recency, 3),
      score: round(result.score, 3),
      contribution: 0,
      reason: reasonFor(result, counted),
    });
  }

  const confidence = totalWeight === 0 ? 0 : (100 * weighted) / totalWeight;
  for (const c of contributions) {
    c.contribution = c.counted && totalWeight > 0 ? round((100 * c.weight * c.recency * c.score) / totalWeight, 2) : 0;
  }
  const consensus = flagging.size;
  const base = confidence / 100;
  const corroboration = Math.min(1, 0.15 * thresholds.correlationWeight * Math.max(0, consensus - 1));
  const risk = base + (1 - base) * corroboration;
  const riskScore = consensus === 0 ? 1 : Math.min(10, Math.max(1, Math.round(1 + 9 * risk)));
  const isThreat =
    consensus > 0 &&
    confidence / 100 >= thresholds.confidence &&
    consensus >= thresholds.consensus &&
    riskScore >= thresholds.riskScore;
  const anyClean = input.results.some((r) => r.status === 'ok' && r.verdict === 'clean');
  const verdict = isThreat ? 'malicious' : consensus > 0 ? 'suspicious' : anyClean ? 'clean' : 'unknown';

  return {
    indicator: input.indicator,
    type: input.type,
    confidence: reportedConfidence(confidence),
    verdict,
    isThreat,
    consensus,
    sourcesQueried,
    sourcesAnswered,
    riskScore,
    strategy: input.strategy,
    thresholds,
    contributions,
    failures,
  };
}

/**
 * The confidence a correlation reports: to one decimal, and below 1 to the whole percent (0 or 1). A value such as 0.4
 * would be refused by every 0..100 field it is passed on to (an alert, a stored record, a webhook), as a 0..1 score.
 */
function reportedConfidence(confidence: number): number {
  return confidence < 1 ? Math.round(confidence) : round(confidence, 1);
}

function recencyFactor(lastSeen: string | undefined, now: number, halfLifeDays: number): number {
  if (!lastSeen) return 1;
  const time = Date.parse(lastSeen);
  if (Number.isNaN(time)) return 1;
  const ageDays = (now - time) / DAY;
  if (ageDays <= 30) return 1;
  return Math.max(0.25, 0.5 ** ((ageDays - 30) / halfLifeDays));
}

function reasonFor(result: FeedResult, counted: boolean): string {
  const first = result.evidence[0];
  if (!counted) {
    if (result.status === 'ok' || result.status === 'not_found') return first ?? 'no opinion';
    return `not counted: ${result.status}${first ? ` (${first})` : ''}`;
  }
  return first ?? result.verdict;
}

function round(n: number, digits: number): number {
  const f = 10 ** digits;
  return Math.round(n * f) / f;
}
