import type { GuardDutyClient } from '@aws-sdk/client-guardduty';
import { parseRecord } from '@threatlib/core';
import { INSPECT_CUSTOM, type InspectFunction, type InspectOptions, inspectView } from '@threatlib/core/integration';
import { z } from 'zod';
import { CloudError } from '../errors/cloud-error.js';
import { awsCall } from './aws-call.js';
import { type GuardDutySdk, loadGuardDutySdk } from './aws-sdk.js';

/** The formats GuardDuty reads a threat-intel set in (its API's `ThreatIntelSetFormat`). */
export const THREAT_INTEL_SET_FORMATS = ['TXT', 'STIX', 'OTX_CSV', 'ALIEN_VAULT', 'PROOF_POINT', 'FIRE_EYE'] as const;

/** One of {@link THREAT_INTEL_SET_FORMATS}. */
export type ThreatIntelSetFormat = (typeof THREAT_INTEL_SET_FORMATS)[number];

const name = z.string().min(1).max(300);
const location = z.string().min(1).max(300);
const detectorId = z.string().min(1).max(300);
const expectedBucketOwner = z.string().regex(/^\d{12}$/, { error: 'expected a 12-digit AWS account id' });

/** The documented threat-intel set: `{name, format, location, activate}`, with GuardDuty's optional fields. */
const ThreatIntelSetInputSchema = z.strictObject({
  /** Shown in the findings the set causes; unique per detector. 1 to 300 characters. */
  name,
  format: z.enum(THREAT_INTEL_SET_FORMATS),
  /** The URL of the list in S3 (`https://s3.amazonaws.com/<bucket>/<key>`). 1 to 300 characters. */
  location,
  /** Whether GuardDuty uses the set now. */
  activate: z.boolean(),
  /** Absent: the integration's detector. */
  detectorId: detectorId.optional(),
  tags: z.record(z.string().min(1).max(128), z.string().max(256)).optional(),
  /** Makes a retried create return the first set instead of failing; the SDK fills one in when absent. */
  clientToken: z.string().max(64).optional(),
  /** The account that must own the bucket in `location`. */
  expectedBucketOwner: expectedBucketOwner.optional(),
});

/** The input of `guardDuty.createThreatIntelSet`. */
export type ThreatIntelSetInput = z.input<typeof ThreatIntelSetInputSchema>;

/** What may change in a threat-intel set. */
const ThreatIntelSetUpdateSchema = z.strictObject({
  threatIntelSetId: z.string().min(1).max(300),
  name: name.optional(),
  location: location.optional(),
  activate: z.boolean().optional(),
  detectorId: detectorId.optional(),
  expectedBucketOwner: expectedBucketOwner.optional(),
});

/** The input of `guardDuty.updateThreatIntelSet`. */
export type ThreatIntelSetUpdate = z.input<typeof ThreatIntelSetUpdateSchema>;

/** A threat-intel set as GuardDuty describes it. */
export interface ThreatIntelSet {
  threatIntelSetId: string;
  detectorId: string;
  name: string;
  format: string;
  location: string;
  /** `ACTIVE`, `ACTIVATING`, `INACTIVE`, `ERROR`... */
  status: string;
  tags: Record<string, string>;
}

/** What `createThreatIntelSet` resolves with. */
export interface CreatedThreatIntelSet {
  threatIntelSetId: string;
  detectorId: string;
}

/**
 * GuardDuty's threat-intel sets, on `@aws-sdk/client-guardduty` (`cloud.guardDuty`). Inputs are validated before
 * anything is sent (`ValidationError` naming each field); an AWS failure rejects with a `CloudError` naming the
 * operation and AWS's reason. `client` is the SDK client, for the rest of GuardDuty's API.
 */
