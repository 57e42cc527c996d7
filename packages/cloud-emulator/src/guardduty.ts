import { randomBytes, randomUUID } from 'node:crypto';
import type { CloudRequest, CloudResponse, CloudService } from './cloud-service.js';
import { type EmulatorServer, type EmulatorServerOptions, startEmulatorServer } from './emulator-server.js';
import { type AccessKey, verifySigV4 } from './sigv4.js';

/** The formats GuardDuty accepts for a threat-intel set (the `ThreatIntelSetFormat` enum of its API). */
export const THREAT_INTEL_SET_FORMATS = ['TXT', 'STIX', 'OTX_CSV', 'ALIEN_VAULT', 'PROOF_POINT', 'FIRE_EYE'] as const;

/** GuardDuty's quota of threat lists (threat-intel sets) per account per Region: "up to six". */
export const THREAT_INTEL_SET_LIMIT = 6;

/** The access key the emulator accepts unless told otherwise (AWS's documentation example key). */
export const GUARDDUTY_TEST_KEY: AccessKey = {
  accessKeyId: 'AKIAIOSFODNN7EXAMPLE',
  secretAccessKey: 'wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY',
};

/** A threat-intel set as the emulator holds it. */
export interface StoredThreatIntelSet {
  threatIntelSetId: string;
  detectorId: string;
  name: string;
  format: (typeof THREAT_INTEL_SET_FORMATS)[number];
  location: string;
  /** `ACTIVE` once activated, `INACTIVE` otherwise (the emulator skips the minutes of `ACTIVATING`). */
  status: 'ACTIVE' | 'INACTIVE';
  tags: Record<string, string>;
  expectedBucketOwner?: string;
  /** How many times `UpdateThreatIntelSet` changed it. */
  updates: number;
}

/** Options of {@link GuardDutyEmulator}. */
export interface GuardDutyEmulatorOptions {
  /** The Region the credential scope must name. Default `us-east-1`. */
  region?: string;
  /** The account's access keys. Default {@link GUARDDUTY_TEST_KEY}. */
  keys?: readonly AccessKey[];
  /** The account's detectors in the Region. Default one, with a random 32-character id. */
  detectorIds?: readonly string[];
  /** Threat-intel sets allowed per detector. Default {@link THREAT_INTEL_SET_LIMIT}. */
  threatIntelSetLimit?: number;
  /** Epoch ms now, for the signature's 15-minute window. Default `Date.now`. */
  now?: () => number;
}

const LIST_MAX_RESULTS = 50;

/**
 * GuardDuty's threat-intel set API (rest-json, API version 2017-11-28) as the AWS SDK's service model describes it:
 * `ListDetectors` (`GET /detector`), `CreateThreatIntelSet` (`POST /detector/{detectorId}/threatintelset`),
 * `ListThreatIntelSets` (`GET` on the same path), `GetThreatIntelSet`, `UpdateThreatIntelSet` and
 * `DeleteThreatIntelSet` (`GET`, `POST`, `DELETE /detector/{detectorId}/threatintelset/{threatIntelSetId}`). moto does
 * not implement them.
 *
 * Strict where GuardDuty is: every request must carry a valid SigV4 signature scoped to `<region>/guardduty` with a
 * known access key (403 `UnrecognizedClientException`, `InvalidSignatureException`...); the detector must exist; the
 * body must be JSON with `name`, `format`, `location` and `activate` for a create, `format` in the enum, `name` and
 * `location` 1 to 300 characters, `clientToken` at most 64, `expectedBucketOwner` 12 digits, `tags` at most 200; at
 * most six sets per detector; a name used once per detector. Errors are GuardDuty's: the status of the exception
 * (400 `BadRequestException`, 403 `AccessDeniedException`...), its name in `x-amzn-ErrorType`, and a JSON body with
 * `message` and `__type`. The wording of validation messages follows GuardDuty's ("The request is rejected
 * because...") and names the parameter.
 */
export class GuardDutyEmulator implements CloudService {
  readonly service = 'guardduty';
  readonly region: string;
  readonly detectorIds: readonly string[];
  readonly #keys: readonly AccessKey[];
  readonly #limit: number;
  readonly #now: () => number;
  readonly #sets = new Map<string, StoredThreatIntelSet>();
  /** `detectorId/clientToken` → set id, for idempotent creates. */
  readonly #tokens = new Map<string, string>();

