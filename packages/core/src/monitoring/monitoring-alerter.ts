import type { FeedStatus } from '../feeds/feed-result.js';
import type { Logger } from '../logging/logger.js';
import type { BreakerStatus } from '../scheduler/circuit-breaker.js';
import type { Clock } from '../scheduler/clock.js';
import type { FeedMonitor } from '../scout/feed-pipeline.js';
import type { AlertChannel } from './alert-channel.js';
import { AlertCooldown } from './alert-cooldown.js';
import type { MonitoringAlert, MonitoringAlertStats, MonitoringCondition } from './monitoring-alert.js';
import { scrubSecrets } from './secret-scrubber.js';

/** Options of {@link MonitoringAlerter}. */
export interface MonitoringAlerterOptions {
  channels: readonly AlertChannel[];
  /** Least time between two alerts about the same feed and condition, in ms. */
  cooldownMs: number;
  clock: Clock;
  logger: Logger;
  /** Values that must never leave in an alert or a log line (see `configSecrets`). */
  secrets: readonly string[];
  /** A feed's display name, for the alert's details. */
  feedName?: (feed: string) => string | undefined;
  /** How long `close()` lets deliveries under way finish before ending them, in ms on `clock` (default 2 s). */
  closeGraceMs?: number;
}

/**
 * Turns what the feed pipeline notices (a breaker opening, a key refused) into monitoring alerts, and sends each to
 * every channel. It never blocks nor fails a lookup: deliveries run detached, a failed one is logged and counted,
 * and a cooldown lets one alert per feed and condition through per `cooldownMs`.
 */
export class MonitoringAlerter implements FeedMonitor {
  readonly #options: MonitoringAlerterOptions;
  readonly #cooldown: AlertCooldown;
  /** Deliveries under way, each with the means to give it up. */
  readonly #pending = new Map<Promise<void>, () => void>();
  readonly #stats: MonitoringAlertStats;

