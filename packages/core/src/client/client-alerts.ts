// `client.alerts`: the face of the client's alerting, an alert store whose `add` also delivers the alert to every
// started integration, with what a caller asks of the deliveries (redeliver, settled, deliveryOf, deliveryCounts).

import type { Alert, AlertInput } from '../alerts/alert.js';
import type { AlertDelivery } from '../alerts/alert-delivery.js';
import type { AlertPage, AlertQuery, AlertStore } from '../alerts/alert-store.js';
import type { AlertDeliveryCounts, ClientAlerting } from './alerting.js';

/**
 * The client's alerts (`client.alerts`): an {@link AlertStore} whose `add` also delivers the alert to every started
 * integration, and which can deliver again what failed. `POST /alerts` and the alerts the client raises itself take
 * the same path.
 *
 * @example
 * ```ts
 * const alert = await client.alerts.add({ title: 'Known C2', severity: 'high', indicators: [{ type: 'ip', value: ip }] });
 * await client.alerts.settled();
 * (await client.alerts.get(alert.id))?.deliveries; // [{integration: 'siem', status: 'delivered', attempts: 1, ...}]
 * await client.alerts.redeliver(alert.id); // again to those not delivered
 * ```
 */
export class ClientAlerts implements AlertStore {
  readonly #alerting: ClientAlerting;

  constructor(alerting: ClientAlerting) {
    this.#alerting = alerting;
  }

  /**
   * The store the alerts are kept in: the memory one unless the client was given another, or a started storage
   * integration's (`integrations.storage`) while the client runs.
   */
  get store(): AlertStore {
    return this.#alerting.store;
  }

  get #store(): AlertStore {
    return this.#alerting.store;
  }

  /**
   * Validates and stores an alert (either documented form), then delivers it to every started integration in the
   * background; resolves with the stored alert, its deliveries `pending`.
   *
   * @throws {ValidationError} naming every field that is wrong.
   */
  add(input: AlertInput): Promise<Alert> {
    return this.#alerting.add(input);
  }

  get(id: string): Promise<Alert | undefined> {
    return this.#store.get(id);
  }

  list(query?: AlertQuery): Promise<AlertPage> {
    return this.#store.list(query);
  }

  updateDeliveries(id: string, deliveries: readonly AlertDelivery[]): Promise<Alert | undefined> {
    return this.#store.updateDeliveries(id, deliveries);
  }

  /**
   * Delivers the alert again to each started integration whose delivery is not `delivered`, with the same retries;
   * resolves with the alert as stored once those deliveries have ended (undefined when the store does not hold it).
   */
  redeliver(id: string): Promise<Alert | undefined> {
    return this.#alerting.redeliver(id);
  }

  /** Resolves once every alert raised so far is stored and every delivery started so far has ended and is recorded. */
  settled(): Promise<void> {
    return this.#alerting.settled();
  }

  /**
   * Waits for the alert a correlation raised to reach one integration: resolves with that delivery's record
   * (`delivered`, or `failed`/`pending` with `lastError`) once its attempts have ended. `correlation` is the object
   * `client.correlate` returned; a duplicate of an alert still being delivered waits for that alert. Undefined when
   * no alert was raised (not a threat, alerting off, below `minSeverity`, deduplicated within `dedupeWindowMs`) or it
   * was not delivered to that integration (not started then). An alert that did not reach every integration does not
   * deduplicate the next conclusion of its indicator, which raises it again: a caller that retries on a failed
   * delivery gets a new one. A queue pipeline waits for it before acknowledging a threat.
   *
   * @example
   * ```ts
   * const correlation = await client.correlate(indicator);
   * const delivery = await client.alerts.deliveryOf(correlation, 'siem');
   * if (delivery && delivery.status !== 'delivered') throw new Error(`alert not delivered: ${delivery.lastError}`);
   * ```
   *
   * @throws the alert store's error when the alert could not be stored.
   */
  deliveryOf(correlation: object, integration: string): Promise<AlertDelivery | undefined> {
    return this.#alerting.deliveryOf(correlation, integration);
  }

  /** Final delivery outcomes by integration since the client was made (`threatlib_alert_deliveries_total`). */
  deliveryCounts(): Record<string, AlertDeliveryCounts> {
    return this.#alerting.deliveryCounts();
  }

  close(): Promise<void> {
    return this.#store.close?.() ?? Promise.resolve();
  }
}
