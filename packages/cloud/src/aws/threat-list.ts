import type { IndicatorType } from '@threatlib/core';
import type { ThreatIndicator } from './threat-indicators.js';

/** The formats `publishThreatList` writes. */
export const THREAT_LIST_FORMATS = ['TXT', 'STIX'] as const;

/** One of {@link THREAT_LIST_FORMATS}. */
export type ThreatListFormat = (typeof THREAT_LIST_FORMATS)[number];

/**
 * The indicator types a GuardDuty TXT threat list can hold: a threat-intel set is an IP list (IP addresses and CIDR
 * ranges, one per line); domains belong to GuardDuty's separate entity lists, and hashes, URLs and e-mail addresses
 * to neither.
 */
export const GUARDDUTY_TXT_TYPES: readonly IndicatorType[] = ['ipv4', 'ipv6'];

/** The most entries GuardDuty reads from one threat list. */
export const GUARDDUTY_MAX_ENTRIES = 250_000;

/** A threat list ready to upload, and what was left out of it. */
export interface RenderedThreatList {
  body: string;
  contentType: string;
  /** The indicators in `body`. */
  included: ThreatIndicator[];
  /** Indicators of a type the format cannot carry, counted by type (`{domain: 3}`). */
  skipped: Partial<Record<IndicatorType, number>>;
  /** Indicators left out because the list was full ({@link GUARDDUTY_MAX_ENTRIES}); the least confident go. */
  truncated: number;
}

/** The indicators a format can carry, at most {@link GUARDDUTY_MAX_ENTRIES}, most confident first, and what was left. */
export function selectForList(
  indicators: readonly ThreatIndicator[],
  types: readonly IndicatorType[] | undefined,
): Omit<RenderedThreatList, 'body' | 'contentType'> {
  const skipped: Partial<Record<IndicatorType, number>> = {};
  const kept: ThreatIndicator[] = [];
  for (const indicator of indicators) {
    if (types === undefined || types.includes(indicator.type)) kept.push(indicator);
    else skipped[indicator.type] = (skipped[indicator.type] ?? 0) + 1;
  }
  kept.sort(
    (a, b) =>
      b.confidence - a.confidence || (a.value < b.value ? -1 : a.value > b.value ? 1 : a.type < b.type ? -1 : 1),
  );
  const included = kept.slice(0, GUARDDUTY_MAX_ENTRIES);
  return { included, skipped, truncated: kept.length - included.length };
}

/**
 * GuardDuty's plaintext (TXT) threat list: one IP address per line, most confident first; other types are skipped
 * and counted.
 */
export function renderTxtThreatList(indicators: readonly ThreatIndicator[]): RenderedThreatList {
  const selection = selectForList(indicators, GUARDDUTY_TXT_TYPES);
  const body = selection.included.map((indicator) => `${indicator.value}\n`).join('');
  return { ...selection, body, contentType: 'text/plain; charset=utf-8' };
}
