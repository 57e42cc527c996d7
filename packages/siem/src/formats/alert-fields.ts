import type { Alert, IndicatorRecord } from '@threatlib/core';

/** The first indicator of an alert: the one CEF and LEEF put in their dictionary's fields. */
export function primaryIndicator(alert: Alert): IndicatorRecord | undefined {
  return alert.indicators[0];
}

/** Every source named by an alert's indicators (`source` and `sources`), once each, in order of appearance. */
export function alertSources(alert: Alert): string[] {
  const seen = new Set<string>();
  for (const indicator of alert.indicators) {
    if (indicator.source !== undefined) seen.add(indicator.source);
    for (const source of indicator.sources ?? []) seen.add(source);
  }
  return [...seen];
}

/** The alert's time as epoch milliseconds, or undefined when its timestamp is not a date. */
export function alertTime(alert: Alert): number | undefined {
  const time = Date.parse(alert.timestamp);
  return Number.isNaN(time) ? undefined : time;
}

/** A number as CEF's and LEEF's numeric fields take it (`85`, `72.5`). */
export function numberText(value: number): string {
  return String(value);
}