  constructor(options: GuardDutyEmulatorOptions = {}) {
    this.region = options.region ?? 'us-east-1';
    this.#keys = options.keys ?? [GUARDDUTY_TEST_KEY];
    this.detectorIds = options.detectorIds ?? [randomBytes(16).toString('hex')];
    this.#limit = options.threatIntelSetLimit ?? THREAT_INTEL_SET_LIMIT;
    this.#now = options.now ?? Date.now;
  }

  /** The threat-intel sets held, of one detector or all, in creation order. */
  threatIntelSets(detectorId?: string): StoredThreatIntelSet[] {
    return [...this.#sets.values()]
      .filter((set) => detectorId === undefined || set.detectorId === detectorId)
      .map((set) => ({ ...set, tags: { ...set.tags } }));
  }

  handles(request: CloudRequest): boolean {
    return request.path === '/detector' || request.path.startsWith('/detector/');
  }

  handle(request: CloudRequest): CloudResponse {
    const refusal = verifySigV4(request, {
      service: 'guardduty',
      region: this.region,
      keys: this.#keys,
      now: this.#now(),
    });
    if (refusal) return error(refusal.status, refusal.code, refusal.message);
    const segments = pathSegments(request.path);
    if (segments === undefined) return badRequest('The request is rejected because the request path is malformed.');
    const [, detectorId, collection, setId, ...rest] = segments;
    if (segments.length === 1 && request.method === 'GET') return this.#listDetectors(request);
    if (detectorId === undefined || collection !== 'threatintelset' || rest.length > 0) {
      return unknownOperation(request);
    }
    if (!this.detectorIds.includes(detectorId)) {
      return badRequest('The request is rejected because the input detectorId is not owned by the current account.');
    }
    if (setId === undefined) {
      if (request.method === 'POST') return this.#create(detectorId, request);
      if (request.method === 'GET') return this.#list(detectorId, request);
      return unknownOperation(request);
    }
    const set = this.#sets.get(setId);
    if (set === undefined || set.detectorId !== detectorId) {
      return badRequest(
        'The request is rejected because the input threatIntelSetId is not found or not owned by the current account.',
      );
    }
    if (request.method === 'GET') return this.#get(set);
    if (request.method === 'POST') return this.#update(set, request);
    if (request.method === 'DELETE') {
      this.#sets.delete(set.threatIntelSetId);
      return { status: 200, body: {} };
    }
    return unknownOperation(request);
  }

  reset(): void {
    this.#sets.clear();
    this.#tokens.clear();
  }

  #listDetectors(request: CloudRequest): CloudResponse {
    const page = paginate(this.detectorIds, request);
    if (typeof page === 'string') return badRequest(page);
    return { status: 200, body: { detectorIds: page.items, ...(page.nextToken ? { nextToken: page.nextToken } : {}) } };
  }

