import type { Correlation } from '../correlation/correlate.js';
import { flaggedBy } from '../records/flagged-by.js';
import { severityForRiskScore } from '../records/severity.js';
import type { AlertInput } from './alert.js';

/** Longest indicator quoted in an alert's title; the full one is in `indicators`. */
const TITLE_INDICATOR_CHARS = 200;

/**
 * The alert the client raises when a correlation concludes a threat: one indicator (its precise type, the
 * correlation's confidence and the sources that flagged it), `severity` from the risk score (`severityForRiskScore`),
 * `riskScore`, `source: 'threatlib'`, and the verdict, consensus and strategy in `metadata`.
 */
export function threatAlertFor(correlation: Correlation, at: Date): AlertInput {
  const sources = flaggedBy(correlation);
  const shown =
    correlation.indicator.length > TITLE_INDICATOR_CHARS
      ? `${correlation.indicator.slice(0, TITLE_INDICATOR_CHARS)}…`
      : correlation.indicator;
  const by = sources.length > 0 ? ` (${sources.join(', ')})` : '';
  return {
    title: `${capitalise(correlation.verdict)} ${correlation.type}: ${shown}`,
    severity: severityForRiskScore(correlation.riskScore),
    description:
      `threatlib concluded that ${correlation.type} ${correlation.indicator} is ${correlation.verdict}: ` +
      `confidence ${Math.round(correlation.confidence)}/100, risk score ${correlation.riskScore}/10, ` +
      `${correlation.consensus} source(s) agree${by}, strategy ${correlation.strategy}.`,
    indicators: [
      {
        type: correlation.type,
        value: correlation.indicator,
        confidence: correlation.confidence,
        ...(sources.length > 0 ? { sources } : {}),
      },
    ],
    timestamp: at.toISOString(),
    source: 'threatlib',
    riskScore: correlation.riskScore,
    metadata: {
      verdict: correlation.verdict,
      consensus: correlation.consensus,
      sourcesQueried: correlation.sourcesQueried,
      strategy: correlation.strategy,
    },
  };
}

function capitalise(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}