export class GuardDutyApi {
  readonly #client: GuardDutyClient;
  readonly #configuredDetector: string | undefined;
  readonly #secrets: readonly string[];
  /**
   * The SDK's commands, loaded with the first API made (the package is an optional peer dependency, loaded on use).
   */
  readonly #sdk: GuardDutySdk = loadGuardDutySdk();
  #detector: Promise<string> | undefined;

  constructor(client: GuardDutyClient, options: { detectorId?: string | undefined; secrets: readonly string[] }) {
    this.#client = client;
    this.#configuredDetector = options.detectorId;
    this.#secrets = options.secrets;
  }

  /**
   * The SDK client behind it (its region, endpoint and credentials are the integration's). It holds the credentials:
   * it is not part of what this object shows (`toJSON`, `util.inspect`), so do not log it.
   */
  get client(): GuardDutyClient {
    return this.#client;
  }

  /** What `JSON.stringify` writes of it: the service and the detector configured; never a credential. */
  toJSON(): { service: 'guardduty'; detectorId: string | undefined } {
    return { service: 'guardduty', detectorId: this.#configuredDetector };
  }

  /** What `util.inspect` and `console.log` show of it: {@link toJSON}'s view. */
  [INSPECT_CUSTOM](depth: number, options: InspectOptions, inspect: InspectFunction): string {
    return inspectView('GuardDutyApi', this.toJSON(), depth, options, inspect);
  }

  /**
   * The detector calls go to: the configured `detectorId`, else the Region's one detector (`ListDetectors`, asked
   * once and remembered).
   *
   * @throws {CloudError} when the Region has no detector (GuardDuty is not enabled) or several.
   */
  detectorId(): Promise<string> {
    if (this.#configuredDetector !== undefined) return Promise.resolve(this.#configuredDetector);
    this.#detector ??= this.#findDetector();
    // A failed lookup is asked again next time.
    this.#detector.catch(() => {
      this.#detector = undefined;
    });
    return this.#detector;
  }

  /** Every detector id of the account in the Region (`ListDetectors`, all pages). */
  async listDetectors(): Promise<string[]> {
    return awsCall('guardduty', 'ListDetectors', this.#secrets, async () => {
      const ids: string[] = [];
      for await (const page of this.#sdk.paginateListDetectors({ client: this.client }, {}))
        ids.push(...(page.DetectorIds ?? []));
      return ids;
    });
  }

