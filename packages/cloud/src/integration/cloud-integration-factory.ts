import { type Alert, ConfigurationError, type Logger } from '@threatlib/core';
import {
  type Clock,
  type Integration,
  type IntegrationContext,
  type IntegrationFactory,
  type IntegrationHealth,
  systemClock,
} from '@threatlib/core/integration';
import { z } from 'zod';
import { CloudIntegration, type PublishedThreatList } from '../aws/cloud-integration.js';
import { CloudIntegrationOptionsSchema, parseOptions } from '../aws/cloud-options.js';
import { MIN_PUBLISH_INTERVAL_MS, PublishThreatListOptionsSchema } from '../aws/publish-options.js';
import { alertStoreIndicators, type ThreatIndicatorSource } from '../aws/threat-indicators.js';
import { GUARDDUTY_TXT_TYPES } from '../aws/threat-list.js';

declare module '@threatlib/core' {
  interface IntegrationRegistry {
    /** The GuardDuty threat list `client.start()` builds from `integrations.cloud`. */
    cloud: CloudThreatListIntegration;
  }
}

/** The default ms between two publications of the threat list: GuardDuty takes minutes to read a list anew. */
export const DEFAULT_THREAT_LIST_INTERVAL_MS = 300_000;

/** `integrations.cloud.threatList`: where the list goes and what it holds. */
const ThreatListOptionsSchema = PublishThreatListOptionsSchema.omit({
  schedule: true,
  since: true,
  detectorId: true,
}).extend({
  /** Publications at most once per `intervalMs` (default 300000, at least 60000). */
  intervalMs: z.int().min(MIN_PUBLISH_INTERVAL_MS).default(DEFAULT_THREAT_LIST_INTERVAL_MS),
});

/** `integrations.cloud`: `CloudIntegration`'s options and the threat list to keep. */
const CloudThreatListOptionsSchema = CloudIntegrationOptionsSchema.extend({
  threatList: ThreatListOptionsSchema,
});

/** What users write for `integrations.cloud`. */
export type CloudThreatListOptions = z.input<typeof CloudThreatListOptionsSchema>;

/** What the integration takes besides its options and context (tests give it a clock). */
export interface CloudThreatListRuntime {
  clock?: Clock;
  /** Where the threat indicators come from; default the client's alert store. */
  indicators?: ThreatIndicatorSource;
}

/** What `sendAlert` answers: whether the alert changes the list, and when the list is published. */
export interface ThreatListReceipt {
  queued: boolean;
  /** ISO 8601: when the publication that includes the alert runs. */
  publishAt?: string;
  /** Why the alert does not change the list. */
  reason?: string;
}

/**
 * `integrations.cloud` as a client integration: every alert the client stores reaches `sendAlert`; one with an
 * indicator at or above `threatList.minConfidence` (and, for TXT, an IP address) makes the threat list due, and the
 * list is published (S3 object rewritten, GuardDuty set updated and activated, created the first time) from the
 * whole alert store: at once when the last publication is older than `intervalMs`, else when it is, so alerts
 * arriving together make one publication. A failed publication is logged, reported by `health()` and tried again
 * after `intervalMs`; `stop()` publishes what is still due. `cloud` is the `CloudIntegration` behind it.
 */
export class CloudThreatListIntegration implements Integration {
  readonly specificationVersion = 'v1' as const;
  /** The AWS clients behind the integration. */
  readonly cloud: CloudIntegration;
  readonly #list: z.output<typeof ThreatListOptionsSchema>;
  readonly #clock: Clock;
  readonly #logger: Logger;
  readonly #indicators: ThreatIndicatorSource;
  #due = false;
  #timer: unknown;
  #timerAt: number | undefined;
  #lastAttemptAt: number | undefined;
  #publishing: Promise<void> | undefined;
  #lastError: string | undefined;
  #stopped = false;

  /**
   * @throws {ConfigurationError} `Configuration invalid: integrations.cloud...` when the options are missing or
   *   invalid, naming each problem.
   */
  constructor(options: CloudThreatListOptions, context: IntegrationContext, runtime: CloudThreatListRuntime = {}) {
    if (options === undefined || options === null || Object.keys(options as object).length === 0) {
      throw new ConfigurationError([
        {
          path: context.optionsPath,
          message: 'not configured: set {region, credentials, threatList: {bucket, key, name}}',
        },
      ]);
    }
    const { threatList, ...aws } = parseOptions(CloudThreatListOptionsSchema, options, context.optionsPath);
    this.#list = threatList;
    this.#clock = runtime.clock ?? systemClock;
    this.#logger = context.logger;
    this.#indicators = runtime.indicators ?? alertStoreIndicators(() => context.client.alerts);
    this.cloud = new CloudIntegration(aws, {
      logger: context.logger,
      clock: this.#clock,
      indicators: this.#indicators,
      optionsPath: context.optionsPath,
      checkEndpoint: (url, what) => context.checkEndpoint(url, what),
    });
  }

