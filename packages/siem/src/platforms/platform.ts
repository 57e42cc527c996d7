import type { Alert, Case, ConfigurationIssue, EnrichedIndicator, IndicatorRecord, Logger } from '@threatlib/core';
import type { Clock } from '@threatlib/core/integration';
import type { z } from 'zod';
import type { SiemErrors } from '../connector/call-errors.js';
import type { ResolvedCommonOptions } from '../connector/connector-options.js';
import type { SiemOperation } from '../connector/siem-error.js';
import type { SiemHttp } from '../connector/siem-http.js';
import type { PlatformId } from './platform-id.js';

/**
 * The contract between `SIEMConnector` and one platform. The connector owns everything common: options (the common
 * ones validated with the platform's `optionsShape`), the HTTPS policy and TLS, the timeout of each attempt, retries
 * (only errors whose `isRetryable` is true, waiting for `retryAfterMs` when the SIEM asked), batching of alerts to
 * `limits`, and scrubbing every secret from error messages. A platform speaks its vendor's API, one attempt per
 * call, and maps every answer that is not a success to a `SiemError` subclass made with `settings.errors`:
 *
 * - refused credentials → `errors.authentication(reason)` (never retried);
 * - no connection → `SiemUnreachableError` (`settings.http` does it; an SDK's network errors go through
 *   `errors.fromNetwork`);
 * - anything else → `errors.request(message, {statusCode, siemCode, isRetryable, retryAfterMs})`.
 *
 * A platform never retries by itself and never puts a secret into an error (the connector scrubs the ones it knows,
 * but a platform that derives one, such as an OAuth access token, lists it with `settings.secrets.add`).
 */
export interface SiemPlatform {
  /** What one request may carry; the connector splits `sendAlerts` into batches within them. */
  readonly limits: PlatformLimits;
  /**
   * Each alert's text in a request body that is the alerts' texts one after the other (a HEC event's JSON, a bulk
   * action and its document): one string per alert, in order. The connector weighs batches on these texts, so that
   * `limits.maxBatchBytes` bounds what is sent, and hands each batch's texts to `sendAlerts`, so that no alert is
   * serialised twice. Without it the connector weighs each alert's JSON.
   */
  encodeAlerts?(alerts: readonly Alert[]): string[];
  /**
   * Delivers a batch of alerts (at most `limits.maxBatchAlerts`, about `limits.maxBatchBytes`) in as few requests as
   * the API allows, all-or-nothing where the API is; resolves with what the SIEM acknowledged. `encoded`, when the
   * platform has `encodeAlerts`, is what it made of this batch (the same for every attempt).
   */
  sendAlerts(batch: readonly Alert[], call: PlatformCall, encoded?: readonly string[]): Promise<DeliveryReceipt>;
  /**
   * Opens a case (or the platform's nearest thing, documented in the README) and resolves with the SIEM's id for it.
   * `options` holds only what the definition's `caseOptions` lists (the connector refuses the rest).
   */
  createCase(input: Case, call: PlatformCall, options?: CaseOptions): Promise<string>;
  /**
   * What the SIEM has seen of an indicator: first and last time, how many events, a risk score. An indicator the SIEM
   * never saw resolves with `associatedEvents: 0`, `riskScore: 0` and both times set to the time of the search.
   */
  enrichIndicator(indicator: IndicatorRecord, call: PlatformCall): Promise<EnrichedIndicator>;
  /**
   * Checks that the SIEM answers and accepts the credentials, with the cheapest authenticated calls the API has.
   * Rejects with `SiemAuthenticationError` (the SIEM's reason) or `SiemUnreachableError`.
   */
  testConnection(call: PlatformCall): Promise<ConnectionReport>;
  /** Releases what the platform holds besides the connector's HTTP agent (an SDK client). */
  close?(): Promise<void>;
}

/** What `createCase` may carry besides the case, for the platforms that take it. */
export interface CaseOptions {
  /** siem_b (QRadar): the offense to add the case to as a note. */
  offenseId?: number;
}

