import type { Alert, CorrelationResult } from '@threatlib/core';
import { normaliseAlert } from '@threatlib/core/integration';

/** Longest indicator quoted in the title (the full one is in `indicators`), as in the alerts the client raises. */
const TITLE_INDICATOR_CHARS = 200;

/**
 * The alert the pipeline publishes for a threat when no client delivers its own to the processor: the documented
 * webhook-handler form `{title, indicator, correlation}` normalised by core (`normaliseAlert`), so it is the same
 * `Alert` record the client's alerts are: one indicator (its precise type, the correlation's confidence, the sources
 * that flagged it), `severity` and `riskScore` from the correlation, `source: 'threatlib'`, the verdict, consensus,
 * sources queried and strategy in `metadata`, and a new `id`.
 */
export function threatAlertRecord(correlation: CorrelationResult, at: Date): Alert {
  const { indicator, verdict } = correlation;
  const shown = indicator.length > TITLE_INDICATOR_CHARS ? `${indicator.slice(0, TITLE_INDICATOR_CHARS)}…` : indicator;
  return normaliseAlert(
    {
      title: `${verdict.charAt(0).toUpperCase()}${verdict.slice(1)} ${correlation.type}: ${shown}`,
      indicator,
      correlation,
      timestamp: at.toISOString(),
      source: 'threatlib',
      metadata: {
        verdict,
        consensus: correlation.consensus,
        sourcesQueried: correlation.sourcesQueried,
        strategy: correlation.strategy,
      },
    },
    at,
  );
}
