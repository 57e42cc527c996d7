import { type Alert, type IndicatorRecord, InvalidIndicatorError, SEVERITIES } from '@threatlib/core';
import { indicatorForOutput, isNormalisedAlert, quoteForDisplay } from '@threatlib/core/integration';
import { EventFormatError, type EventFormatName } from './event-format-error.js';

/**
 * The indicators of an alert or case as an event writes them: each value checked and normalised where it is written
 * (`indicatorForOutput`), since a stored alert read back from a shared database may hold what threatlib never
 * accepted (`198.51.100.7\n0.0.0.0/0`). One value that is not a single indicator of its type refuses the whole event:
 * nothing is sent for it, and the error names each such value.
 *
 * The indicators of a record core made (`isNormalisedAlert(of)`: deeply frozen, each value already what
 * `parseIndicator` made of it, so one it writes unchanged) are written as they are, not parsed a second time.
 *
 * @throws {EventFormatError} `<FORMAT>: indicators[1].value: Invalid indicator "…\n…": <reason>`, not retryable.
 */
export function writtenIndicators(
  of: { readonly indicators: readonly IndicatorRecord[] },
  format: EventFormatName,
): readonly IndicatorRecord[] {
  const indicators = of.indicators;
  if (isNormalisedAlert(of)) return indicators;
  const problems: string[] = [];
  const written = indicators.map((indicator, i) => {
    try {
      const value = indicatorForOutput(indicator.type, indicator.value);
      return value === indicator.value ? indicator : { ...indicator, value };
    } catch (error) {
      if (!InvalidIndicatorError.isInstance(error)) throw error;
      problems.push(`indicators[${i}].value: ${error.message}`);
      return indicator;
    }
  });
  if (problems.length > 0) {
    const shown = problems.length > 5 ? [...problems.slice(0, 5), `and ${problems.length - 5} more`] : problems;
    throw new EventFormatError(format, shown.join('; '));
  }
  return written;
}

/**
 * Refuses an alert whose severity is not one of core's: a stored alert read back from a shared database may hold
 * anything, and a lookup by an unchecked name (`constructor`) finds what objects inherit instead of a severity.
 *
 * @throws {EventFormatError} `<FORMAT>: severity must be one of informational, ..., got "constructor"`.
 */
export function checkAlertSeverity(alert: Alert, format: EventFormatName): void {
  if (!(SEVERITIES as readonly unknown[]).includes(alert.severity)) {
    throw new EventFormatError(
      format,
      `severity must be one of ${SEVERITIES.join(', ')}, got ${quoteForDisplay(String(alert.severity), 40)}`,
    );
  }
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