  #list(detectorId: string, request: CloudRequest): CloudResponse {
    const ids = this.threatIntelSets(detectorId).map((set) => set.threatIntelSetId);
    const page = paginate(ids, request);
    if (typeof page === 'string') return badRequest(page);
    return {
      status: 200,
      body: { threatIntelSetIds: page.items, ...(page.nextToken ? { nextToken: page.nextToken } : {}) },
    };
  }

  #get(set: StoredThreatIntelSet): CloudResponse {
    return {
      status: 200,
      body: {
        name: set.name,
        format: set.format,
        location: set.location,
        status: set.status,
        tags: set.tags,
        ...(set.expectedBucketOwner ? { expectedBucketOwner: set.expectedBucketOwner } : {}),
      },
    };
  }

  #create(detectorId: string, request: CloudRequest): CloudResponse {
    const body = jsonBody(request);
    if (typeof body === 'string') return badRequest(body);
    for (const field of ['name', 'format', 'location', 'activate']) {
      if (body[field] === undefined || body[field] === null) {
        return badRequest(`The request is rejected because a required parameter is missing: ${field}.`);
      }
    }
    const problem =
      lengthProblem(body, 'name', 1, 300, true) ??
      lengthProblem(body, 'location', 1, 300, true) ??
      lengthProblem(body, 'clientToken', 0, 64, false) ??
      formatProblem(body.format) ??
      booleanProblem(body, 'activate') ??
      ownerProblem(body.expectedBucketOwner) ??
      tagsProblem(body.tags);
    if (problem) return badRequest(problem);
    const token = typeof body.clientToken === 'string' && body.clientToken !== '' ? body.clientToken : undefined;
    const earlier = token === undefined ? undefined : this.#tokens.get(`${detectorId}/${token}`);
    if (earlier !== undefined && this.#sets.has(earlier)) {
      return { status: 200, body: { threatIntelSetId: earlier } };
    }
    const existing = this.threatIntelSets(detectorId);
    if (existing.some((set) => set.name === body.name)) {
      return badRequest(
        `The request is rejected because a ThreatIntelSet with the name ${String(body.name)} already exists for this detector.`,
      );
    }
    if (existing.length >= this.#limit) {
      return badRequest(
        `The request is rejected because the current account cannot create more than ${this.#limit} ThreatIntelSets.`,
      );
    }
    const threatIntelSetId = randomUUID().replaceAll('-', '');
    this.#sets.set(threatIntelSetId, {
      threatIntelSetId,
      detectorId,
      name: body.name as string,
      format: body.format as StoredThreatIntelSet['format'],
      location: body.location as string,
      status: body.activate === true ? 'ACTIVE' : 'INACTIVE',
      tags: { ...((body.tags as Record<string, string> | undefined) ?? {}) },
      ...(typeof body.expectedBucketOwner === 'string' ? { expectedBucketOwner: body.expectedBucketOwner } : {}),
      updates: 0,
    });
    if (token !== undefined) this.#tokens.set(`${detectorId}/${token}`, threatIntelSetId);
    return { status: 200, body: { threatIntelSetId } };
  }

  #update(set: StoredThreatIntelSet, request: CloudRequest): CloudResponse {
    const body = jsonBody(request);
    if (typeof body === 'string') return badRequest(body);
    const problem =
      lengthProblem(body, 'name', 1, 300, false) ??
      lengthProblem(body, 'location', 1, 300, false) ??
      (body.activate === undefined ? undefined : booleanProblem(body, 'activate')) ??
      ownerProblem(body.expectedBucketOwner);
    if (problem) return badRequest(problem);
    if (
      typeof body.name === 'string' &&
      body.name !== set.name &&
      this.threatIntelSets(set.detectorId).some((other) => other.name === body.name)
    ) {
      return badRequest(
        `The request is rejected because a ThreatIntelSet with the name ${body.name} already exists for this detector.`,
      );
    }
    const stored = this.#sets.get(set.threatIntelSetId) as StoredThreatIntelSet;
    if (typeof body.name === 'string') stored.name = body.name;
    if (typeof body.location === 'string') stored.location = body.location;
    if (typeof body.activate === 'boolean') stored.status = body.activate ? 'ACTIVE' : 'INACTIVE';
    if (typeof body.expectedBucketOwner === 'string') stored.expectedBucketOwner = body.expectedBucketOwner;
    stored.updates += 1;
    return { status: 200, body: {} };
  }
}

/** A running GuardDuty emulator: the server, the service, and what a client needs to reach it. */
export interface RunningGuardDutyEmulator extends EmulatorServer {
  readonly guardDuty: GuardDutyEmulator;
  readonly region: string;
  /** An access key the emulator accepts. */
  readonly credentials: AccessKey;
  /** The first detector's id. */
  readonly detectorId: string;
}

/**
 * Starts {@link GuardDutyEmulator} on 127.0.0.1 (plain HTTP unless `tls` is given): point the SDK's `endpoint` at
 * `url`.
 *
 * @example
 * ```ts
 * const emulator = await startGuardDutyEmulator();
 * const client = new GuardDutyClient({ region: emulator.region, endpoint: emulator.url, credentials: emulator.credentials });
 * await client.send(new ListDetectorsCommand({})); // { DetectorIds: [emulator.detectorId] }
 * await emulator.close();
 * ```
 */
export async function startGuardDutyEmulator(
  options: GuardDutyEmulatorOptions & EmulatorServerOptions = {},
): Promise<RunningGuardDutyEmulator> {
  const guardDuty = new GuardDutyEmulator(options);
  const server = await startEmulatorServer([guardDuty], options);
  return Object.assign(server, {
    guardDuty,
    region: guardDuty.region,
    credentials: options.keys?.[0] ?? GUARDDUTY_TEST_KEY,
    detectorId: guardDuty.detectorIds[0] as string,
  });
}

