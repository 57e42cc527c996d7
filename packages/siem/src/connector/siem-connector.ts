import {
  type Alert,
  type AlertInput,
  type CaseInput,
  CaseSchema,
  ConfigurationError,
  type EnrichedIndicator,
  type IndicatorRef,
  IndicatorRefSchema,
  type Logger,
  parseRecord,
  silentLogger,
  ThreatlibError,
  ValidationError,
} from '@threatlib/core';
import {
  type Clock,
  checkEndpoint,
  INSPECT_CUSTOM,
  type InspectFunction,
  type InspectOptions,
  inspectView,
  isNormalisedAlert,
  normaliseAlert,
  REDACTED,
  retryDelay,
  systemClock,
} from '@threatlib/core/integration';
import type {
  ConnectionReport,
  DeliveryReceipt,
  PlatformCall,
  PlatformDefinition,
  SiemPlatform,
} from '../platforms/platform.js';
import type { PlatformId } from '../platforms/platform-id.js';
import { PLATFORMS } from '../platforms/platforms.js';
import { batchesOf, jsonBytes } from './alert-batches.js';
import { type BatchOutcome, describeOutcomes } from './batch-outcome.js';
import { siemErrors } from './call-errors.js';
import {
  type CommonSiemOptions,
  parseConnectorOptions,
  type ResolvedCommonOptions,
  readPlatform,
  type SiemConnectorOptions,
} from './connector-options.js';
import { SecretScrubber } from './secret-scrubber.js';
import { SiemError, type SiemOperation } from './siem-error.js';
import { SiemHttp } from './siem-http.js';
import { SiemRequestError } from './siem-request-error.js';
import { SiemTimeoutError } from './siem-timeout-error.js';

/** What a connector is made with besides its options: the client's, when a client builds it. */
export interface SiemConnectorRuntime {
  logger?: Logger;
  /** For timeouts and the waits between retries (default: the system clock). */
  clock?: Clock;
  /** The client's `security.enforceHttps`: plain HTTP is allowed when it is false. */
  enforceHttps?: boolean;
  /** Defaults of `retryDelay` and `backoffMultiplier` (the client's `performance`). */
  retryDelay?: number;
  backoffMultiplier?: number;
  /** Where the options sit in a configuration (`integrations.siem`), for error paths. */
  optionsPath?: string;
  /** For the backoff's jitter. */
  random?: () => number;
}

/** Options of one call. */
export interface SiemCallOptions {
  /** Aborting it ends the attempt under way and the retries. */
  signal?: AbortSignal;
  /** Retries for this call instead of the connector's `retries` (the client's delivery passes 0: it retries itself). */
  retries?: number;
}

/** Options of `createCase`: the call's, and what a platform may attach the case to. */
export interface CreateCaseOptions extends SiemCallOptions {
  /**
   * `siem_b` (QRadar) only: the offense to add the case to as a note (QRadar has no call that creates an offense).
   * Refused by the other platforms.
   */
  offenseId?: number;
}

/**
 * Sends alerts, opens cases and enriches indicators in a SIEM: `siem_a` Splunk, `siem_b` QRadar, `siem_c` Elastic,
 * `siem_d` Microsoft Sentinel, `siem_e` Google SecOps (beta). Each call gets `timeout` ms per attempt and up to
 * `retries` retries of failures worth retrying (network errors, timeouts, 429 and 5xx, honouring `Retry-After`);
 * an authentication failure is never retried and rejects with `SiemAuthenticationError`, whose message is
 * `authentication failed: <the SIEM's reason>`. No error message ever holds a credential.
 *
 * HTTPS by default; `protocol: 'http'` only with `enforceHttps: false` (or a client whose `security.enforceHttps`
 * is false). Connections are pooled on the connector's own undici agent, which `stop()` closes.
 *
 * @example
 * ```ts
 * const siem = new SIEMConnector({
 *   platform: 'siem_a',
 *   host: 'splunk.example.com',
 *   port: 8089,
 *   credentials: { username: 'svc-threatlib', password: process.env.SPLUNK_PASSWORD },
 *   hec: { token: process.env.SPLUNK_HEC_TOKEN },
 *   timeout: 30000,
 *   retries: 3,
 * });
 * await siem.testConnection();
 * await siem.sendAlert({ title: 'Malicious IP', severity: 'high', description: 'C2 traffic',
 *   indicators: [{ type: 'ip', value: '198.51.100.7', confidence: 90 }], timestamp: new Date().toISOString() });
 * const enriched = await siem.enrichIndicator({ type: 'ip', value: '198.51.100.7' });
 * await siem.stop();
 * ```
 *
 * @throws {ConfigurationError} from the constructor: `Configuration invalid: <option>: <reason>` for each problem.
 * @throws {InsecureEndpointError} from the constructor: `protocol: 'http'` while HTTPS is enforced.
 */
