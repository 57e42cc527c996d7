// Google Security Operations (Chronicle) as @threatlib/siem talks to it: the Chronicle API's events:import,
// udmSearch and instances.get, behind a local Google OAuth 2.0 token endpoint for service accounts. Strict the way
// Google is: the bearer token first (401 UNAUTHENTICATED), then its scopes and the account's IAM permission on the
// instance (403 PERMISSION_DENIED), then the Content-Type, then the body (400 INVALID_ARGUMENT with Google's
// wording for unknown names and invalid values); every error in Google's envelope {error: {code, message, status}}.
// - events.import: https://cloud.google.com/chronicle/docs/reference/rest/v1alpha/projects.locations.instances.events/import
// - udmSearch: https://cloud.google.com/chronicle/docs/reference/rest/v1alpha/projects.locations.instances/udmSearch
// - instances.get: https://cloud.google.com/chronicle/docs/reference/rest/v1alpha/projects.locations.instances/get
// - Error model: https://cloud.google.com/apis/design/errors (google.rpc.Status, ErrorInfo, BadRequest)
import type { EmulatorRequest, EmulatorResponse, VendorEmulator } from '../vendor.js';
import {
  CHRONICLE_TOKEN_PATH,
  createTokenAuthority,
  type IssuedToken,
  type ServiceAccountKeyFile,
  type TokenAuthority,
} from './chronicle-oauth.js';
import { compileUdmQuery, UdmQueryError } from './chronicle-query.js';
import { readUdmEvent, timestampMs, type UdmEvent, UdmRejection } from './chronicle-udm.js';

/** The instance a default emulator serves. */
export const CHRONICLE_DEFAULTS = {
  project: 'threatlib-test',
  location: 'us',
  instance: '5a3c9e21-7b4d-4f0a-9c8e-2d6f1b0a4e73',
} as const;

/** The IAM permissions the emulated API checks. */
export const CHRONICLE_PERMISSIONS = {
  import: 'chronicle.events.import',
  search: 'chronicle.events.udmSearch',
  getInstance: 'chronicle.instances.get',
} as const;

/** Scopes that reach the Chronicle API (v1alpha documents cloud-platform; v1beta adds chronicle). */
const API_SCOPES = ['https://www.googleapis.com/auth/cloud-platform', 'https://www.googleapis.com/auth/chronicle'];
const READ_SCOPES = [...API_SCOPES, 'https://www.googleapis.com/auth/chronicle.readonly'];

/** Options of the Chronicle emulator. */
export interface ChronicleEmulatorOptions {
  project?: string;
  location?: string;
  instance?: string;
  /** Largest request body, in bytes (default 4 MiB). */
  maxRequestBytes?: number;
  /** The clock of tokens and assertions, epoch ms (default `Date.now`). */
  now?: () => number;
}

/** An event events:import accepted. */
export interface ReceivedUdmEvent {
  /** The event's resource name, as udmSearch answers it. */
  name: string;
  udm: UdmEvent;
  /** The service account whose token imported it (`''` for events added with `index`). */
  account: string;
  /** The import request it came in (0 for the first one accepted), to see batching. */
  request: number;
}

/** The Chronicle emulator: what it received, its token endpoint, and how to make it refuse. */
export interface ChronicleEmulator extends VendorEmulator {
  /** `projects/{project}/locations/{location}/instances/{instance}`. */
  readonly instanceName: string;
  readonly oauth: TokenAuthority;
  /** Every event imported (or indexed), oldest first. */
  readonly events: readonly ReceivedUdmEvent[];
  /** Every search run: its query and range. */
  readonly searches: readonly { query: string; startTime: string; endTime: string; limit: number }[];
  /** How many import requests were accepted. */
  readonly acceptedRequests: number;
  /** A key file for a service account, its `token_uri` at `serverUrl` (the emulator's `url`). */
  serviceAccountKey(serverUrl: string, email?: string): ServiceAccountKeyFile;
  /** Takes `permission` away from the account `email` (every account has every permission until then). */
  deny(email: string, permission: string): void;
  /** Adds an event as if another product had sent it (for enrichment tests). */
  index(udm: UdmEvent): void;
  /**
   * Answers the next `count` authenticated API requests with 429 RESOURCE_EXHAUSTED (a per-minute quota), with
   * `Retry-After: retryAfterSeconds` when given.
   */
  exhaustQuota(count: number, retryAfterSeconds?: number): void;
}

interface GoogleError {
  code: number;
  status: string;
  message: string;
  details?: unknown[];
}

/** Google's error answer: `{error: {code, message, status, details?}}`. */
function googleError(error: GoogleError, headers?: Record<string, string>): EmulatorResponse {
  return { status: error.code, ...(headers ? { headers } : {}), body: { error } };
}