  constructor(options: MonitoringAlerterOptions) {
    this.#options = options;
    this.#cooldown = new AlertCooldown(options.cooldownMs, () => options.clock.now());
    this.#stats = {
      raised: 0,
      suppressed: 0,
      channels: Object.fromEntries(options.channels.map((c) => [c.name, { sent: 0, failed: 0 }])),
    };
  }

  /** {@inheritDoc FeedMonitor.breakerOpened} */
  breakerOpened(feed: string, detail: { breaker: BreakerStatus; failure?: { status: FeedStatus; message: string } }) {
    const { breaker, failure } = detail;
    this.#raise('breaker_open', feed, {
      summary: `${feed}: circuit breaker open${failure ? ` after ${failure.status}` : ''}`,
      action: `threatlib stops asking ${feed}${breaker.nextTrialAt ? ` until ${breaker.nextTrialAt}` : ''}, then lets one trial request through; meanwhile its lookups answer circuit_open. Check the feed's availability and the failure below.`,
      details: {
        breaker: breaker.state,
        ...(breaker.openedAt ? { openedAt: breaker.openedAt } : {}),
        ...(breaker.nextTrialAt ? { nextTrialAt: breaker.nextTrialAt } : {}),
        ...(failure ? { failureStatus: failure.status, failure: failure.message } : {}),
      },
    });
  }

  /** {@inheritDoc FeedMonitor.keyRejected} */
  keyRejected(feed: string, detail: { statusCode?: number; message: string }) {
    this.#raise('key_rejected', feed, {
      summary: `${feed}: API key rejected${detail.statusCode ? ` (HTTP ${detail.statusCode})` : ''}`,
      action: `Check or replace the API key for ${feed} (apiKeys.${feed}, its environment variable or the vault): every lookup of ${feed} fails until then.`,
      details: {
        ...(detail.statusCode === undefined ? {} : { statusCode: detail.statusCode }),
        failure: detail.message,
      },
    });
  }

  /** What was raised, suppressed, sent and failed so far. */
  stats(): MonitoringAlertStats {
    return {
      raised: this.#stats.raised,
      suppressed: this.#stats.suppressed,
      channels: Object.fromEntries(Object.entries(this.#stats.channels).map(([name, c]) => [name, { ...c }])),
    };
  }

  /** Resolves when every delivery begun so far has ended, delivered or failed. */
  async settled(): Promise<void> {
    while (this.#pending.size > 0) await Promise.allSettled([...this.#pending.keys()]);
  }

  /**
   * Lets deliveries under way finish for up to `closeGraceMs`, then closes every channel's connections; a delivery
   * still in flight is given up and counts as failed. Alerts raised later reopen the connections.
   */
  async close(): Promise<void> {
    const grace = this.#options.closeGraceMs ?? 2_000;
    if (this.#pending.size > 0) await settleWithin([...this.#pending.keys()], grace, this.#options.clock);
    for (const giveUp of this.#pending.values()) giveUp();
    await Promise.all(
      this.#options.channels.map((channel) =>
        channel.close().catch((error: unknown) => {
          this.#options.logger.warn(
            { channel: channel.name, reason: this.#scrub(error) },
            `closing the ${channel.name} alert channel failed`,
          );
        }),
      ),
    );
  }

  #raise(
    condition: MonitoringCondition,
    feed: string,
    content: { summary: string; action: string; details: MonitoringAlert['details'] },
  ): void {
    const { logger, clock, channels } = this.#options;
    if (!this.#cooldown.admit(feed, condition)) {
      this.#stats.suppressed += 1;
      return;
    }
    this.#stats.raised += 1;
    const name = this.#options.feedName?.(feed);
    const alert: MonitoringAlert = {
      condition,
      feed,
      at: new Date(clock.now()).toISOString(),
      summary: this.#scrub(content.summary),
      action: this.#scrub(content.action),
      details: Object.fromEntries(
        Object.entries({ ...(name ? { feedName: name } : {}), ...content.details }).map(([key, value]) => [
          key,
          typeof value === 'string' ? this.#scrub(value) : value,
        ]),
      ),
    };
    logger.warn({ feed, condition, channels: channels.map((c) => c.name) }, `monitoring alert: ${alert.summary}`);
    for (const channel of channels) this.#deliver(channel, alert);
  }

  #deliver(channel: AlertChannel, alert: MonitoringAlert): void {
    const counters = this.#stats.channels[channel.name] ?? { sent: 0, failed: 0 };
    this.#stats.channels[channel.name] = counters;
    let ended = false;
    const end = (error?: unknown) => {
      if (ended) return;
      ended = true;
      if (error === undefined) {
        counters.sent += 1;
        return;
      }
      counters.failed += 1;
      const reason = this.#scrub(error);
      this.#options.logger.error(
        { channel: channel.name, feed: alert.feed, condition: alert.condition, reason },
        `monitoring alert by ${channel.name} failed: ${reason}`,
      );
    };
    // Started on a later microtask: even a channel that throws synchronously cannot reach the lookup that noticed.
    const delivery = Promise.resolve()
      .then(() => channel.send(alert))
      .then(
        () => end(),
        (error: unknown) => end(error ?? new Error('delivery failed')),
      )
      .finally(() => this.#pending.delete(delivery));
    this.#pending.set(delivery, () => end(new Error('given up: the client stopped before the delivery ended')));
  }

  #scrub(value: unknown): string {
    const text = value instanceof Error ? value.message : String(value);
    return scrubSecrets(text, this.#options.secrets);
  }
}

/** Waits for `promises` to settle, or for `ms` to pass on `clock`, whichever comes first. */
async function settleWithin(promises: Promise<unknown>[], ms: number, clock: Clock): Promise<void> {
  let timer: unknown;
  const elapsed = new Promise<void>((resolve) => {
    timer = clock.setTimeout(resolve, ms, { unref: true });
  });
  try {
    await Promise.race([Promise.allSettled(promises), elapsed]);
  } finally {
    clock.clearTimeout(timer);
  }
}
