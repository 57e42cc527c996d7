import { type StixCorrelationInput, toStixBundle } from '@threatlib/core';
import type { ThreatIndicator } from './threat-indicators.js';
import { type RenderedThreatList, selectForList } from './threat-list.js';

/**
 * The threat list as a STIX 2.1 bundle (core's `toStixBundle`): one indicator object per threat indicator, of every
 * type, with its confidence, its verdict (`malicious` unless its alert said `suspicious`), when it was last reported
 * as `valid_from`, and the sources that flagged it as external references. Each value is checked where it is
 * written, as for the TXT list (`selectForList`): one that is not exactly one indicator of its type refuses the list.
 *
 * @throws {ValidationError} naming each refused indicator.
 */
export function renderStixThreatList(indicators: readonly ThreatIndicator[], now: Date): RenderedThreatList {
  const selection = selectForList(indicators, undefined);
  const bundle = toStixBundle(selection.included.map(correlationOf), { now });
  return { ...selection, body: `${JSON.stringify(bundle)}\n`, contentType: 'application/json' };
}

function correlationOf(indicator: ThreatIndicator): StixCorrelationInput {
  const verdict = indicator.verdict ?? 'malicious';
  return {
    indicator: indicator.value,
    type: indicator.type,
    confidence: indicator.confidence,
    verdict,
    startedAt: indicator.lastSeen,
    contributions: indicator.sources.map((feed) => ({ feed, status: 'ok', verdict })),
  };
}
