// The alerting of one client: which concluded threats raise an alert (alerting options, deduplication), where alerts
// are kept, the deliveries started, resumed after a restart and ended by a stop. Delivering one alert to one
// integration is deliver-alert.ts; `client.alerts`, its face, is client-alerts.ts.

import * as z from 'zod';
import type { Alert, AlertInput } from '../alerts/alert.js';
import { AlertDedupe } from '../alerts/alert-dedupe.js';
import { type AlertDelivery, AlertDeliverySchema, type DeliveryStatus } from '../alerts/alert-delivery.js';
import type { AlertStore } from '../alerts/alert-store.js';
import { deliveryErrorText } from '../alerts/delivery-record.js';
import { isNormalisedAlert } from '../alerts/normalised-alert.js';
import { threatAlertFor } from '../alerts/threat-alert.js';
import type { ResolvedConfig } from '../config/schema.js';
import type { Correlation } from '../correlation/correlate.js';
import { withCategory } from '../logging/categories.js';
import type { Logger } from '../logging/logger.js';
import { configSecrets } from '../monitoring/secret-scrubber.js';
import { severityForRiskScore, severityRank } from '../records/severity.js';
import type { Clock } from '../scheduler/clock.js';
import { AlertDeliverySlots } from './alert-delivery-slots.js';
import { ClientAlerts } from './client-alerts.js';
import { type AlertTarget, deliverAlert, outcomeOf, type TrackedAlert } from './deliver-alert.js';

export type { ClientAlerts };

/** What {@link ClientAlerting} needs from its client. */
export interface ClientAlertingOptions {
  store: AlertStore;
  config: ResolvedConfig;
  clock: Clock;
  logger: Logger;
  /** The integrations started now: where alerts go. */
  targets(): ReadonlyArray<AlertTarget>;
  /**
   * Resolves once the client's integrations have all started (at once when it is not starting): an alert raised
   * while they start (a queue message consumed by one started first) waits, so that it goes to every one of them and
   * into the store the client keeps alerts in once started.
   */
  ready?(): Promise<void>;
  /** For the backoff's jitter. */
  random?: () => number;
  /**
   * Deduplication shared with other processes (a cluster): consulted after this client's own, so an indicator another
   * process raised within `dedupeWindowMs` raises nothing here either.
   */
  sharedDedupe?: { admit(key: string, windowMs: number): Promise<boolean>; forget(key: string): void } | undefined;
}

/** Final outcomes of deliveries to one integration since the client was made. */
export interface AlertDeliveryCounts {
  delivered: number;
  failed: number;
}

/** How long `stop()` lets the attempts under way finish, in ms on the client's clock. */
export const ALERT_DELIVERY_GRACE_MS = 5_000;
/** Alerts asked of the store at a time when resuming pending deliveries. */
const RESUME_PAGE = 100;
/** Resumed deliveries under way (running or waiting for a place) at once; the next page waits for room. */
const RESUME_WINDOW = 1_000;

const DeliveriesSchema = z.array(AlertDeliverySchema);

/**
 * An alert a concluded threat raised: settles once the alert is stored, with the delivery under way to each
 * integration it is delivered to (each settling, never rejecting, with the delivery's outcome once its attempts
 * ended); rejects with the store's error when the alert could not be stored.
 */
type Raised = Promise<ReadonlyMap<string, Promise<AlertDelivery>>>;

/**
 * The alerting of one client: raises an alert for each threat concluded (filtered by `alerting.enabled` and
 * `minSeverity`, deduplicated within `dedupeWindowMs`), stores every alert, and delivers each to every started
 * integration, concurrently and in the background, retrying each delivery with backoff and recording its outcome
 * on the stored alert. `client.alerts` is its face ({@link ClientAlerts}).
 */
