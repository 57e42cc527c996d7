import {
  type ConfigurationIssue,
  type IndicatorType,
  InvalidIndicatorError,
  isIndicatorType,
  ValidationError,
} from '@threatlib/core';
import { indicatorForOutput } from '@threatlib/core/integration';
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

/** Most refused values an error lists by value; the rest are counted. */
const MAX_NAMED_REFUSALS = 10;

/**
 * The indicators a format can carry, at most {@link GUARDDUTY_MAX_ENTRIES}, most confident first, and what was left.
 * Every indicator the list will hold is checked where it is written (`indicatorForOutput`): its type must be one of
 * threatlib's and its value exactly one indicator of that type, written in its normalised form (`2001:DB8::1` as
 * `2001:db8::1`; the same indicator given twice is written once). A custom source, or alerts read back from a shared
 * database, may hand over what threatlib never accepted: `198.51.100.7\n0.0.0.0/0` would otherwise write
 * `0.0.0.0/0` as a line of its own, flagging all traffic.
 *
 * @throws {ValidationError} `Invalid threat list: indicators[7]: Invalid indicator "198.51.100.7\n0.0.0.0/0": ...`,
 *   naming every refused indicator (the first ten by value, the others counted) by its position in what the source
 *   gave. The whole list is refused: nothing is written, so the list GuardDuty reads stays the last good one, and
 *   no indicator is dropped without a word.
 */
export function selectForList(
  indicators: readonly ThreatIndicator[],
  types: readonly IndicatorType[] | undefined,
): Omit<RenderedThreatList, 'body' | 'contentType'> {
  const skipped: Partial<Record<IndicatorType, number>> = {};
  const kept: ThreatIndicator[] = [];
  const issues: ConfigurationIssue[] = [];
  let refused = 0;
  indicators.forEach((indicator, i) => {
    const carried = isIndicatorType(indicator.type) && (types === undefined || types.includes(indicator.type));
    if (isIndicatorType(indicator.type) && !carried) {
      skipped[indicator.type] = (skipped[indicator.type] ?? 0) + 1;
      return;
    }
    try {
      const value = indicatorForOutput(indicator.type, indicator.value);
      kept.push(value === indicator.value ? indicator : { ...indicator, value });
    } catch (error) {
      if (!InvalidIndicatorError.isInstance(error)) throw error;
      refused += 1;
      if (issues.length < MAX_NAMED_REFUSALS) issues.push({ path: `indicators[${i}]`, message: error.message });
    }
  });
  if (refused > 0) {
    if (refused > issues.length) {
      issues.push({ path: 'indicators', message: `and ${refused - issues.length} more refused the same way` });
    }
    throw new ValidationError('threat list', issues);
  }
  kept.sort(
    (a, b) =>
      b.confidence - a.confidence || (a.value < b.value ? -1 : a.value > b.value ? 1 : a.type < b.type ? -1 : 1),
  );
  const seen = new Set<string>();
  const unique = kept.filter((indicator) => {
    const key = `${indicator.type}\u0000${indicator.value}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
  const included = unique.slice(0, GUARDDUTY_MAX_ENTRIES);
  return { included, skipped, truncated: unique.length - included.length };
}

/**
 * GuardDuty's plaintext (TXT) threat list: one IP address per line, most confident first; other types are skipped
 * and counted. Each value is checked where it is written (see {@link selectForList}): one that is not exactly one
 * IP address refuses the whole list.
 *
 * @throws {ValidationError} naming each refused indicator.
 */
export function renderTxtThreatList(indicators: readonly ThreatIndicator[]): RenderedThreatList {
  const selection = selectForList(indicators, GUARDDUTY_TXT_TYPES);
  const body = selection.included.map((indicator) => `${indicator.value}\n`).join('');
  return { ...selection, body, contentType: 'text/plain; charset=utf-8' };
}