  /**
   * Creates a threat-intel set (`CreateThreatIntelSet`).
   *
   * @example
   * ```ts
   * await cloud.guardDuty.createThreatIntelSet({
   *   name: 'threatlib', format: 'TXT', location: 'https://s3.amazonaws.com/my-bucket/threats.txt', activate: true,
   * });
   * ```
   *
   * @throws {ValidationError} `Invalid threat-intel set: <field>: <reason>` before anything is sent.
   * @throws {CloudError} `GuardDuty CreateThreatIntelSet failed: <AWS code> (HTTP <status>): <AWS message>`.
   */
  async createThreatIntelSet(set: ThreatIntelSetInput): Promise<CreatedThreatIntelSet> {
    const input = parseRecord(ThreatIntelSetInputSchema, set, 'threat-intel set');
    const detector = input.detectorId ?? (await this.detectorId());
    const output = await awsCall('guardduty', 'CreateThreatIntelSet', this.#secrets, () =>
      this.client.send(
        new this.#sdk.CreateThreatIntelSetCommand({
          DetectorId: detector,
          Name: input.name,
          Format: input.format,
          Location: input.location,
          Activate: input.activate,
          ...(input.tags ? { Tags: input.tags } : {}),
          ...(input.clientToken ? { ClientToken: input.clientToken } : {}),
          ...(input.expectedBucketOwner ? { ExpectedBucketOwner: input.expectedBucketOwner } : {}),
        }),
      ),
    );
    if (!output.ThreatIntelSetId) {
      throw new CloudError(
        'guardduty',
        'CreateThreatIntelSet',
        'GuardDuty CreateThreatIntelSet answered without a threatIntelSetId',
      );
    }
    return { threatIntelSetId: output.ThreatIntelSetId, detectorId: detector };
  }

  /**
   * Changes a threat-intel set's name, location or activation (`UpdateThreatIntelSet`). Activating it again makes
   * GuardDuty read the list at `location` anew.
   *
   * @throws {ValidationError} before anything is sent. @throws {CloudError} naming `UpdateThreatIntelSet`.
   */
  async updateThreatIntelSet(update: ThreatIntelSetUpdate): Promise<void> {
    const input = parseRecord(ThreatIntelSetUpdateSchema, update, 'threat-intel set update');
    const detector = input.detectorId ?? (await this.detectorId());
    await awsCall('guardduty', 'UpdateThreatIntelSet', this.#secrets, () =>
      this.client.send(
        new this.#sdk.UpdateThreatIntelSetCommand({
          DetectorId: detector,
          ThreatIntelSetId: input.threatIntelSetId,
          ...(input.name === undefined ? {} : { Name: input.name }),
          ...(input.location === undefined ? {} : { Location: input.location }),
          ...(input.activate === undefined ? {} : { Activate: input.activate }),
          ...(input.expectedBucketOwner === undefined ? {} : { ExpectedBucketOwner: input.expectedBucketOwner }),
        }),
      ),
    );
  }

  /** A threat-intel set by id (`GetThreatIntelSet`). @throws {CloudError} naming `GetThreatIntelSet`. */
  async getThreatIntelSet(threatIntelSetId: string, detectorId?: string): Promise<ThreatIntelSet> {
    const detector = detectorId ?? (await this.detectorId());
    const output = await awsCall('guardduty', 'GetThreatIntelSet', this.#secrets, () =>
      this.client.send(
        new this.#sdk.GetThreatIntelSetCommand({ DetectorId: detector, ThreatIntelSetId: threatIntelSetId }),
      ),
    );
    return {
      threatIntelSetId,
      detectorId: detector,
      name: output.Name ?? '',
      format: output.Format ?? '',
      location: output.Location ?? '',
      status: output.Status ?? '',
      tags: output.Tags ?? {},
    };
  }

  /** The ids of the detector's threat-intel sets (`ListThreatIntelSets`, all pages). */
  async listThreatIntelSets(detectorId?: string): Promise<string[]> {
    const detector = detectorId ?? (await this.detectorId());
    return awsCall('guardduty', 'ListThreatIntelSets', this.#secrets, async () => {
      const ids: string[] = [];
      for await (const page of this.#sdk.paginateListThreatIntelSets(
        { client: this.client },
        { DetectorId: detector },
      )) {
        ids.push(...(page.ThreatIntelSetIds ?? []));
      }
      return ids;
    });
  }

  /**
   * The detector's threat-intel set named `name`, or undefined (`ListThreatIntelSets`, then `GetThreatIntelSet` of
   * each until one has that name: GuardDuty does not filter by name).
   */
  async findThreatIntelSet(name: string, detectorId?: string): Promise<ThreatIntelSet | undefined> {
    const detector = detectorId ?? (await this.detectorId());
    for (const id of await this.listThreatIntelSets(detector)) {
      const set = await this.getThreatIntelSet(id, detector);
      if (set.name === name) return set;
    }
    return undefined;
  }

  async #findDetector(): Promise<string> {
    const ids = await this.listDetectors();
    const [only] = ids;
    if (only !== undefined && ids.length === 1) return only;
    throw new CloudError(
      'guardduty',
      'ListDetectors',
      ids.length === 0
        ? `GuardDuty has no detector in ${await this.#region()}: enable GuardDuty in that Region, or give detectorId`
        : `GuardDuty has ${ids.length} detectors in ${await this.#region()} (${ids.join(', ')}): give detectorId`,
    );
  }

  async #region(): Promise<string> {
    const region = this.client.config.region;
    return typeof region === 'function' ? await region() : String(region);
  }
}
