import { type IndicatorType, type Logger, parseRecord, silentLogger, ValidationError } from '@threatlib/core';
import {
  type Clock,
  INSPECT_CUSTOM,
  type InspectFunction,
  type InspectOptions,
  inspectView,
  REDACTED,
  redactedView,
  systemClock,
} from '@threatlib/core/integration';
import { CloudError } from '../errors/cloud-error.js';
import { loadAwsSdk } from './aws-sdk.js';
import {
  type CloudIntegrationOptions,
  CloudIntegrationOptionsSchema,
  parseOptions,
  type ResolvedCloudIntegrationOptions,
} from './cloud-options.js';
import { GuardDutyApi } from './guardduty-api.js';
import {
  type PublishThreatListOptions,
  PublishThreatListOptionsSchema,
  type ResolvedPublishOptions,
  s3Location,
} from './publish-options.js';
import { S3Api } from './s3-api.js';
import { renderStixThreatList } from './stix-threat-list.js';
import type { ThreatIndicator, ThreatIndicatorSource } from './threat-indicators.js';
import { type RenderedThreatList, renderTxtThreatList, type ThreatListFormat } from './threat-list.js';

/** What `CloudIntegration` is given besides its options (the client gives it these when it builds the integration). */
export interface CloudIntegrationRuntime {
  logger?: Logger;
  /** For the schedules of `publishThreatList`. Default the real clock. */
  clock?: Clock;
  /** Where `publishThreatList` reads the current threat indicators; without it, `publishThreatList` needs `indicators`. */
  indicators?: ThreatIndicatorSource;
  /** Where the options sit in a configuration (`integrations.cloud`), for error paths. */
  optionsPath?: string;
  /** Refuses an endpoint the client's security options forbid (plain HTTP while HTTPS is enforced). */
  checkEndpoint?: (url: string, what: string) => URL;
}

/** What one `publishThreatList` did. */
export interface PublishedThreatList {
  bucket: string;
  key: string;
  /** The URL the GuardDuty set points at. */
  location: string;
  format: ThreatListFormat;
  detectorId: string;
  threatIntelSetId: string;
  /** Whether the set was created now or an existing one of that name was updated. */
  action: 'created' | 'updated';
  /** How many indicators the list holds. */
  indicators: number;
  /** Indicators of a type the format cannot carry, by type (`{domain: 3}`). */
  skipped: Partial<Record<IndicatorType, number>>;
  /** Indicators left out because the list was full (250,000 entries); the least confident go. */
  truncated: number;
  /** S3's ETag of the object written. */
  etag?: string;
  /** S3's version of the object written, when the bucket is versioned. */
  versionId?: string;
  /** ISO 8601. */
  publishedAt: string;
}

interface Schedule {
  options: ResolvedPublishOptions;
  timer: unknown;
}

/**
 * AWS for threatlib: GuardDuty threat-intel sets and S3 through the official SDK clients (`guardDuty`, `s3`), and
 * the job they are for, `publishThreatList`: the current threat indicators written to S3 as a threat list that a
 * GuardDuty threat-intel set points at, so GuardDuty raises findings on traffic to them.
 *
 * Every AWS failure rejects with a `CloudError` naming the service call and AWS's reason (`GuardDuty
 * CreateThreatIntelSet failed: AccessDeniedException (HTTP 403): ...`); the secret key never appears in a message.
 *
 * @example
 * ```ts
 * const cloud = new CloudIntegration({
 *   region: 'us-east-1',
 *   credentials: { accessKeyId: process.env.AWS_ACCESS_KEY_ID!, secretAccessKey: process.env.AWS_SECRET_ACCESS_KEY! },
 * });
 * await cloud.s3.putObject({ Bucket: 'my-threat-lists', Key: 'threats.txt', Body: '198.51.100.7\n' });
 * await cloud.guardDuty.createThreatIntelSet({
 *   name: 'threatlib', format: 'TXT', location: 'https://s3.amazonaws.com/my-threat-lists/threats.txt', activate: true,
 * });
 * ```
 *
 * @throws {ConfigurationError} from the constructor: `Configuration invalid: <option>: <reason>` for each problem.
 */