  /** Nothing to open: the SDK clients connect on their first call. */
  start(): void {
    this.#stopped = false;
  }

  /** Publishes what is due (a failure is logged), then releases the SDK clients. */
  async stop(): Promise<void> {
    this.#stopped = true;
    this.#clearTimer();
    await this.#publishing;
    if (this.#due) await this.#publish();
    await this.cloud.stop();
  }

  health(): IntegrationHealth {
    const last = this.cloud.lastPublication;
    const detail = this.#lastError
      ? `last publication failed: ${this.#lastError}`
      : last
        ? `threat list "${this.#list.name}" published at ${last.publishedAt} (${last.indicators} indicators)`
        : `threat list "${this.#list.name}" not published yet`;
    return {
      healthy: this.#lastError === undefined,
      detail,
      due: this.#due,
      ...(last ? { lastPublication: last } : {}),
    };
  }

  /**
   * Makes the threat list due when the alert carries a threat for it; resolves at once (the publication is batched).
   */
  async sendAlert(alert: Alert): Promise<ThreatListReceipt> {
    const types = this.#list.format === 'TXT' ? GUARDDUTY_TXT_TYPES : undefined;
    const threat = alert.indicators.some(
      (indicator) =>
        indicator.confidence !== undefined &&
        indicator.confidence >= this.#list.minConfidence &&
        (types === undefined || types.includes(indicator.type)),
    );
    if (!threat) {
      return {
        queued: false,
        reason: `no ${types ? 'IP address' : 'indicator'} with confidence at or above ${this.#list.minConfidence}`,
      };
    }
    this.#due = true;
    const at = this.#arm();
    return { queued: true, publishAt: new Date(at).toISOString() };
  }

  /** The cloud knows nothing about an indicator. */
  async enrichIndicator(): Promise<undefined> {
    return undefined;
  }

  /** Sets the timer of the next publication unless one is set or running; returns when it fires. */
  #arm(): number {
    const now = this.#clock.now();
    if (this.#timerAt !== undefined) return this.#timerAt;
    const at = this.#lastAttemptAt === undefined ? now : Math.max(now, this.#lastAttemptAt + this.#list.intervalMs);
    if (this.#publishing || this.#stopped) return Math.max(at, now);
    this.#timerAt = at;
    this.#timer = this.#clock.setTimeout(() => {
      this.#timer = undefined;
      this.#timerAt = undefined;
      this.#publishing = this.#publish().finally(() => {
        this.#publishing = undefined;
        if (this.#due && !this.#stopped) this.#arm();
      });
    }, at - now);
    return at;
  }

  async #publish(): Promise<void> {
    this.#due = false;
    this.#lastAttemptAt = this.#clock.now();
    const { intervalMs: _intervalMs, ...list } = this.#list;
    try {
      const published: PublishedThreatList = await this.cloud.publishThreatList(list);
      this.#lastError = undefined;
      this.#logger.debug(
        { category: 'integration', integration: 'cloud', indicators: published.indicators },
        `threat list "${list.name}" ${published.action}`,
      );
    } catch (error) {
      // Due again: the next alert or the retry publishes the whole list anew.
      this.#due = true;
      this.#lastError = (error as Error).message;
      this.#logger.error(
        { category: 'integration', integration: 'cloud', err: error },
        `threat list "${list.name}" failed to publish; trying again in ${this.#list.intervalMs} ms`,
      );
    }
  }

  #clearTimer(): void {
    if (this.#timer !== undefined) this.#clock.clearTimeout(this.#timer);
    this.#timer = undefined;
    this.#timerAt = undefined;
  }
}

/**
 * The factory `client.start()` calls for `integrations.cloud` (core imports it from `@threatlib/cloud`): the
 * threats the client concludes, kept as a GuardDuty threat list in S3.
 *
 * @example
 * ```ts
 * const client = new ThreatClient({
 *   sources: ['feed_urls'],
 *   integrations: {
 *     cloud: {
 *       region: 'us-east-1',
 *       credentials: { accessKeyId: process.env.AWS_ACCESS_KEY_ID!, secretAccessKey: process.env.AWS_SECRET_ACCESS_KEY! },
 *       threatList: { bucket: 'my-threat-lists', key: 'threatlib/threats.txt', name: 'threatlib', minConfidence: 80 },
 *     },
 *   },
 * });
 * await client.start();
 * ```
 *
 * @throws {ConfigurationError} `Configuration invalid: integrations.cloud.<option>: ...` naming each problem.
 */
export const createCloudIntegration: IntegrationFactory<CloudThreatListOptions, CloudThreatListIntegration> = (
  options,
  context,
) => new CloudThreatListIntegration(options, context);
