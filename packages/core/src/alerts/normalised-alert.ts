import type { Alert } from './alert.js';

// The records core made by validating an input. Module-level, like the event bus: core is a peer dependency, so one
// copy of it (and of this set) serves every package in a process; a record branded by another copy is not
// recognised, which only means it is validated again.
const NORMALISED = new WeakSet<object>();

/**
 * Whether `value` is an alert record core made by validating an input: the result of `normaliseAlert` (so of an
 * alert store's `add` and of `client.alerts.add`), which is also what the client hands an integration's `sendAlert`.
 * Such a record is deeply frozen, so it is still exactly what validation made of its input, and an integration need
 * not validate it again. Anything else is false, even when it looks the same: an object built by hand, a copy
 * (`structuredClone`, a spread), an alert read back from a store.
 *
 * @example
 * ```ts
 * const record = isNormalisedAlert(alert) ? alert : normaliseAlert(alert, new Date());
 * ```
 */
export function isNormalisedAlert(value: unknown): value is Alert {
  return typeof value === 'object' && value !== null && NORMALISED.has(value);
}

/**
 * Freezes `alert` deeply and brands it for {@link isNormalisedAlert}. Only for a record its caller made of plain
 * objects, arrays and primitives that nobody else holds any part of (`normaliseAlert`'s).
 */
export function sealNormalisedAlert(alert: Alert): Alert {
  // The record's shape is known: only `metadata` and a delivery's `result` are free-form.
  for (const indicator of alert.indicators) {
    if (indicator.sources) Object.freeze(indicator.sources);
    Object.freeze(indicator);
  }
  Object.freeze(alert.indicators);
  for (const delivery of alert.deliveries) {
    deepFreeze(delivery.result);
    Object.freeze(delivery);
  }
  Object.freeze(alert.deliveries);
  deepFreeze(alert.metadata);
  Object.freeze(alert);
  NORMALISED.add(alert);
  return alert;
}

function deepFreeze(value: unknown): void {
  if (value === null || typeof value !== 'object') return;
  Object.freeze(value);
  if (Array.isArray(value)) {
    for (const item of value) deepFreeze(item);
  } else {
    for (const key in value) deepFreeze((value as Record<string, unknown>)[key]);
  }
}
