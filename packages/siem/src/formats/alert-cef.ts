import type { Alert, IndicatorType } from '@threatlib/core';
import { lineSafeJson } from '@threatlib/core/integration';
import { alertSources, alertTime, checkAlertSeverity, numberText, writtenIndicators } from './alert-fields.js';
import { eventSeverity } from './alert-severity.js';
import type { CefEvent } from './cef.js';
import { oneLine } from './field-characters.js';
import { type ProductIdentity, threatlibIdentity } from './product-identity.js';

/** The CEF Device Event Class ID (signature id) of an alert. */
const CEF_ALERT_CLASS_ID = 'threat-alert';

/**
 * Where the first indicator goes in CEF's Extension Dictionary: an IPv4 address is the destination address (`dst`),
 * a domain the destination host (`dhost`), a URL the request (`request`), a hash the file's (`fileHash`), an e-mail
 * address the destination user (`duser`, where the dictionary puts mail addresses); IPv6 has no such field in CEF 0
 * and goes to the custom IPv6 address `c6a1`.
 */
export const CEF_INDICATOR_FIELD: Readonly<Record<IndicatorType, string>> = {
  ipv4: 'dst',
  ipv6: 'c6a1',
  domain: 'dhost',
  url: 'request',
  md5: 'fileHash',
  sha1: 'fileHash',
  sha256: 'fileHash',
  email: 'duser',
};

/**
 * An alert as a CEF event. Header: threatlib as vendor and product, `threat-alert` as signature id, the title as
 * Name (made one line by `oneLine`: line breaks and tabs, which CEF forbids in a header, become a space, other
 * control characters U+FFFD), the severity as 0–10 (`eventSeverity`). Extension: `rt` (the alert's time, epoch ms),
 * `externalId` (its id), `cat` (its severity name), `msg` (the description), the first indicator in its dictionary
 * field (`CEF_INDICATOR_FIELD`) with its type in `cs3` and its confidence in `cfp1`, every indicator as JSON in
 * `cs1`, their sources in `cs2` (comma-separated), the risk score in `cfp2` and who raised the alert in `cs4`, each
 * custom field with its `…Label`. Indicator values are checked and normalised where they are written.
 *
 * @throws {EventFormatError} when the severity is not one of core's, or an indicator's value is not one indicator of
 *   its type (naming each such value).
 *
 * @example
 * ```ts
 * formatCef(cefEventForAlert(alert));
 * // 'CEF:0|threatlib|threatlib|0.1.0|threat-alert|Suspicious domain|8|rt=1767225600000 externalId=a1 cat=high ...'
 * ```
 */
export function cefEventForAlert(alert: Alert, identity: ProductIdentity = threatlibIdentity()): CefEvent {
  checkAlertSeverity(alert, 'cef');
  const extension: Record<string, string> = {};
  const time = alertTime(alert);
  if (time !== undefined) extension.rt = numberText(time);
  extension.externalId = alert.id;
  extension.cat = alert.severity;
  if (alert.description !== undefined) extension.msg = alert.description;
  const indicators = writtenIndicators(alert, 'cef');
  const primary = indicators[0];
  if (primary) {
    const field = CEF_INDICATOR_FIELD[primary.type];
    if (field === 'c6a1') extension.c6a1Label = 'indicator';
    extension[field] = primary.value;
    extension.cs3Label = 'indicatorType';
    extension.cs3 = primary.type;
    if (primary.confidence !== undefined) {
      extension.cfp1Label = 'confidence';
      extension.cfp1 = numberText(primary.confidence);
    }
    extension.cs1Label = 'indicators';
    extension.cs1 = lineSafeJson(JSON.stringify(indicators));
  }
  const sources = alertSources(alert);
  if (sources.length > 0) {
    extension.cs2Label = 'sources';
    extension.cs2 = sources.join(',');
  }
  if (alert.riskScore !== undefined) {
    extension.cfp2Label = 'riskScore';
    extension.cfp2 = numberText(alert.riskScore);
  }
  if (alert.source !== undefined) {
    extension.cs4Label = 'alertSource';
    extension.cs4 = alert.source;
  }
  return {
    version: 0,
    deviceVendor: identity.vendor,
    deviceProduct: identity.product,
    deviceVersion: identity.version,
    deviceEventClassId: CEF_ALERT_CLASS_ID,
    name: oneLine(alert.title),
    severity: String(eventSeverity(alert)),
    extension,
  };
}
