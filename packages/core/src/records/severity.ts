import * as z from 'zod';
import { shownInput } from './shown-input.js';

/**
 * How serious an alert is, lowest first. A correlation's risk score (1..10) maps to one with
 * {@link severityForRiskScore}.
 */
export const SEVERITIES = ['informational', 'low', 'medium', 'high', 'critical'] as const;

/** One of {@link SEVERITIES}. */
export type Severity = (typeof SEVERITIES)[number];

/** The `threatLevel` of a stream event, lowest first: the severities without `informational`. */
export const THREAT_LEVELS = ['low', 'medium', 'high', 'critical'] as const;

/** One of {@link THREAT_LEVELS}. */
export type ThreatLevel = (typeof THREAT_LEVELS)[number];

/**
 * The severity a correlation's risk score (1..10) means, on the bands of CVSS v3 qualitative ratings: 1
 * `informational` (no source corroborates), 2–3 `low`, 4–6 `medium`, 7–8 `high`, 9–10 `critical`. Fractions are
 * rounded; anything outside 1..10 is clamped to it.
 *
 * @example
 * ```ts
 * severityForRiskScore(correlation.riskScore); // 9 → 'critical'
 * ```
 */
export function severityForRiskScore(riskScore: number): Severity {
  const score = Number.isFinite(riskScore) ? Math.min(10, Math.max(1, Math.round(riskScore))) : 1;
  if (score >= 9) return 'critical';
  if (score >= 7) return 'high';
  if (score >= 4) return 'medium';
  if (score >= 2) return 'low';
  return 'informational';
}

/**
 * The stream event `threatLevel` of a risk score: {@link severityForRiskScore}, with `informational` raised to `low`
 * (a stream event is about a threat).
 */
export function threatLevelForRiskScore(riskScore: number): ThreatLevel {
  const severity = severityForRiskScore(riskScore);
  return severity === 'informational' ? 'low' : severity;
}

/**
 * The risk score (1..10) a confidence (0..100) alone amounts to, for a correlation that carries no risk score: the
 * risk score of a single source with that confidence.
 */
export function riskScoreForConfidence(confidence: number): number {
  const c = Number.isFinite(confidence) ? Math.min(100, Math.max(0, confidence)) : 0;
  return Math.round(1 + (9 * c) / 100);
}

/** Position of a severity in {@link SEVERITIES}: compare two with `<`, `>=`. */
export function severityRank(severity: Severity): number {
  return SEVERITIES.indexOf(severity);
}

/**
 * A zod schema for one of `values`, taken in any case and normalised to lower case (`'HIGH'` → `'high'`). Its
 * JSON Schema is a string with a case-insensitive pattern, written with a class per letter (`^(?:[hH][iI][gG][hH]|…)$`):
 * a JSON Schema pattern has no flags, and zod drops the `i` of a RegExp, which would publish a lower-case-only
 * pattern that refuses the `HIGH` the schema takes.
 */
export function caseInsensitiveEnum<const T extends readonly [string, ...string[]]>(values: T) {
  const expected = `expected one of ${values.join(', ')}`;
  const pattern = new RegExp(`^(?:${values.map(anyCase).join('|')})$`);
  return z
    .string({ error: expected })
    .regex(pattern, { error: (issue) => `${expected}, got ${shownInput(issue.input)}` })
    .transform((value) => value.toLowerCase() as T[number])
    .meta({ description: `One of ${values.join(', ')} (any case)` });
}

/** A severity name, any case on input, lower case after parsing. */
export const SeveritySchema = caseInsensitiveEnum(SEVERITIES);

/** A stream event threat level, any case on input, lower case after parsing. */
export const ThreatLevelSchema = caseInsensitiveEnum(THREAT_LEVELS);

/** `high` as `[hH][iI][gG][hH]`: a pattern that matches `word` in any case without a flag. */
function anyCase(word: string): string {
  return [...word]
    .map((c) =>
      c.toLowerCase() === c.toUpperCase()
        ? c.replace(/[.*+?^${}()|[\]\\/-]/g, '\\$&')
        : `[${c.toLowerCase()}${c.toUpperCase()}]`,
    )
    .join('');
}
