import type { Severity } from '../records/severity.js';
import type { Alert, AlertInput } from './alert.js';
import type { AlertDelivery } from './alert-delivery.js';

/** Filters and paging for {@link AlertStore.list}. */
export interface AlertQuery {
  /** Only alerts with at least this severity (`high` lists `high` and `critical`). */
  minSeverity?: Severity;
  /**
   * Only alerts of exactly this severity, or of one of these (`['high', 'critical']`). With `minSeverity`, both
   * apply: `{severity: 'high', minSeverity: 'critical'}` lists nothing.
   */
  severity?: Severity | readonly Severity[];
  /** Only alerts at or after this time. */
  since?: Date;
  /** Page size (the store caps it). */
  limit?: number;
  /** Opaque cursor from a previous page's `nextCursor`. */
  cursor?: string;
}

/** One page of alerts, newest first. */
export interface AlertPage {
  items: Alert[];
  /** Pass to the next `list` call to get the following page; absent on the last page. */
  nextCursor?: string;
}

/**
 * Where the client keeps alerts. Core ships a memory store; `@threatlib/storage` adds persistent ones. Every
 * implementation runs core's alert store compliance suite.
 */
export interface AlertStore {
  /**
   * Validates and stores an alert (either documented form, see `AlertInputSchema`); resolves once it is durable (as
   * durable as the store can make it).
   *
   * @throws {ValidationError} naming every field that is wrong, or an `id` the store already holds.
   */
  add(input: AlertInput): Promise<Alert>;
  get(id: string): Promise<Alert | undefined>;
  list(query?: AlertQuery): Promise<AlertPage>;
  /**
   * Replaces the `deliveries` of the alert stored under `id` (the client calls it as each delivery to an integration
   * progresses) and resolves with the updated alert, or undefined when the store no longer holds it. Nothing else
   * of the alert changes.
   *
   * @throws {ValidationError} when a delivery is not an `AlertDeliverySchema` record.
   */
  updateDeliveries(id: string, deliveries: readonly AlertDelivery[]): Promise<Alert | undefined>;
  /**
   * The alerts with at least one delivery `pending`, newest first, paged like {@link list} (its `minSeverity`,
   * `severity` and `since` filter them too). `client.start()` asks for them to resume the deliveries a stopped (or crashed) process
   * left unfinished; a store without it has nothing resumed (`client.alerts.redeliver(id)` still works).
   */
  pending?(query?: AlertQuery): Promise<AlertPage>;
  /** Releases connections; the store is not used afterwards. */
  close?(): Promise<void>;
}
