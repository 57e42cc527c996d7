// Delivering one alert to one integration, for the client's alerting: a place among the deliveries running at once,
// the attempts with their retries, and the outcome recorded on the alert (delivered, failed, or cut short by a stop).

import type { Alert } from '../alerts/alert.js';
import type { AlertDelivery, DeliveryStatus } from '../alerts/alert-delivery.js';
import { deliverWithRetries } from '../alerts/delivery-attempts.js';
import { deliveryPolicy } from '../alerts/delivery-policy.js';
import { deliveryErrorText, deliveryResult, optionSecrets } from '../alerts/delivery-record.js';
import { isNormalisedAlert } from '../alerts/normalised-alert.js';
import type { ResolvedConfig } from '../config/schema.js';
import type { Integration } from '../integration/integration.js';
import type { Logger } from '../logging/logger.js';
import type { Clock } from '../scheduler/clock.js';
import { type AlertDeliverySlots, MAX_WAITING } from './alert-delivery-slots.js';

/** An integration alerts are delivered to. */
export interface AlertTarget {
  name: string;
  instance: Integration;
  /** The options it was made with: its delivery policy reads `retries` and `timeout` there first. */
  options: unknown;
}

/** One alert whose deliveries are under way: the deliveries as they stand, and the writes that record them. */
export interface TrackedAlert {
  readonly id: string;
  readonly alert: Alert;
  readonly deliveries: AlertDelivery[];
  jobs: number;
  write: Promise<void>;
  writeQueued: boolean;
}

/** What one delivery needs from the client's alerting. */
export interface DeliveryRun {
  config: ResolvedConfig;
  clock: Clock;
  logger: Logger;
  /** For the backoff's jitter. */
  random: (() => number) | undefined;
  /** The configuration's secrets, kept out of the errors recorded. */
  secrets: readonly string[];
  slots: AlertDeliverySlots;
  /** Aborted when the client starts stopping: no new attempt starts, waits for a retry end. */
  draining: AbortSignal;
  /** Aborted when the stop's grace has passed: attempts still under way are given up. */
  stopping: AbortSignal;
  /** Records the deliveries of `tracked` as they stand now. */
  persist(tracked: TrackedAlert): void;
  /** Counts a final outcome for `integration`. */
  count(integration: string, status: Exclude<DeliveryStatus, 'pending'>): void;
  /** Forgets `tracked` once none of its deliveries is under way and every write of them is done. */
  untrack(tracked: TrackedAlert): void;
}

/** The delivery under way: the alert, its record of the delivery, and the integration it goes to. */
interface Delivering {
  tracked: TrackedAlert;
  record: AlertDelivery;
  target: AlertTarget;
}

