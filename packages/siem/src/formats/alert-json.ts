import type { Alert } from '@threatlib/core';

/**
 * An alert as one line of JSON: the stored record (`id`, `title`, `severity`, `description`, `indicators`,
 * `timestamp`, `source`, `riskScore`, `metadata`) without `deliveries`, the client's own bookkeeping.
 */
export function jsonForAlert(alert: Alert): string {
  const { deliveries: _deliveries, ...record } = alert;
  return JSON.stringify(record);
}