function error(status: number, type: string, message: string, detailType?: string): CloudResponse {
  return {
    status,
    headers: { 'x-amzn-ErrorType': type, 'x-amzn-RequestId': randomUUID() },
    // `type` is the exception's `Type` member in the SDK's service model; `__type` is what AWS's JSON front ends add.
    body: { message, type: detailType ?? type, __type: detailType ?? type },
  };
}

function badRequest(message: string): CloudResponse {
  return error(400, 'BadRequestException', message, 'InvalidInputException');
}

function unknownOperation(request: CloudRequest): CloudResponse {
  return error(404, 'UnknownOperationException', `No operation matches ${request.method} ${request.path}.`);
}

function pathSegments(path: string): string[] | undefined {
  try {
    return path.split('/').slice(1).map(decodeURIComponent);
  } catch {
    return undefined;
  }
}

function jsonBody(request: CloudRequest): Record<string, unknown> | string {
  if (request.raw.length === 0) return {};
  try {
    const body: unknown = JSON.parse(request.body);
    if (typeof body === 'object' && body !== null && !Array.isArray(body)) return body as Record<string, unknown>;
  } catch {
    // answered below
  }
  return 'The request is rejected because the request body is not a JSON object.';
}

function lengthProblem(
  body: Record<string, unknown>,
  field: string,
  min: number,
  max: number,
  required: boolean,
): string | undefined {
  const value = body[field];
  if (value === undefined && !required) return undefined;
  if (typeof value !== 'string') return `The request is rejected because ${field} must be a string.`;
  // AWS counts characters (code points), not bytes.
  const length = [...value].length;
  if (length < min || length > max) {
    return `The request is rejected because an invalid or out-of-range value is specified as an input parameter: ${field} must be ${min} to ${max} characters long, got ${length}.`;
  }
  return undefined;
}

function formatProblem(format: unknown): string | undefined {
  if (typeof format === 'string' && (THREAT_INTEL_SET_FORMATS as readonly string[]).includes(format)) return undefined;
  return `The request is rejected because an invalid or out-of-range value is specified as an input parameter: format must be one of ${THREAT_INTEL_SET_FORMATS.join(', ')}.`;
}

function booleanProblem(body: Record<string, unknown>, field: string): string | undefined {
  return typeof body[field] === 'boolean' ? undefined : `The request is rejected because ${field} must be a boolean.`;
}

function ownerProblem(owner: unknown): string | undefined {
  if (owner === undefined) return undefined;
  return typeof owner === 'string' && /^\d{12}$/.test(owner)
    ? undefined
    : 'The request is rejected because an invalid or out-of-range value is specified as an input parameter: expectedBucketOwner must be a 12-digit account id.';
}

function tagsProblem(tags: unknown): string | undefined {
  if (tags === undefined) return undefined;
  if (typeof tags !== 'object' || tags === null || Array.isArray(tags)) {
    return 'The request is rejected because tags must be a map of strings.';
  }
  const entries = Object.entries(tags);
  if (entries.length > 200) return 'The request is rejected because tags has more than 200 entries.';
  return entries.every(([key, value]) => key.length >= 1 && key.length <= 128 && typeof value === 'string')
    ? undefined
    : 'The request is rejected because tags must map keys of 1 to 128 characters to strings.';
}

/** One page of `items` by `maxResults` (1 to 50) and the opaque `nextToken` of the previous page. */
function paginate(items: readonly string[], request: CloudRequest): { items: string[]; nextToken?: string } | string {
  const max = request.query.get('maxResults');
  const size = max === null ? LIST_MAX_RESULTS : Number(max);
  if (!Number.isInteger(size) || size < 1 || size > LIST_MAX_RESULTS) {
    return `The request is rejected because an invalid or out-of-range value is specified as an input parameter: maxResults must be 1 to ${LIST_MAX_RESULTS}.`;
  }
  const token = request.query.get('nextToken');
  let start = 0;
  if (token !== null && token !== '') {
    start = Number(
      Buffer.from(token, 'base64url')
        .toString('utf8')
        .replace(/^offset:/, ''),
    );
    if (!Number.isInteger(start) || start < 0 || start > items.length) {
      return 'The request is rejected because the nextToken is invalid.';
    }
  }
  const end = start + size;
  return {
    items: items.slice(start, end),
    ...(end < items.length ? { nextToken: Buffer.from(`offset:${end}`).toString('base64url') } : {}),
  };
}