export class ClientAlerting {
  readonly alerts: ClientAlerts;
  readonly #options: ClientAlertingOptions;
  readonly #logger: Logger;
  readonly #dedupe: AlertDedupe;
  readonly #secrets: string[];
  readonly #tracked = new Map<string, TrackedAlert>();
  /** Deliveries under way by `alertId\0integration`: one at a time per pair. */
  readonly #inFlight = new Map<string, Promise<AlertDelivery>>();
  /**
   * The alert each concluded correlation raised (or, deduplicated, waits for), by the correlation object its caller
   * holds: an entry lives as long as that object (see `deliveryOf`).
   */
  readonly #raised = new WeakMap<object, Raised>();
  /** Alerts raised whose deliveries have not all ended, by dedupe key: a duplicate concluded meanwhile waits for one. */
  readonly #open = new Map<string, Raised>();
  /** Everything running in the background: raises, deliveries and the writes that record them. */
  readonly #background = new Set<Promise<unknown>>();
  readonly #counts = new Map<string, AlertDeliveryCounts>();
  readonly #slots = new AlertDeliverySlots();
  /** Where alerts are kept now: the client's own store, or a started integration's (see `useStore`). */
  #store: AlertStore;
  /** Aborted when the client starts stopping: no new attempt starts, waits for a retry end. */
  #draining = new AbortController();
  /** Aborted when the grace has passed: attempts still under way are given up. */
  #stopping = new AbortController();
  /** While a resume runs: the alerts whose deliveries this run started, which the resume must not start again. */
  #startedDuringResume: Set<string> | undefined;

  constructor(options: ClientAlertingOptions) {
    this.#options = options;
    this.#logger = withCategory(options.logger, 'integration');
    this.#dedupe = new AlertDedupe(options.config.alerting.dedupeWindowMs);
    this.#secrets = configSecrets(options.config);
    this.#store = options.store;
    this.alerts = new ClientAlerts(this);
  }

  /**
   * A threat was concluded: raises its alert in the background unless alerting is off, its severity is below
   * `minSeverity`, or the same indicator raised one within `dedupeWindowMs`. Never throws and never waits.
   * `handle` is the object the caller of `correlate` holds (default: `correlation`): `deliveryOf(handle, name)`
   * finds the alert by it.
   */
  conclude(correlation: Correlation, handle: object = correlation): void {
    const { enabled, minSeverity } = this.#options.config.alerting;
    if (!enabled || !correlation.isThreat) return;
    if (severityRank(severityForRiskScore(correlation.riskScore)) < severityRank(minSeverity)) return;
    const now = this.#options.clock.now();
    const key = `${correlation.type}\0${correlation.indicator}`;
    if (!this.#dedupe.admit(key, now)) {
      // A duplicate raises nothing, but while the alert it duplicates is being delivered, it waits for that one.
      const open = this.#open.get(key);
      if (open) this.#raised.set(handle, open);
      return;
    }
    let input: AlertInput;
    try {
      input = threatAlertFor(correlation, new Date(now));
    } catch (error) {
      this.#dedupe.forget(key);
      this.#logger.error({ err: error, indicator: correlation.indicator }, 'could not make the alert for a threat');
      return;
    }
    const shared = this.#options.sharedDedupe;
    if (!shared) {
      this.#raised.set(handle, this.#raise(input, key, correlation.indicator));
      return;
    }
    // Another process may have raised it: ask the cluster first (in the background; never throws).
    const decided: Raised = this.#track(
      shared
        .admit(key, this.#options.config.alerting.dedupeWindowMs)
        .then((admitted) => (admitted ? this.#raise(input, key, correlation.indicator) : new Map())),
    );
    this.#open.set(key, decided);
    this.#raised.set(handle, decided);
    // Raised here, #raise keeps it open until its deliveries end; raised elsewhere, there is nothing to wait for.
    const close = () => {
      if (this.#open.get(key) === decided) this.#open.delete(key);
    };
    decided.then(close, close);
  }

  /** Forgets `key` here and across the cluster, so that its next conclusion raises its alert again. */
  #forget(key: string): void {
    this.#dedupe.forget(key);
    this.#options.sharedDedupe?.forget(key);
  }

  /**
   * Stores and delivers the alert of a threat. Its dedupe key is forgotten when it could not be stored or a delivery
   * ended other than `delivered`, so that the next conclusion of the indicator raises it again (a queue message
   * retried because the alert did not go out must not be taken for a duplicate).
   */
  #raise(input: AlertInput, key: string, indicator: string): Raised {
    const raised: Raised = this.#add(input).then(({ jobs }) => jobs);
    this.#open.set(key, raised);
    this.#track(
      raised
        .then(
          async (jobs) => {
            const outcomes = await Promise.all(jobs.values());
            if (outcomes.some((delivery) => delivery.status !== 'delivered')) this.#forget(key);
          },
          (error: unknown) => {
            this.#forget(key);
            this.#logger.error(
              { err: error, indicator },
              `the alert for ${indicator} could not be stored: ${deliveryErrorText(error, this.#secrets)}`,
            );
          },
        )
        .finally(() => {
          if (this.#open.get(key) === raised) this.#open.delete(key);
        }),
    );
    return raised;
  }

