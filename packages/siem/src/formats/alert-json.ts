import type { Alert } from '@threatlib/core';
import { lineSafeJson } from '@threatlib/core/integration';
import { checkAlertSeverity, writtenIndicators } from './alert-fields.js';

/**
 * An alert as one line of JSON: the stored record (`id`, `title`, `severity`, `description`, `indicators`,
 * `timestamp`, `source`, `riskScore`, `metadata`) without `deliveries`, the client's own bookkeeping. Indicator
 * values are checked and normalised where they are written, and the characters `JSON.stringify` leaves raw that a
 * line reader may split at (NEL, U+2028, U+2029, DEL, C1) are written as `\uXXXX`: one line for every reader.
 *
 * @throws {EventFormatError} when the severity is not one of core's, or an indicator's value is not one indicator of
 *   its type (naming each such value).
 */
export function jsonForAlert(alert: Alert): string {
  checkAlertSeverity(alert, 'json');
  const { deliveries: _deliveries, ...record } = alert;
  const indicators = writtenIndicators(alert, 'json');
  return lineSafeJson(JSON.stringify(indicators === alert.indicators ? record : { ...record, indicators }));
}
