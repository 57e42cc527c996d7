import type { Alert } from '@threatlib/core';
import { lineSafeJson } from '@threatlib/core/integration';
import { alertSources, alertTime, checkAlertSeverity, numberText, writtenIndicators } from './alert-fields.js';
import { eventSeverity } from './alert-severity.js';
import type { LeefEventInput, LeefVersion } from './leef.js';
import { type ProductIdentity, threatlibIdentity } from './product-identity.js';

/** The LEEF EventID of an alert (with `cat`, the severity, what a QRadar QID map entry keys on). */
const LEEF_ALERT_EVENT_ID = 'ThreatAlert';

/** The `devTimeFormat` of `devTime`: ISO 8601 in UTC, as Java's SimpleDateFormat, which QRadar uses, reads it. */
export const LEEF_TIME_FORMAT = "yyyy-MM-dd'T'HH:mm:ss.SSSX";

/** How an alert is written in LEEF. */
export interface LeefAlertOptions {
  /** Default `2.0`. */
  version?: LeefVersion;
  /** LEEF 2.0: the delimiter wanted (default `^`); a tab is used for an event whose values contain it. */
  delimiter?: string;
}

/**
 * An alert as a LEEF event. Header: threatlib as vendor and product, `ThreatAlert` as EventID. Attributes: `devTime`
 * with `devTimeFormat`, `sev` (1–10, `eventSeverity`), `cat` (the severity name), `alertId`, `title`, `description`,
 * the first indicator as `dst` when it is an IP address and `url` when a URL, and always as `indicator` with
 * `indicatorType` and `confidence`, every indicator as JSON in `indicators`, their sources (comma-separated) in
 * `sources`, `riskScore`, and who raised it in `alertSource`. Indicator values are checked and normalised where
 * they are written.
 *
 * @throws {EventFormatError} when the severity is not one of core's, or an indicator's value is not one indicator of
 *   its type (naming each such value).
 *
 * @example
 * ```ts
 * formatLeef(leefEventForAlert(alert));
 * // 'LEEF:2.0|threatlib|threatlib|0.1.0|ThreatAlert|^|devTime=2026-01-01T00:00:00.000Z^devTimeFormat=...'
 * ```
 */
export function leefEventForAlert(
  alert: Alert,
  options: LeefAlertOptions = {},
  identity: ProductIdentity = threatlibIdentity(),
): LeefEventInput {
  checkAlertSeverity(alert, 'leef');
  const attributes: Record<string, string> = {};
  const time = alertTime(alert);
  if (time !== undefined) {
    attributes.devTime = new Date(time).toISOString();
    attributes.devTimeFormat = LEEF_TIME_FORMAT;
  }
  attributes.sev = numberText(eventSeverity(alert));
  attributes.cat = alert.severity;
  attributes.alertId = alert.id;
  attributes.title = alert.title;
  if (alert.description !== undefined) attributes.description = alert.description;
  const indicators = writtenIndicators(alert, 'leef');
  const primary = indicators[0];
  if (primary) {
    if (primary.type === 'ipv4' || primary.type === 'ipv6') attributes.dst = primary.value;
    if (primary.type === 'url') attributes.url = primary.value;
    attributes.indicator = primary.value;
    attributes.indicatorType = primary.type;
    if (primary.confidence !== undefined) attributes.confidence = numberText(primary.confidence);
    attributes.indicators = lineSafeJson(JSON.stringify(indicators));
  }
  const sources = alertSources(alert);
  if (sources.length > 0) attributes.sources = sources.join(',');
  if (alert.riskScore !== undefined) attributes.riskScore = numberText(alert.riskScore);
  if (alert.source !== undefined) attributes.alertSource = alert.source;
  return {
    version: options.version ?? '2.0',
    vendor: identity.vendor,
    product: identity.product,
    productVersion: identity.version,
    eventId: LEEF_ALERT_EVENT_ID,
    ...(options.delimiter === undefined ? {} : { delimiter: options.delimiter }),
    attributes,
  };
}