  /**
   * The outcome of delivering, to `integration`, the alert that concluding `correlation` raised (the result of
   * `client.correlate` as returned): resolves once that delivery has ended, its retries included, with its record.
   * A correlation deduplicated against an alert whose deliveries are still under way waits for that alert's.
   * Undefined when no alert was raised (not a threat, alerting off, below `minSeverity`, deduplicated within
   * `dedupeWindowMs`) or none was delivered to `integration` (not started then).
   *
   * @throws the alert store's error when the alert could not be stored.
   */
  async deliveryOf(correlation: object, integration: string): Promise<AlertDelivery | undefined> {
    const raised = typeof correlation === 'object' && correlation !== null ? this.#raised.get(correlation) : undefined;
    if (raised === undefined) return undefined;
    const job = (await raised).get(integration);
    return job === undefined ? undefined : { ...(await job) };
  }

  /**
   * Stores an alert with a `pending` delivery for each started integration and starts delivering it; resolves with
   * the stored alert once it is stored, without waiting for the deliveries.
   */
  async add(input: AlertInput): Promise<Alert> {
    return (await this.#add(input)).stored;
  }

  async #add(input: AlertInput): Promise<{ stored: Alert; jobs: Map<string, Promise<AlertDelivery>> }> {
    await this.#options.ready?.();
    const targets = this.#targets();
    const parsed = DeliveriesSchema.safeParse((input as { deliveries?: unknown } | null)?.deliveries ?? []);
    // Invalid deliveries (or input) are the store's to refuse, with its ValidationError.
    if (!parsed.success) return { stored: await this.#store.add(input), jobs: new Map() };
    const given = parsed.data;
    // A delivery the input records as done (an alert moved from another store) is not made again.
    const due = targets.filter((t) => !given.some((d) => d.integration === t.name && d.status === 'delivered'));
    const deliveries = [
      ...given.filter((d) => !due.some((t) => t.name === d.integration)),
      ...due.map((t) => ({ integration: t.name, status: 'pending' as const, attempts: 0 })),
    ];
    const stored = await this.#store.add({ ...input, deliveries } as AlertInput);
    const jobs = this.#start(stored, due);
    return { stored, jobs: new Map(due.map((target, i) => [target.name, jobs[i] as Promise<AlertDelivery>])) };
  }

  /**
   * Delivers the alert again to each started integration whose delivery is not `delivered` (failed, or never
   * attempted), with the same retries; a delivery already under way is awaited rather than doubled. Resolves with
   * the alert as stored once those deliveries have ended, or undefined when the store does not hold it.
   */
  async redeliver(id: string): Promise<Alert | undefined> {
    const stored = this.#tracked.get(id)?.alert ?? (await this.#store.get(id));
    if (!stored) return undefined;
    const current = this.#tracked.get(id)?.deliveries ?? stored.deliveries;
    const due = this.#targets().filter((t) => current.find((d) => d.integration === t.name)?.status !== 'delivered');
    const jobs = this.#start(stored, due);
    await Promise.all(jobs);
    await this.#tracked.get(id)?.write;
    return this.#store.get(id);
  }

  /** Resolves once every alert raised so far is stored and every delivery started so far has ended and is recorded. */
  async settled(): Promise<void> {
    while (this.#background.size > 0) await Promise.allSettled([...this.#background]);
  }

  /** Where alerts are kept now. */
  get store(): AlertStore {
    return this.#store;
  }

  /**
   * Keeps alerts in `store` from now on (a storage integration's, once it has started; the client's own again when
   * it stops). With `copy`, the alerts of the store in use that `store` does not hold are added to it first, with
   * their deliveries, so that none is lost from `client.alerts`.
   */
  async useStore(store: AlertStore, options: { copy?: boolean } = {}): Promise<void> {
    if (store === this.#store) return;
    if (options.copy) {
      let cursor: string | undefined;
      do {
        const page = await this.#store.list({ limit: 500, ...(cursor === undefined ? {} : { cursor }) });
        for (const alert of page.items) {
          if ((await store.get(alert.id)) === undefined) await store.add(alert);
        }
        cursor = page.nextCursor;
      } while (cursor !== undefined);
    }
    this.#store = store;
  }

  /**
   * For `client.start()`, once the integrations have started: delivers again, in the background, every delivery the
   * store holds as `pending` to a started integration: those a stopped client cut short, and those a process that
   * ended without stopping left in flight (so an integration may receive an alert twice: delivery is at least once).
   * A delivery pending for an integration not started now stays pending. Needs the store's `pending()`; a store
   * without it has nothing resumed. `settled()` waits for the resumed deliveries too.
   */
  resumePending(): void {
    const store = this.#store;
    if (typeof store.pending !== 'function') {
      this.#logger.debug({}, 'the alert store has no pending(): deliveries left pending are not resumed');
      return;
    }
    const started = new Set<string>();
    this.#startedDuringResume = started;
    this.#track(
      this.#resume(store, this.#draining.signal, started)
        .catch((error: unknown) => {
          this.#logger.error(
            { err: error },
            `the deliveries left pending could not be resumed: ${deliveryErrorText(error, this.#secrets)}; client.alerts.redeliver(id) delivers an alert again`,
          );
        })
        .finally(() => {
          if (this.#startedDuringResume === started) this.#startedDuringResume = undefined;
        }),
    );
  }

  async #resume(store: AlertStore, signal: AbortSignal, started: Set<string>): Promise<void> {
    const pending = store.pending?.bind(store) as NonNullable<AlertStore['pending']>;
    const window = new Set<Promise<unknown>>();
    let alerts = 0;
    let deliveries = 0;
    let cursor: string | undefined;
    do {
      if (signal.aborted) break;
      const page = await pending({ limit: RESUME_PAGE, ...(cursor === undefined ? {} : { cursor }) });
      for (const alert of page.items) {
        // An alert this run started delivering is in hand: the page may predate its outcome being recorded.
        if (signal.aborted || started.has(alert.id)) continue;
        const due = this.#targets().filter((t) =>
          alert.deliveries.some((d) => d.integration === t.name && d.status === 'pending'),
        );
        if (due.length === 0) continue;
        alerts += 1;
        for (const job of this.#start(alert, due)) {
          deliveries += 1;
          window.add(job);
          const done = () => window.delete(job);
          job.then(done, done);
        }
        while (window.size >= RESUME_WINDOW) await Promise.race(window);
      }
      cursor = page.nextCursor;
    } while (cursor !== undefined);
    if (alerts > 0) {
      this.#logger.info(
        { alerts, deliveries },
        `resumed ${deliveries} alert deliver${deliveries === 1 ? 'y' : 'ies'} left pending (${alerts} alert${alerts === 1 ? '' : 's'})`,
      );
    }
  }

  /** Final delivery outcomes by integration, for `threatlib_alert_deliveries_total`. */
  deliveryCounts(): Record<string, AlertDeliveryCounts> {
    return Object.fromEntries([...this.#counts].map(([name, counts]) => [name, { ...counts }]));
  }

  /**
   * For `client.stop()`: deliveries waiting for a place or for their next attempt end now, those under way get
   * `graceMs` to finish and are then aborted. Each one cut short stays `pending`, its `lastError` saying so, and is
   * resumed by the next `start()` (see {@link resumePending}); one whose attempts ran out is `failed`. Resolves once
   * every outcome is recorded; leaves no timer.
   */
  async stop(graceMs = ALERT_DELIVERY_GRACE_MS): Promise<void> {
    const { clock } = this.#options;
    const reason = new Error('the client stopped before the delivery ended; it resumes when the client starts again');
    // Waiting for a place or for a retry is not work under way: those end now; attempts in progress get the grace.
    this.#draining.abort(reason);
    this.#slots.refuseWaiting();
    if (this.#inFlight.size > 0) await settleWithin(Promise.allSettled(this.#inFlight.values()), graceMs, clock);
    this.#stopping.abort(reason);
    // Attempts end at once now; what is left is recording them, which a hung alert store must not make endless.
    if (this.#background.size > 0) await settleWithin(this.settled(), graceMs, clock);
    this.#draining = new AbortController();
    this.#stopping = new AbortController();
  }

  #targets(): AlertTarget[] {
    // The integration that keeps the alerts is not sent them as well.
    return this.#options
      .targets()
      .filter((t) => typeof t.instance.sendAlert === 'function' && t.instance.alertStore !== this.#store);
  }

  #track<T>(work: Promise<T>): Promise<T> {
    this.#background.add(work);
    const done = () => this.#background.delete(work);
    work.then(done, done);
    return work;
  }

  /**
   * Starts (or joins) a delivery of `alert` to each of `targets`; the promises resolve, in the order of `targets`, as
   * each ends and its outcome is recorded, with the delivery's record.
   */
  #start(alert: Alert, targets: readonly AlertTarget[]): Promise<AlertDelivery>[] {
    if (targets.length === 0) return [];
    this.#startedDuringResume?.add(alert.id);
    let tracked = this.#tracked.get(alert.id);
    if (!tracked) {
      tracked = {
        id: alert.id,
        // A record core validated is frozen: it is kept, and handed to every integration, as it is.
        alert: isNormalisedAlert(alert) ? alert : structuredClone(alert),
        deliveries: alert.deliveries.map((d) => ({ ...d })),
        jobs: 0,
        write: Promise.resolve(),
        writeQueued: false,
      };
      this.#tracked.set(alert.id, tracked);
    }
    return targets.map((target) => {
      const key = `${alert.id}\0${target.name}`;
      const existing = this.#inFlight.get(key);
      if (existing) return existing;
      const job = this.#track(this.#deliver(tracked, target).then(() => outcomeOf(tracked, target.name))).finally(() =>
        this.#inFlight.delete(key),
      );
      this.#inFlight.set(key, job);
      return job;
    });
  }

  #deliver(tracked: TrackedAlert, target: AlertTarget): Promise<void> {
    return deliverAlert(tracked, target, {
      config: this.#options.config,
      clock: this.#options.clock,
      logger: this.#logger,
      random: this.#options.random,
      secrets: this.#secrets,
      slots: this.#slots,
      draining: this.#draining.signal,
      stopping: this.#stopping.signal,
      persist: (t) => this.#persist(t),
      count: (integration, status) => this.#count(integration, status),
      untrack: (t) => this.#tracked.delete(t.id),
    });
  }

  #count(integration: string, status: Exclude<DeliveryStatus, 'pending'>): void {
    const counts = this.#counts.get(integration) ?? { delivered: 0, failed: 0 };
    counts[status] += 1;
    this.#counts.set(integration, counts);
  }

  /** Records the deliveries as they stand now; writes for one alert run one after another, none is lost. */
  #persist(tracked: TrackedAlert): void {
    if (tracked.writeQueued) return;
    tracked.writeQueued = true;
    tracked.write = this.#track(
      tracked.write.then(async () => {
        tracked.writeQueued = false;
        const snapshot = tracked.deliveries.map((d) => ({ ...d }));
        try {
          const updated = await this.#store.updateDeliveries(tracked.id, snapshot);
          if (!updated) {
            this.#logger.debug(
              { alertId: tracked.id },
              `alert ${tracked.id} is no longer in the alert store: its delivery outcome is not kept`,
            );
          }
        } catch (error) {
          this.#logger.error(
            { alertId: tracked.id, err: error },
            `the delivery outcome of alert ${tracked.id} could not be stored: ${deliveryErrorText(error, this.#secrets)}`,
          );
        }
      }),
    );
  }
}

/** Waits for `work` to settle, or for `ms` to pass on `clock`, whichever comes first; leaves no timer. */
async function settleWithin(work: Promise<unknown>, ms: number, clock: Clock): Promise<void> {
  let timer: unknown;
  const elapsed = new Promise<void>((resolve) => {
    timer = clock.setTimeout(resolve, ms, { unref: true });
  });
  try {
    await Promise.race([work.then(noop, noop), elapsed]);
  } finally {
    clock.clearTimeout(timer);
  }
}

function noop(): void {}