export class SIEMConnector {
  /** The platform identifier (`siem_a`). */
  readonly platform: PlatformId;
  /** The product's name (`Splunk`). */
  readonly vendor: string;
  /** Ms each attempt may take. */
  readonly timeout: number;
  /** Retries after a failed attempt, for failures worth retrying. */
  readonly retries: number;
  /** `host:port`. */
  readonly address: string;
  // biome-ignore lint/suspicious/noExplicitAny: each platform has its own SDK; the definition loads it and takes it back.
  readonly #definition: PlatformDefinition<any, any>;
  /** What the definition's `loadSdk` loaded for these options (the vendor's SDK), for `create`. */
  readonly #sdk: unknown;
  readonly #options: ResolvedCommonOptions & Record<string, unknown>;
  readonly #scrubber: SecretScrubber;
  readonly #logger: Logger;
  readonly #clock: Clock;
  readonly #random: () => number;
  #http: SiemHttp | undefined;
  #platform: SiemPlatform | undefined;

  constructor(options: SiemConnectorOptions, runtime: SiemConnectorRuntime = {}) {
    const where = runtime.optionsPath ?? '';
    const id = readPlatform(options, where);
    const definition = PLATFORMS[id];
    if (!definition) {
      throw new ConfigurationError([
        {
          path: where ? `${where}.platform` : 'platform',
          message: `${id} is not implemented by this version of @threatlib/siem (available: ${Object.keys(PLATFORMS).join(', ') || 'none'})`,
        },
      ]);
    }
    const parsed = parseConnectorOptions(options, definition.optionsShape, where) as CommonSiemOptions &
      Record<string, unknown>;
    const resolved: ResolvedCommonOptions & Record<string, unknown> = {
      ...parsed,
      port: parsed.port ?? definition.defaultPort,
      retryDelay: parsed.retryDelay ?? runtime.retryDelay ?? 1000,
      backoffMultiplier: parsed.backoffMultiplier ?? runtime.backoffMultiplier ?? 2,
    };
    const problems = definition.validate?.(resolved) ?? [];
    if (problems.length > 0) {
      throw new ConfigurationError(
        problems.map((issue) => ({ path: where ? `${where}.${issue.path}` : issue.path, message: issue.message })),
      );
    }
    const enforceHttps = parsed.enforceHttps ?? runtime.enforceHttps ?? true;
    checkEndpoint(
      `${resolved.protocol}://${hostForUrl(resolved.host)}:${resolved.port}/`,
      `${where || 'siem'} ${id} endpoint`,
      {
        enforceHttps,
      },
    );
    // Last, once the options are known to be right: the vendor SDK these options need, if any.
    const sdk = definition.loadSdk?.(resolved, (option) => (where ? `${where}.${option}` : option));
    this.platform = id;
    this.vendor = definition.vendor;
    this.timeout = resolved.timeout;
    this.retries = resolved.retries;
    this.address = `${resolved.host}:${resolved.port}`;
    this.#definition = definition;
    this.#sdk = sdk;
    this.#options = resolved;
    const credentials = resolved.credentials;
    this.#scrubber = new SecretScrubber([
      'password' in credentials ? credentials.password : credentials.token,
      'password' in credentials ? `${credentials.username}:${credentials.password}` : undefined,
      ...(definition.secretsOf?.(resolved) ?? []),
    ]);
    this.#logger = runtime.logger ?? silentLogger;
    this.#clock = runtime.clock ?? systemClock;
    this.#random = runtime.random ?? Math.random;
  }

  /**
   * Delivers one alert (either documented form: with `indicators`, or the webhook handler's `indicator` +
   * `correlation`). An alert record core made (`isNormalisedAlert`: what the client delivers, what
   * `client.alerts.add` returns) is sent as it is; anything else is validated first.
   */
  async sendAlert(alert: AlertInput, options: SiemCallOptions = {}): Promise<DeliveryReceipt> {
    const normalised = isNormalisedAlert(alert) ? alert : normaliseAlert(alert, new Date(this.#clock.now()));
    return this.#call('sendAlert', options, (platform, call) => platform.sendAlerts([normalised], call));
  }

  /**
   * Delivers many alerts in batches within the platform's limits (and `batchSize`), up to `batchConcurrency`
   * requests in flight (Splunk and Elastic: 4; the others one after the other), batches started in order; each
   * batch is retried on its own. Every alert is validated before anything is sent, except the records core made
   * (`isNormalisedAlert`), which are deeply frozen and so still valid.
   *
   * When a batch fails for good, no further batch starts, the batches in flight finish, and the call rejects with
   * the error of the first batch that failed, its message ending with what happened to the others and its
   * `batches` listing each batch's outcome (`delivered`, `failed` or `not sent`) and the positions of its alerts:
   * the alerts of the `delivered` ones are in the SIEM, those of the others are to be sent again. Aborting
   * `options.signal` rejects with its reason.
   */
  async sendAlerts(alerts: readonly AlertInput[], options: SiemCallOptions = {}): Promise<DeliveryReceipt> {
    const now = new Date(this.#clock.now());
    const normalised = alerts.map((alert, index) => {
      if (isNormalisedAlert(alert)) return alert;
      try {
        return normaliseAlert(alert, now);
      } catch (error) {
        if (ThreatlibError.isInstance(error)) error.message = `alerts[${index}]: ${error.message}`;
        throw error;
      }
    });
    const platform = this.#ensurePlatform();
    const limits = platform.limits;
    const maxBatchAlerts = Math.min(limits.maxBatchAlerts, this.#options.batchSize ?? Number.POSITIVE_INFINITY);
    // Each alert's text as the platform sends it, when it can say: batches are then weighed on what is sent, and no
    // alert is serialised twice (else each alert's JSON is weighed). Made a batch's worth at a time as batches are
    // taken, so that the first requests are on their way while the next batches are made.
    const encode = platform.encodeAlerts?.bind(platform);
    const texts: string[] = [];
    const textOf = (position: number): string => {
      while (encode && texts.length <= position) {
        for (const text of encode(normalised.slice(texts.length, texts.length + maxBatchAlerts))) texts.push(text);
      }
      return texts[position] as string;
    };
    const batches = batchesOf(
      normalised.keys(),
      { maxBatchAlerts, maxBatchBytes: limits.maxBatchBytes },
      encode
        ? (position) => Buffer.byteLength(textOf(position))
        : (position) => jsonBytes(normalised[position] as Alert),
    );
    const outcomes: BatchOutcome[] = [];
    const failures: unknown[] = [];
    const outcomeOf = (positions: readonly number[]): BatchOutcome => ({
      batch: outcomes.length + 1,
      first: positions[0] as number,
      last: positions.at(-1) as number,
      status: 'not sent',
    });
    // Each lane sends the next batch, until none is left or one has failed for good.
    const lane = async () => {
      while (failures.length === 0) {
        const next = batches.next();
        if (next.done) return;
        const positions = next.value;
        const outcome = outcomeOf(positions);
        outcomes.push(outcome);
        const batch = positions.map((position) => normalised[position] as Alert);
        const encoded = encode && positions.map(textOf);
        try {
          const receipt = await this.#call('sendAlert', options, (p, call) => p.sendAlerts(batch, call, encoded));
          outcome.status = 'delivered';
          outcome.accepted = receipt.accepted;
        } catch (error) {
          outcome.status = 'failed';
          outcome.error = error instanceof Error ? error.message : String(error);
          failures[outcome.batch - 1] = error;
        }
      }
    };
    const concurrency = Math.min(
      this.#options.batchConcurrency ?? Number.POSITIVE_INFINITY,
      limits.concurrentBatches ?? 1,
    );
    await Promise.all(Array.from({ length: concurrency }, lane));
    if (failures.length > 0) {
      // The caller gave up: its reason, as from any call.
      if (options.signal?.aborted) throw options.signal.reason;
      // The batches never started, to say which alerts they hold.
      for (const positions of batches) outcomes.push(outcomeOf(positions));
      const first = failures.find((error) => error !== undefined);
      if (SiemError.isInstance(first)) {
        first.message = `${first.message} (sendAlerts: ${describeOutcomes(outcomes)})`;
        first.batches = outcomes;
      }
      throw first;
    }
    const accepted = outcomes.reduce((sum, outcome) => sum + (outcome.accepted ?? 0), 0);
    return { platform: this.platform, accepted, batches: outcomes.length };
  }

  /**
   * Opens a case (`{title, description, priority, assignee, indicators}`) and resolves with the SIEM's id for it.
   * `options.offenseId` (QRadar only) adds it to that offense as a note.
   */
  async createCase(input: CaseInput, options: CreateCaseOptions = {}): Promise<string> {
    const parsed = parseRecord(CaseSchema, input, 'case');
    const { offenseId } = options;
    if (offenseId !== undefined) {
      if (!Number.isSafeInteger(offenseId) || offenseId < 0) {
        throw new ValidationError('case options', [
          { path: 'offenseId', message: 'expected an offense id (a whole number)' },
        ]);
      }
      if (!this.#definition.caseOptions?.includes('offenseId')) {
        throw new ValidationError('case options', [
          {
            path: 'offenseId',
            message: `${this.vendor} (${this.platform}) has no offenses; only siem_b (QRadar) takes it`,
          },
        ]);
      }
    }
    const extras = offenseId === undefined ? {} : { offenseId };
    return this.#call('createCase', options, (platform, call) => platform.createCase(parsed, call, extras));
  }

  /** What the SIEM has seen of `{type, value}`: `{indicator, firstSeen, lastSeen, associatedEvents, riskScore}`. */
  async enrichIndicator(indicator: IndicatorRef, options: SiemCallOptions = {}): Promise<EnrichedIndicator> {
    const parsed = parseRecord(IndicatorRefSchema, indicator, 'indicator');
    return this.#call('enrichIndicator', options, (platform, call) => platform.enrichIndicator(parsed, call));
  }

  /**
   * Checks that the SIEM answers and accepts the credentials. Rejects with `SiemAuthenticationError`
   * (`authentication failed: <the SIEM's reason>`) or `SiemUnreachableError` (`... unreachable: ...`).
   */
  async testConnection(options: SiemCallOptions = {}): Promise<ConnectionReport> {
    return this.#call('testConnection', options, (platform, call) => platform.testConnection(call));
  }

  /** Closes every connection; a later call opens new ones. */
  async stop(): Promise<void> {
    const platform = this.#platform;
    const http = this.#http;
    this.#platform = undefined;
    this.#http = undefined;
    await platform?.close?.();
    await http?.close();
  }

  /**
   * What `JSON.stringify` writes of the connector: platform, vendor, address, protocol, timeout and retries, with
   * `credentials: '[redacted]'` (the credentials, and any token the platform handed out, stay in the connector).
   */
  toJSON(): Record<string, unknown> {
    const { platform, vendor, address, timeout, retries } = this;
    return { platform, vendor, address, protocol: this.#options.protocol, timeout, retries, credentials: REDACTED };
  }

  /** What `util.inspect` and `console.log` show of the connector: {@link toJSON}'s view. */
  [INSPECT_CUSTOM](depth: number, options: InspectOptions, inspect: InspectFunction): string {
    return inspectView('SIEMConnector', this.toJSON(), depth, options, inspect);
  }

  #ensurePlatform(): SiemPlatform {
    if (!this.#platform) {
      this.#http = new SiemHttp(this.#options);
      this.#platform = this.#definition.create(
        {
          options: this.#options,
          http: this.#http,
          secrets: this.#scrubber.secrets,
          logger: this.#logger,
          clock: this.#clock,
        },
        this.#sdk,
      );
    }
    return this.#platform;
  }

  async #call<T>(
    operation: SiemOperation,
    options: SiemCallOptions,
    attempt: (platform: SiemPlatform, call: PlatformCall) => Promise<T>,
  ): Promise<T> {
    const retries = options.retries ?? this.retries;
    const outer = options.signal;
    const errors = siemErrors({
      platform: this.platform,
      vendor: this.vendor,
      operation,
      address: this.address,
      scrub: (text) => this.#scrubber.scrub(text),
    });
    for (let n = 1; ; n++) {
      outer?.throwIfAborted();
      const platform = this.#ensurePlatform();
      const controller = new AbortController();
      const timedOut = new SiemTimeoutError(this.address, this.timeout, { platform: this.platform, operation });
      const timer = this.#clock.setTimeout(() => controller.abort(timedOut), this.timeout);
      const onOuterAbort = () => controller.abort(outer?.reason);
      outer?.addEventListener('abort', onOuterAbort, { once: true });
      let failure: SiemError;
      try {
        return await attempt(platform, { operation, signal: controller.signal, attempt: n, errors });
      } catch (error) {
        if (outer?.aborted) throw outer.reason;
        failure =
          controller.signal.aborted && controller.signal.reason === timedOut
            ? timedOut
            : this.#asSiemError(error, operation);
      } finally {
        this.#clock.clearTimeout(timer);
        outer?.removeEventListener('abort', onOuterAbort);
      }
      failure.attempts = n;
      const wait = Math.max(
        failure.retryAfterMs ?? 0,
        retryDelay(
          n,
          {
            retryAttempts: this.retries,
            retryDelay: this.#options.retryDelay,
            backoffMultiplier: this.#options.backoffMultiplier,
          },
          this.#random,
        ),
      );
      const waitTooLong = failure.retryAfterMs !== undefined && failure.retryAfterMs > this.#options.maxRetryAfter;
      if (!failure.isRetryable || n > retries || waitTooLong) {
        if (n > 1) failure.message = `${failure.message} (after ${n} attempts)`;
        this.#logger.warn({ platform: this.platform, operation, code: failure.code, attempts: n }, failure.message);
        throw failure;
      }
      this.#logger.debug(
        { platform: this.platform, operation, code: failure.code, attempt: n, waitMs: wait },
        failure.message,
      );
      await this.#wait(wait, outer);
    }
  }

  /** A platform's failure as a `SiemError`: itself when it is one, else a non-retryable request error naming it. */
  #asSiemError(error: unknown, operation: SiemOperation): SiemError {
    if (SiemError.isInstance(error)) return error;
    // A foreign error (an SDK's) may hold request details: only its name and scrubbed message are kept, not itself.
    const name = error instanceof Error ? error.name : 'Error';
    const message = error instanceof Error ? error.message : String(error);
    return new SiemRequestError(this.#scrubber.scrub(`${this.vendor} ${operation}: ${name}: ${message}`), {
      platform: this.platform,
      operation,
      isRetryable: false,
    });
  }

  #wait(ms: number, signal: AbortSignal | undefined): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      const onAbort = () => {
        this.#clock.clearTimeout(timer);
        reject(signal?.reason);
      };
      const timer = this.#clock.setTimeout(() => {
        signal?.removeEventListener('abort', onAbort);
        resolve();
      }, ms);
      signal?.addEventListener('abort', onAbort, { once: true });
    });
  }
}

function hostForUrl(host: string): string {
  return host.includes(':') && !host.startsWith('[') ? `[${host}]` : host;
}