const invalidArgument = (message: string, field?: string): EmulatorResponse =>
  googleError({
    code: 400,
    status: 'INVALID_ARGUMENT',
    message,
    ...(field === undefined
      ? {}
      : {
          details: [
            {
              '@type': 'type.googleapis.com/google.rpc.BadRequest',
              fieldViolations: [{ field, description: message }],
            },
          ],
        }),
  });

const SIGN_IN_HINT =
  'Expected OAuth 2 access token, login cookie or other valid authentication credential. See https://developers.google.com/identity/sign-in/web/devconsole-project.';

const ROUTE =
  /^\/(v1alpha|v1beta)\/projects\/([^/]+)\/locations\/([^/]+)\/instances\/([^/:]+)(\/events:import|:udmSearch)?$/;

/** Creates a Chronicle emulator (serve it with `startEmulatorServer` or `startSiemEmulator`). */
export function createChronicleEmulator(options: ChronicleEmulatorOptions = {}): ChronicleEmulator {
  const project = options.project ?? CHRONICLE_DEFAULTS.project;
  const location = options.location ?? CHRONICLE_DEFAULTS.location;
  const instance = options.instance ?? CHRONICLE_DEFAULTS.instance;
  const instanceName = `projects/${project}/locations/${location}/instances/${instance}`;
  const maxRequestBytes = options.maxRequestBytes ?? 4 * 1024 * 1024;
  const now = options.now ?? Date.now;
  const oauth = createTokenAuthority(now);
  const events: ReceivedUdmEvent[] = [];
  const searches: { query: string; startTime: string; endTime: string; limit: number }[] = [];
  const denied = new Map<string, Set<string>>();
  let accepted = 0;
  let sequence = 0;
  const quota = { left: 0, retryAfter: undefined as number | undefined };

  const eventName = () => `${instanceName}/events/${Buffer.from(`event-${++sequence}`).toString('base64url')}`;

  /** The caller's grant, or Google's refusal: 401 for no or an unknown token, 403 for a scope it lacks. */
  function authenticate(request: EmulatorRequest, scopes: readonly string[]): IssuedToken | EmulatorResponse {
    const header = request.headers.authorization;
    const challenge = { 'www-authenticate': 'Bearer realm="https://accounts.google.com/"' };
    if (header === undefined) {
      return googleError(
        {
          code: 401,
          status: 'UNAUTHENTICATED',
          message: `Request is missing required authentication credential. ${SIGN_IN_HINT}`,
        },
        challenge,
      );
    }
    const bearer = /^Bearer\s+(\S+)$/i.exec(header);
    const grant = bearer ? oauth.lookup(bearer[1] as string) : undefined;
    if (!grant) {
      return googleError(
        {
          code: 401,
          status: 'UNAUTHENTICATED',
          message: `Request had invalid authentication credentials. ${SIGN_IN_HINT}`,
        },
        { 'www-authenticate': 'Bearer realm="https://accounts.google.com/", error="invalid_token"' },
      );
    }
    if (!grant.scopes.some((scope) => scopes.includes(scope))) {
      return googleError(
        {
          code: 403,
          status: 'PERMISSION_DENIED',
          message: 'Request had insufficient authentication scopes.',
          details: [
            {
              '@type': 'type.googleapis.com/google.rpc.ErrorInfo',
              reason: 'ACCESS_TOKEN_SCOPE_INSUFFICIENT',
              domain: 'googleapis.com',
              metadata: { service: 'chronicle.googleapis.com' },
            },
          ],
        },
        { 'www-authenticate': 'Bearer realm="https://accounts.google.com/", error="insufficient_scope"' },
      );
    }
    return grant;
  }

  /** The account's permission on the named instance, or Google's 403 (which also stands for "no such instance"). */
  function authorize(grant: IssuedToken, name: string, permission: string): EmulatorResponse | undefined {
    if (name === instanceName && !denied.get(grant.email)?.has(permission)) return undefined;
    return googleError({
      code: 403,
      status: 'PERMISSION_DENIED',
      message: `Permission '${permission}' denied on resource '//chronicle.googleapis.com/${name}' (or it may not exist).`,
      details: [
        {
          '@type': 'type.googleapis.com/google.rpc.ErrorInfo',
          reason: 'IAM_PERMISSION_DENIED',
          domain: 'chronicle.googleapis.com',
          metadata: { permission, resource: name },
        },
      ],
    });
  }

  /** Google checks quota once the caller is known: a 429 for a spent per-minute quota. */
  function quotaExceeded(method: string): EmulatorResponse | undefined {
    if (quota.left <= 0) return undefined;
    quota.left--;
    return googleError(
      {
        code: 429,
        status: 'RESOURCE_EXHAUSTED',
        message: `Quota exceeded for quota metric '${method} requests' and limit '${method} requests per minute' of service 'chronicle.googleapis.com' for consumer 'project_number:${project}'.`,
        details: [
          {
            '@type': 'type.googleapis.com/google.rpc.ErrorInfo',
            reason: 'RATE_LIMIT_EXCEEDED',
            domain: 'googleapis.com',
            metadata: { service: 'chronicle.googleapis.com' },
          },
        ],
      },
      quota.retryAfter === undefined ? undefined : { 'retry-after': String(quota.retryAfter) },
    );
  }

  function importEvents(request: EmulatorRequest, grant: IssuedToken): EmulatorResponse {
    const type = String(request.headers['content-type'] ?? '')
      .split(';')[0]
      ?.trim()
      .toLowerCase();
    if (type !== 'application/json') {
      return invalidArgument(
        `Invalid JSON payload received. Unexpected Content-Type ${JSON.stringify(type ?? '')}: expected application/json.`,
      );
    }
    if (request.raw.byteLength > maxRequestBytes) {
      return invalidArgument(`Request payload size exceeds the limit: ${maxRequestBytes} bytes.`);
    }
    let body: unknown;
    try {
      body = JSON.parse(request.body);
    } catch {
      return invalidArgument('Invalid JSON payload received. Unexpected token.');
    }
    if (typeof body !== 'object' || body === null || Array.isArray(body)) {
      return invalidArgument('Invalid JSON payload received. Expected an object.');
    }
    const names = Object.keys(body);
    const unknown = names.find((n) => n !== 'inlineSource' && n !== 'inline_source');
    if (unknown !== undefined) {
      return invalidArgument(
        `Invalid JSON payload received. Unknown name ${JSON.stringify(unknown)}: Cannot find field.`,
        unknown,
      );
    }
    const source = (body as Record<string, unknown>).inlineSource ?? (body as Record<string, unknown>).inline_source;
    if (typeof source !== 'object' || source === null || Array.isArray(source)) {
      return invalidArgument('inline_source is required: the events to import.', 'inline_source');
    }
    const extra = Object.keys(source).find((n) => n !== 'events');
    if (extra !== undefined) {
      return invalidArgument(
        `Invalid JSON payload received. Unknown name ${JSON.stringify(extra)} at 'inline_source': Cannot find field.`,
        'inline_source',
      );
    }
    const list = (source as { events?: unknown }).events;
    if (!Array.isArray(list) || list.length === 0) {
      return invalidArgument('inline_source.events is required and must not be empty.', 'inline_source.events');
    }
    const read: UdmEvent[] = [];
    for (const [i, item] of list.entries()) {
      const path = `inline_source.events[${i}]`;
      if (typeof item !== 'object' || item === null || Array.isArray(item)) {
        return invalidArgument(`Invalid value at '${path}', ${JSON.stringify(item)}: expected an Event.`, path);
      }
      const fields = Object.keys(item);
      const other = fields.find((n) => n !== 'udm' && n !== 'name');
      if (other !== undefined) {
        return invalidArgument(
          `Invalid JSON payload received. Unknown name ${JSON.stringify(other)} at '${path}': Cannot find field.`,
          path,
        );
      }
      try {
        read.push(readUdmEvent((item as { udm?: unknown }).udm ?? null, `${path}.udm`));
      } catch (error) {
        if (error instanceof UdmRejection) return invalidArgument(error.message, error.field);
        throw error;
      }
    }
    // All or nothing, as the API documents: nothing is kept unless every event is valid.
    const requestNumber = accepted++;
    for (const udm of read) events.push({ name: eventName(), udm, account: grant.email, request: requestNumber });
    return { status: 200, body: {} };
  }

  function udmSearch(request: EmulatorRequest): EmulatorResponse {
    const query = request.query.get('query');
    if (!query) return invalidArgument('query is required.', 'query');
    const startTime = request.query.get('timeRange.startTime') ?? request.query.get('time_range.start_time');
    const endTime = request.query.get('timeRange.endTime') ?? request.query.get('time_range.end_time');
    if (!startTime || !endTime)
      return invalidArgument('time_range is required: start_time and end_time.', 'time_range');
    const start = timestampMs(startTime);
    const end = timestampMs(endTime);
    if (start === undefined)
      return invalidArgument(
        `Invalid value at 'time_range.start_time' (type.googleapis.com/google.protobuf.Timestamp), "${startTime}"`,
        'time_range.start_time',
      );
    if (end === undefined)
      return invalidArgument(
        `Invalid value at 'time_range.end_time' (type.googleapis.com/google.protobuf.Timestamp), "${endTime}"`,
        'time_range.end_time',
      );
    if (end <= start) return invalidArgument('time_range: end_time must be after start_time.', 'time_range');
    const limitText = request.query.get('limit');
    const limit = limitText === null ? 10_000 : Number(limitText);
    if (!Number.isInteger(limit) || limit < 0) {
      return invalidArgument(`Invalid value at 'limit' (TYPE_INT32), "${limitText}"`, 'limit');
    }
    let matches: (event: UdmEvent) => boolean;
    try {
      matches = compileUdmQuery(query);
    } catch (error) {
      if (error instanceof UdmQueryError) return invalidArgument(error.message, 'query');
      throw error;
    }
    const capped = Math.min(limit === 0 ? 10_000 : limit, 10_000);
    searches.push({ query, startTime, endTime, limit: capped });
    const found = events
      .filter((e) => {
        const at = timestampMs(e.udm.metadata.eventTimestamp) ?? Number.NaN;
        return at >= start && at < end && matches(e.udm);
      })
      .sort(
        (a, b) => (timestampMs(b.udm.metadata.eventTimestamp) ?? 0) - (timestampMs(a.udm.metadata.eventTimestamp) ?? 0),
      );
    return {
      status: 200,
      body: {
        events: found.slice(0, capped).map((e) => ({ name: e.name, udm: e.udm })),
        moreDataAvailable: found.length > capped,
      },
    };
  }

  const emulator: ChronicleEmulator = {
    vendor: 'chronicle',
    instanceName,
    oauth,
    get events() {
      return events;
    },
    get searches() {
      return searches;
    },
    get acceptedRequests() {
      return accepted;
    },
    handles: (request) =>
      request.path === CHRONICLE_TOKEN_PATH ||
      request.path.startsWith('/v1alpha/projects/') ||
      request.path.startsWith('/v1beta/projects/'),
    handle(request) {
      if (request.path === CHRONICLE_TOKEN_PATH) return oauth.handle(request);
      const route = ROUTE.exec(request.path);
      const notFound = googleError({ code: 404, status: 'NOT_FOUND', message: 'Method not found.' });
      if (!route) return notFound;
      const [, version, p, l, i, method] = route as unknown as [
        string,
        string,
        string,
        string,
        string,
        string | undefined,
      ];
      const name = `projects/${decodeURIComponent(p)}/locations/${decodeURIComponent(l)}/instances/${decodeURIComponent(i)}`;
      if (method === '/events:import') {
        if (request.method !== 'POST') return notFound;
        const grant = authenticate(request, API_SCOPES);
        if ('status' in grant) return grant;
        return (
          authorize(grant, name, CHRONICLE_PERMISSIONS.import) ??
          quotaExceeded('Import') ??
          importEvents(request, grant)
        );
      }
      if (method === ':udmSearch') {
        // udmSearch is a v1alpha method only.
        if (request.method !== 'GET' || version !== 'v1alpha') return notFound;
        const grant = authenticate(request, READ_SCOPES);
        if ('status' in grant) return grant;
        return authorize(grant, name, CHRONICLE_PERMISSIONS.search) ?? quotaExceeded('Search') ?? udmSearch(request);
      }
      if (request.method !== 'GET') return notFound;
      const grant = authenticate(request, READ_SCOPES);
      if ('status' in grant) return grant;
      return authorize(grant, name, CHRONICLE_PERMISSIONS.getInstance) ?? { status: 200, body: { name: instanceName } };
    },
    busy() {
      return googleError({ code: 503, status: 'UNAVAILABLE', message: 'The service is currently unavailable.' });
    },
    reset() {
      events.length = 0;
      searches.length = 0;
      denied.clear();
      oauth.reset();
      quota.left = 0;
      quota.retryAfter = undefined;
      accepted = 0;
    },
    serviceAccountKey(serverUrl, email) {
      return oauth.issueKey({
        tokenUri: `${serverUrl.replace(/\/+$/, '')}${CHRONICLE_TOKEN_PATH}`,
        projectId: project,
        ...(email === undefined ? {} : { email }),
      });
    },
    deny(email, permission) {
      const set = denied.get(email) ?? new Set<string>();
      set.add(permission);
      denied.set(email, set);
    },
    exhaustQuota(count, retryAfterSeconds) {
      quota.left = count;
      quota.retryAfter = retryAfterSeconds;
    },
    index(udm) {
      events.push({ name: eventName(), udm: readUdmEvent(udm, 'udm'), account: '', request: -1 });
    },
  };
  return emulator;
}
