// Alerts and cases as the syslog messages QRadar receives: an RFC 5424 header (its HOSTNAME is the log source
// identifier QRadar routes by) and a LEEF event, shortened when needed to QRadar's maximum payload length.
// - LEEF: "IBM QRadar: Log Event Extended Format (LEEF) Version 2" (see ../../formats/leef.ts); the Universal LEEF
//   DSM reads it: https://www.ibm.com/docs/en/dsm?topic=leef-universal
// - RFC 5424 headers on syslog sent to QRadar:
//   https://www.ibm.com/docs/en/qsip/7.6.0?topic=options-multiple-log-sources-over-tls-syslog
import type { Alert, Case } from '@threatlib/core';
import { lineSafeJson } from '@threatlib/core/integration';
import { formatRfc5424 } from '@threatlib/core/logging';
import { writtenIndicators } from '../../formats/alert-fields.js';
import { LEEF_TIME_FORMAT, leefEventForAlert } from '../../formats/alert-leef.js';
import { formatLeef, type LeefEventInput, type LeefVersion } from '../../formats/leef.js';
import { threatlibIdentity } from '../../formats/product-identity.js';

/** The LEEF EventID of a case (with `cat`, the priority, what a QRadar QID map entry keys on). */
const LEEF_CASE_EVENT_ID = 'ThreatCase';

/** Syslog facility of every message: user-level (1). */
const FACILITY_USER = 1;

/** Syslog severity by alert severity / case priority: critical 2, high 3 (error), medium 4 (warning), low 5, else 6. */
const SYSLOG_SEVERITY: Readonly<Record<string, number>> = {
  critical: 2,
  high: 3,
  medium: 4,
  low: 5,
  informational: 6,
};

/** LEEF `sev` (1–10) of a case priority, in the bands alert severities use. */
const CASE_SEVERITY: Readonly<Record<Case['priority'], number>> = { low: 3, medium: 5, high: 8, critical: 10 };

/** How events are written. */
export interface EventSettings {
  leefVersion: LeefVersion;
  /** The syslog HOSTNAME. */
  hostname: string;
  maxMessageBytes: number;
}

/** Attributes shortened, in this order, when an event is longer than the maximum: dropped, then cut. */
const SHRINKABLE = ['indicators', 'description', 'title'] as const;

/**
 * One syslog message for `event`, at most `settings.maxMessageBytes` bytes: when longer, the `indicators` JSON is
 * left out first, then `description` and `title` are cut (ending with `…`), and `truncated=true` says so.
 *
 * @throws {RangeError} when even the shortened event does not fit.
 */
function syslogMessage(event: LeefEventInput, severity: number, time: Date, settings: EventSettings): string {
  const render = (attributes: Record<string, string>) =>
    formatRfc5424({
      facility: FACILITY_USER,
      severity,
      timestamp: time,
      hostname: settings.hostname,
      appName: 'threatlib',
      procId: '-',
      msgId: event.eventId,
      message: formatLeef({ ...event, attributes }),
    });
  let attributes = { ...event.attributes };
  let message = render(attributes);
  for (const key of SHRINKABLE) {
    const overflow = Buffer.byteLength(message) - settings.maxMessageBytes;
    if (overflow <= 0) return message;
    const value = attributes[key];
    if (value === undefined) continue;
    attributes = { ...attributes, truncated: 'true' };
    if (key === 'indicators') {
      delete attributes.indicators;
    } else {
      const chars = Array.from(value);
      // Every character removed takes at least one byte out; `…` puts three back.
      attributes[key] = `${chars.slice(0, Math.max(0, chars.length - overflow - 3)).join('')}…`;
    }
    message = render(attributes);
  }
  if (Buffer.byteLength(message) > settings.maxMessageBytes) {
    throw new RangeError(
      `the ${event.eventId} event needs ${Buffer.byteLength(message)} bytes even shortened; raise syslog.maxMessageBytes (${settings.maxMessageBytes})`,
    );
  }
  return message;
}

/** An alert as a syslog message: the LEEF of `leefEventForAlert`. */
export function alertMessage(alert: Alert, now: Date, settings: EventSettings): string {
  const event = leefEventForAlert(alert, { version: settings.leefVersion });
  return syslogMessage(event, SYSLOG_SEVERITY[alert.severity] ?? 6, now, settings);
}

/**
 * A case as a syslog message. LEEF EventID `ThreatCase`; attributes `devTime`, `sev` (from the priority), `cat` (the
 * priority), `caseId` (the id `createCase` resolves with), `title`, `description`, `priority`, `assignee`, the first
 * indicator as `indicator` / `indicatorType` (and `dst` for an IP address), every indicator as JSON in `indicators`,
 * and their sources in `sources`. Indicator values are checked and normalised where they are written.
 *
 * @throws {EventFormatError} when an indicator's value is not one indicator of its type (naming each such value).
 */
export function caseMessage(input: Case, caseId: string, now: Date, settings: EventSettings): string {
  const attributes: Record<string, string> = {
    devTime: now.toISOString(),
    devTimeFormat: LEEF_TIME_FORMAT,
    sev: String(CASE_SEVERITY[input.priority]),
    cat: input.priority,
    caseId,
    title: input.title,
  };
  if (input.description !== undefined) attributes.description = input.description;
  attributes.priority = input.priority;
  if (input.assignee !== undefined) attributes.assignee = input.assignee;
  const indicators = writtenIndicators(input, 'leef');
  const first = indicators[0];
  if (first) {
    if (first.type === 'ipv4' || first.type === 'ipv6') attributes.dst = first.value;
    attributes.indicator = first.value;
    attributes.indicatorType = first.type;
    attributes.indicators = lineSafeJson(JSON.stringify(indicators));
  }
  const sources = [...new Set(indicators.flatMap((i) => [i.source, ...(i.sources ?? [])]).filter(Boolean))];
  if (sources.length > 0) attributes.sources = sources.join(',');
  const identity = threatlibIdentity();
  const event: LeefEventInput = {
    version: settings.leefVersion,
    vendor: identity.vendor,
    product: identity.product,
    productVersion: identity.version,
    eventId: LEEF_CASE_EVENT_ID,
    attributes,
  };
  return syslogMessage(event, SYSLOG_SEVERITY[input.priority] ?? 6, now, settings);
}