export class CloudIntegration {
  /** GuardDuty's threat-intel sets. */
  readonly guardDuty: GuardDutyApi;
  /** S3. */
  readonly s3: S3Api;
  readonly region: string;
  readonly #options: ResolvedCloudIntegrationOptions;
  readonly #logger: Logger;
  readonly #clock: Clock;
  readonly #indicators: ThreatIndicatorSource | undefined;
  readonly #schedules = new Map<string, Schedule>();
  /** Publications run one at a time: two at once could both create a set of the same name. */
  #queue: Promise<unknown> = Promise.resolve();
  #stopped = false;
  #last: PublishedThreatList | undefined;

  constructor(options: CloudIntegrationOptions, runtime: CloudIntegrationRuntime = {}) {
    const where = runtime.optionsPath ?? '';
    this.#options = parseOptions(CloudIntegrationOptionsSchema, options, where);
    const { region, credentials, endpoint, forcePathStyle, maxAttempts, requestTimeout } = this.#options;
    const at = (name: string) => (where ? `${where}.${name}` : name);
    const s3Endpoint = this.#options.s3Endpoint ?? endpoint;
    const guardDutyEndpoint = this.#options.guardDutyEndpoint ?? endpoint;
    if (runtime.checkEndpoint) {
      if (s3Endpoint) runtime.checkEndpoint(s3Endpoint, at(this.#options.s3Endpoint ? 's3Endpoint' : 'endpoint'));
      if (guardDutyEndpoint) {
        runtime.checkEndpoint(
          guardDutyEndpoint,
          at(this.#options.guardDutyEndpoint ? 'guardDutyEndpoint' : 'endpoint'),
        );
      }
    }
    const sdk = loadAwsSdk(where);
    this.region = region;
    this.#logger = runtime.logger ?? silentLogger;
    this.#clock = runtime.clock ?? systemClock;
    this.#indicators = runtime.indicators;
    const common = {
      region,
      maxAttempts,
      requestHandler: { requestTimeout, connectionTimeout: Math.min(requestTimeout, 10_000) },
      ...(credentials ? { credentials } : {}),
    };
    const secrets = credentials
      ? [credentials.secretAccessKey, ...(credentials.sessionToken ? [credentials.sessionToken] : [])]
      : [];
    this.guardDuty = new GuardDutyApi(
      new sdk.guardDuty.GuardDutyClient({ ...common, ...(guardDutyEndpoint ? { endpoint: guardDutyEndpoint } : {}) }),
      { detectorId: this.#options.detectorId, secrets },
    );
    this.s3 = new S3Api(
      new sdk.s3.S3Client({ ...common, forcePathStyle, ...(s3Endpoint ? { endpoint: s3Endpoint } : {}) }),
      {
        secrets,
      },
    );
  }

  /** The last successful publication, if any. */
  get lastPublication(): PublishedThreatList | undefined {
    return this.#last;
  }

  /**
   * What `JSON.stringify` writes of the integration: its Region, endpoints, detector and last publication, with
   * `credentials: '[redacted]'` when it was given keys (they stay in the SDK clients).
   */
  toJSON(): Record<string, unknown> {
    const { region, credentials, endpoint, s3Endpoint, guardDutyEndpoint, detectorId } = this.#options;
    // An endpoint URL could carry a user and password: shown without them.
    return redactedView({
      region,
      ...(endpoint ? { endpoint } : {}),
      ...(s3Endpoint ? { s3Endpoint } : {}),
      ...(guardDutyEndpoint ? { guardDutyEndpoint } : {}),
      ...(detectorId ? { detectorId } : {}),
      ...(credentials ? { credentials: REDACTED } : {}),
      ...(this.#last ? { lastPublication: this.#last } : {}),
    });
  }

  /** What `util.inspect` and `console.log` show of the integration: {@link toJSON}'s view. */
  [INSPECT_CUSTOM](depth: number, options: InspectOptions, inspect: InspectFunction): string {
    return inspectView('CloudIntegration', this.toJSON(), depth, options, inspect);
  }

  /**
   * Publishes the current threat indicators as a GuardDuty threat list: renders those at or above `minConfidence`
   * (TXT: IP addresses only, the other types skipped and counted; STIX: a STIX 2.1 bundle), writes them to
   * `s3://<bucket>/<key>` (`PutObject`), then points the GuardDuty threat-intel set named `name` at the object and
   * activates it (`UpdateThreatIntelSet`), creating the set only when the detector has none of that name
   * (`ListThreatIntelSets`, `GetThreatIntelSet`, `CreateThreatIntelSet`): publishing again never makes a second set.
   * With `schedule: {intervalMs}` it publishes now and then every `intervalMs` until `stop()`.
   *
   * @example
   * ```ts
   * const published = await cloud.publishThreatList({
   *   bucket: 'my-threat-lists', key: 'threatlib/threats.txt', name: 'threatlib', format: 'TXT', minConfidence: 80,
   * });
   * // { action: 'created', indicators: 42, skipped: { domain: 7 }, threatIntelSetId: '...', ... }
   * ```
   *
   * @throws {ValidationError} `Invalid threat list options: <field>: <reason>` before anything is sent; and
   *   `Invalid threat list: indicators[<i>]: Invalid indicator "<value>": <reason>` when the source gave a value that
   *   is not exactly one indicator of its type (`198.51.100.7\n0.0.0.0/0`, a CIDR range, an unknown type): each
   *   value is checked where it is written, the whole list is refused and nothing is uploaded, so GuardDuty keeps
   *   reading the last good list.
   * @throws {CloudError} naming the AWS call that failed (`S3 PutObject`, `GuardDuty UpdateThreatIntelSet`...) and why.
   */
  async publishThreatList(
    options: PublishThreatListOptions & { indicators?: ThreatIndicatorSource },
  ): Promise<PublishedThreatList> {
    const { indicators, ...rest } = options ?? ({} as PublishThreatListOptions);
    const resolved = parseRecord(PublishThreatListOptionsSchema, rest, 'threat list options');
    const source = indicators ?? this.#indicators;
    if (source === undefined) {
      throw new ValidationError('threat list options', [
        {
          path: 'indicators',
          message:
            'required: where the threat indicators come from (alertStoreIndicators(client.alerts)), unless the integration is built by the client from integrations.cloud',
        },
      ]);
    }
    if (this.#stopped) {
      throw new CloudError('guardduty', 'PublishThreatList', 'this CloudIntegration was stopped');
    }
    const published = await this.#enqueue(() => this.#publish(resolved, source));
    if (resolved.schedule) this.#schedule(resolved, source);
    return published;
  }

  /** Stops the schedules and releases the SDK clients' connections; a publication under way finishes first. */
  async stop(): Promise<void> {
    this.#stopped = true;
    for (const schedule of this.#schedules.values()) this.#clock.clearTimeout(schedule.timer);
    this.#schedules.clear();
    await this.#queue.catch(() => undefined);
    this.guardDuty.client.destroy();
    this.s3.client.destroy();
  }

  #enqueue<T>(work: () => Promise<T>): Promise<T> {
    const run = this.#queue.then(work, work);
    this.#queue = run.catch(() => undefined);
    return run;
  }

  async #publish(options: ResolvedPublishOptions, source: ThreatIndicatorSource): Promise<PublishedThreatList> {
    const location = options.location ?? s3Location(options.bucket, options.key);
    if (location.length > 300) {
      throw new CloudError(
        'guardduty',
        'PublishThreatList',
        `the list's location ${location} is ${location.length} characters; GuardDuty takes at most 300: use a shorter bucket name or key`,
      );
    }
    const indicators: ThreatIndicator[] = [];
    for await (const indicator of source.threatIndicators({
      minConfidence: options.minConfidence,
      ...(options.since ? { since: options.since } : {}),
    })) {
      indicators.push(indicator);
    }
    const now = new Date(this.#clock.now());
    const list: RenderedThreatList =
      options.format === 'STIX' ? renderStixThreatList(indicators, now) : renderTxtThreatList(indicators);
    const put = await this.s3.putObject({
      Bucket: options.bucket,
      Key: options.key,
      // Bytes, whose length the SDK knows (an empty string would be taken for a stream of unknown length).
      Body: Buffer.from(list.body, 'utf8'),
      ContentType: list.contentType,
      ...(options.expectedBucketOwner ? { ExpectedBucketOwner: options.expectedBucketOwner } : {}),
    });
    const detectorId = options.detectorId ?? (await this.guardDuty.detectorId());
    const existing = await this.guardDuty.findThreatIntelSet(options.name, detectorId);
    let threatIntelSetId: string;
    if (existing) {
      if (existing.format !== options.format) {
        throw new CloudError(
          'guardduty',
          'UpdateThreatIntelSet',
          `GuardDuty's threat-intel set "${options.name}" (${existing.threatIntelSetId}) reads ${existing.format} and GuardDuty cannot change a set's format: publish ${existing.format}, or use another name`,
        );
      }
      await this.guardDuty.updateThreatIntelSet({
        threatIntelSetId: existing.threatIntelSetId,
        detectorId,
        location,
        activate: options.activate,
        ...(options.expectedBucketOwner ? { expectedBucketOwner: options.expectedBucketOwner } : {}),
      });
      threatIntelSetId = existing.threatIntelSetId;
    } else {
      ({ threatIntelSetId } = await this.guardDuty.createThreatIntelSet({
        name: options.name,
        format: options.format,
        location,
        activate: options.activate,
        detectorId,
        ...(options.expectedBucketOwner ? { expectedBucketOwner: options.expectedBucketOwner } : {}),
      }));
    }
    const published: PublishedThreatList = {
      bucket: options.bucket,
      key: options.key,
      location,
      format: options.format,
      detectorId,
      threatIntelSetId,
      action: existing ? 'updated' : 'created',
      indicators: list.included.length,
      skipped: list.skipped,
      truncated: list.truncated,
      ...(put.ETag ? { etag: put.ETag } : {}),
      ...(put.VersionId ? { versionId: put.VersionId } : {}),
      publishedAt: now.toISOString(),
    };
    this.#last = published;
    this.#logger.info(
      {
        category: 'integration',
        integration: 'cloud',
        threatIntelSetId,
        indicators: published.indicators,
        skipped: published.skipped,
      },
      `threat list "${options.name}" published to s3://${options.bucket}/${options.key} (${published.action})`,
    );
    return published;
  }

  #schedule(options: ResolvedPublishOptions, source: ThreatIndicatorSource): void {
    const previous = this.#schedules.get(options.name);
    if (previous) this.#clock.clearTimeout(previous.timer);
    const intervalMs = options.schedule?.intervalMs as number;
    const schedule: Schedule = { options, timer: undefined };
    const arm = () => {
      schedule.timer = this.#clock.setTimeout(() => {
        if (this.#schedules.get(options.name) !== schedule) return;
        this.#enqueue(() => this.#publish(options, source))
          .catch((error: unknown) => {
            this.#logger.error(
              { category: 'integration', integration: 'cloud', err: error },
              `scheduled threat list "${options.name}" failed to publish; trying again in ${intervalMs} ms`,
            );
          })
          .finally(() => {
            if (this.#schedules.get(options.name) === schedule && !this.#stopped) arm();
          });
      }, intervalMs);
    };
    this.#schedules.set(options.name, schedule);
    arm();
  }
}