/** Delivers the alert `tracked` holds to `target` and records the outcome on it; never rejects. */
export async function deliverAlert(tracked: TrackedAlert, target: AlertTarget, run: DeliveryRun): Promise<void> {
  // The signals of this run: stop() replaces them once it is done.
  const { draining, stopping } = run;
  tracked.jobs += 1;
  let delivery = tracked.deliveries.find((d) => d.integration === target.name);
  if (!delivery) {
    delivery = { integration: target.name, status: 'pending', attempts: 0 };
    tracked.deliveries.push(delivery);
  }
  const record = delivery;
  const delivering: Delivering = { tracked, record, target };
  if (record.status !== 'pending') {
    record.status = 'pending';
    run.persist(tracked);
  }
  const secrets = [...run.secrets, ...optionSecrets(target.options)];
  try {
    const admitted = await run.slots.admit(draining);
    if (!admitted) {
      if (draining.aborted) {
        cutShort(run, delivering, 'not attempted: the client stopped first; it resumes when the client starts again');
      } else {
        fail(
          run,
          delivering,
          `not attempted: ${MAX_WAITING} deliveries were already waiting; client.alerts.redeliver(id) tries again`,
        );
      }
      return;
    }
    try {
      const { performance } = run.config;
      const policy = deliveryPolicy(target.instance, target.options, performance);
      const outcome = await deliverWithRetries({
        send: (signal) => target.instance.sendAlert(handedOver(tracked.alert), { signal }),
        policy,
        clock: run.clock,
        signal: stopping,
        drain: draining,
        ...(run.random ? { random: run.random } : {}),
        onAttempt: (attempt) => {
          record.attempts += 1;
          record.lastAttemptAt = new Date(attempt.at).toISOString();
          if (attempt.ok) return;
          record.lastError = deliveryErrorText(attempt.error, secrets);
          if (attempt.attempt <= policy.retryAttempts) {
            run.logger.debug(
              { integration: target.name, alertId: tracked.id, attempt: attempt.attempt, reason: record.lastError },
              `alert ${tracked.id} to "${target.name}": attempt ${attempt.attempt} failed, trying again`,
            );
            run.persist(tracked);
          }
        },
      });
      if (outcome.ok) {
        record.status = 'delivered';
        delete record.lastError;
        const result = deliveryResult(outcome.result);
        if (result === undefined) delete record.result;
        else record.result = result;
        run.count(target.name, 'delivered');
        if (record.attempts > 1) {
          run.logger.info(
            { integration: target.name, alertId: tracked.id, attempts: record.attempts },
            `alert ${tracked.id} delivered to "${target.name}" after ${record.attempts} attempts`,
          );
        }
        run.persist(tracked);
      } else if (outcome.stopped) {
        // The last attempt's error says what went wrong; the stop is why no other attempt was made.
        const stop = deliveryErrorText(outcome.error, secrets);
        cutShort(run, delivering, record.lastError === undefined ? stop : `${record.lastError}; ${stop}`);
      } else if (
        draining.aborted &&
        (outcome.error === stopping.reason ||
          outcome.error === draining.reason ||
          (outcome.attempts <= policy.retryAttempts &&
            (outcome.error as { isRetryable?: unknown } | undefined)?.isRetryable !== false))
      ) {
        // Aborted by the stop, or failed during the grace with attempts left: the stop, not the attempts, ended it.
        const stop = deliveryErrorText(draining.reason, secrets);
        const last = deliveryErrorText(outcome.error, secrets);
        cutShort(run, delivering, last === stop ? stop : `${last}; ${stop}`);
      } else {
        fail(run, delivering, deliveryErrorText(outcome.error, secrets));
      }
    } finally {
      run.slots.release();
    }
  } catch (error) {
    // Only a bug gets here: the delivery still ends recorded, never silently.
    fail(run, delivering, deliveryErrorText(error, secrets));
  } finally {
    tracked.jobs -= 1;
    await tracked.write;
    if (tracked.jobs === 0 && !tracked.writeQueued) run.untrack(tracked);
  }
}

/** A copy of the delivery `tracked` records for `integration`, as it stands. */
export function outcomeOf(tracked: TrackedAlert, integration: string): AlertDelivery {
  const found = tracked.deliveries.find((delivery) => delivery.integration === integration);
  return found
    ? { ...found }
    : { integration, status: 'failed', attempts: 0, lastError: 'no outcome was recorded for this delivery' };
}

/** A delivery the client's stop ended before its attempts ran out: it stays `pending`, resumed at the next start. */
function cutShort(run: DeliveryRun, { tracked, record, target }: Delivering, reason: string): void {
  record.status = 'pending';
  record.lastError = reason;
  run.logger.info(
    { integration: target.name, alertId: tracked.id, attempts: record.attempts, reason },
    `alert ${tracked.id} to "${target.name}" was cut short by the stop (${record.attempts} attempt(s)); it stays pending and resumes when the client starts again`,
  );
  run.persist(tracked);
}

/** A delivery whose attempts ended without it being delivered: `failed`, until `client.alerts.redeliver(id)`. */
function fail(run: DeliveryRun, { tracked, record, target }: Delivering, reason: string): void {
  record.status = 'failed';
  record.lastError = reason;
  run.count(target.name, 'failed');
  run.logger.warn(
    { integration: target.name, alertId: tracked.id, attempts: record.attempts, reason },
    `alert ${tracked.id} was not delivered to "${target.name}" (${record.attempts} attempt(s)): ${reason}; client.alerts.redeliver("${tracked.id}") tries again`,
  );
  run.persist(tracked);
}

/**
 * The alert an integration's `sendAlert` gets: the record itself when core validated it (frozen, so no integration
 * can change what another gets), else a copy of its own.
 */
function handedOver(alert: Alert): Alert {
  return isNormalisedAlert(alert) ? alert : structuredClone(alert);
}