/** What one request to the platform may carry. */
export interface PlatformLimits {
  /** Most alerts in one `sendAlerts` call. */
  maxBatchAlerts: number;
  /** Most bytes of alerts in one `sendAlerts` call: of their texts (`encodeAlerts`), else of their JSON. */
  maxBatchBytes: number;
  /**
   * Most `sendAlerts` calls the connector makes at once for one volume of alerts (default 1: one after the other):
   * more only where the API takes concurrent requests and the platform's own state (a token, an index it creates)
   * bears them.
   */
  concurrentBatches?: number;
}

/** One attempt of one connector call. */
export interface PlatformCall {
  readonly operation: SiemOperation;
  /** Aborts when the attempt's `timeout` has elapsed or the caller gave up: pass it to every request. */
  readonly signal: AbortSignal;
  /** 1 for the first attempt. */
  readonly attempt: number;
  /** Makers of the connector's errors, with the platform and this operation filled in. */
  readonly errors: SiemErrors;
}

/** What the SIEM acknowledged for a batch (kept on the alert's delivery record by the client: JSON only, no secret). */
export interface DeliveryReceipt {
  /** How many alerts it accepted. */
  accepted: number;
  /** The platform, so a delivery record says where the alert went. */
  platform: PlatformId;
  [detail: string]: unknown;
}

/** What `testConnection` resolves with. */
export interface ConnectionReport {
  platform: PlatformId;
  /** The SIEM's version or build, when the API tells it. */
  version?: string;
  /** Each check made, with what it found (`collector: HEC is healthy`). */
  checks: Record<string, string>;
}

/** What a platform is made with. */
export interface PlatformSettings<Options> {
  /** The connector's options: the common ones resolved, and the platform's own as its `optionsShape` parsed them. */
  readonly options: ResolvedCommonOptions & Options;
  /** Requests over the connector's undici agent (its TLS options), to `options.host:options.port` by default. */
  readonly http: SiemHttp;
  /** Values never to show in an error or a log line; add any the platform derives (an access token). */
  readonly secrets: Set<string>;
  readonly logger: Logger;
  readonly clock: Clock;
}

/**
 * One platform as the connector knows it before choosing: its identity, its own options and how to make it.
 *
 * @example
 * ```ts
 * export const splunk: PlatformDefinition<typeof SPLUNK_OPTIONS> = {
 *   id: 'siem_a', vendor: 'Splunk', status: 'production', defaultPort: 8089,
 *   optionsShape: SPLUNK_OPTIONS,
 *   secretsOf: (options) => [options.hec?.token],
 *   create: (settings) => new SplunkPlatform(settings),
 * };
 * ```
 */
export interface PlatformDefinition<Shape extends z.core.$ZodLooseShape = z.core.$ZodLooseShape, Sdk = undefined> {
  readonly id: PlatformId;
  /** The product's name, for messages (`Splunk`). */
  readonly vendor: string;
  readonly status: 'production' | 'beta';
  /** `port` when the options leave it out. */
  readonly defaultPort: number;
  /** The platform's own options (validated with the common ones, unknown keys refused). */
  readonly optionsShape: Shape;
  /**
   * Checks that need the common options and the platform's together (a token required by one credential form),
   * run by the connector's constructor; paths are relative to the options (`hec.token`).
   */
  validate?(options: ResolvedCommonOptions & z.output<z.ZodObject<Shape>>): ConfigurationIssue[];
  /** The `createCase` options the platform takes (`offenseId`); the connector refuses the others. */
  readonly caseOptions?: readonly (keyof CaseOptions)[];
  /** Secrets among the platform's own options (the connector already knows `credentials`). */
  secretsOf?(options: z.output<z.ZodObject<Shape>>): ReadonlyArray<string | undefined>;
  /**
   * Loads the vendor SDKs these options need (optional peer dependencies of `@threatlib/siem`, with
   * `loadOptionalPeers`), when the connector is constructed: importing the package loads none, and a missing one is
   * a `ConfigurationError` naming what to install. `at(option)` is the option's path in the caller's configuration.
   * What it returns is handed to `create`.
   */
  loadSdk?(options: ResolvedCommonOptions & z.output<z.ZodObject<Shape>>, at: (option: string) => string): Sdk;
  create(settings: PlatformSettings<z.output<z.ZodObject<Shape>>>, sdk: Sdk): SiemPlatform;
}
