// Kibana as @threatlib/siem talks to it: the Cases API (create, get) and the status API, in the default space or
// under /s/<space>. Strict the way Kibana 8.19 is: authentication first (Basic, or ApiKey), then the route and the
// kbn-xsrf header of every POST (400 "Request must contain a kbn-xsrf header."), then the content type and JSON, then
// the body as the Cases plugin's io-ts types check it, answering Boom bodies {statusCode, error, message}.
// - https://www.elastic.co/docs/api/doc/kibana/operation/operation-createcasedefaultspace
// - https://www.elastic.co/docs/api/doc/kibana/operation/operation-getcasedefaultspace
// - https://www.elastic.co/docs/api/doc/kibana/operation/operation-get-status
// - https://www.elastic.co/docs/api/doc/kibana/ (headers: kbn-xsrf, elastic-api-version)
// - Validation messages: Kibana's x-pack/platform/plugins/shared/cases/common/schema (limitedStringSchema,
//   limitedArraySchema: "The length of the title is too long. The maximum length is 160.", "The title field cannot be
//   an empty string.", "The length of the field tags is too long. Array must be of length <= 200."), io-ts's
//   `Invalid value "undefined" supplied to "title"` and `invalid keys "foo"`, each prefixed by the create route with
//   "Failed to create case: Error: "; assignees without a Platinum licence: "In order to assign users to cases, you
//   must be subscribed to an Elastic Platinum license" (cases/server/client/cases/create.test.ts).
import { randomUUID } from 'node:crypto';
import type { EmulatorRequest, EmulatorResponse, VendorEmulator } from '../vendor.js';

/** Options of the Kibana emulator. */
export interface KibanaEmulatorOptions {
  /** Users, name to password (default: {@link KIBANA_DEFAULTS}.username / password). */
  users?: Record<string, string>;
  /** API keys accepted as `Authorization: ApiKey <encoded>` (default: {@link KIBANA_DEFAULTS}.apiKey). */
  apiKeys?: readonly string[];
  /** Spaces besides `default`. */
  spaces?: readonly string[];
  /** The licence: assigning users to cases needs `platinum` (default) or better. */
  license?: 'basic' | 'platinum';
  /** What `/api/status` reports (default `8.19.0`). */
  version?: string;
}

/** The credentials a default Kibana emulator accepts. */
export const KIBANA_DEFAULTS = {
  username: 'elastic',
  password: 'kibana-emulator-password-3c1e',
  /** base64 of `id:api_key`, as Elasticsearch's create API key answers it in `encoded`. */
  apiKey: Buffer.from('VuaCfGcBCdbkQm-e5aOx:ui2lp2axTNmsyakw9tvNnw').toString('base64'),
} as const;

/** A case as the emulator holds it (Kibana's case object, with its space). */
export interface KibanaCase {
  id: string;
  space: string;
  version: string;
  title: string;
  description: string;
  tags: string[];
  severity: string;
  owner: string;
  status: 'open';
  assignees: { uid: string }[];
  connector: { id: string; name: string; type: string; fields: unknown };
  settings: Record<string, unknown>;
  category: string | null;
  customFields: unknown[];
  created_at: string;
  created_by: { username: string; full_name: null; email: null };
}

/** The Kibana emulator: what it holds, and how to make it misbehave. */
export interface KibanaEmulator extends VendorEmulator {
  /** Every case created, oldest first. */
  readonly cases: readonly KibanaCase[];
  /** The overall level `/api/status` reports; `unavailable` and `critical` answer 503. */
  statusLevel: 'available' | 'degraded' | 'unavailable' | 'critical';
  /** Seconds of `Retry-After` on its "busy" answer (none when undefined). */
  busyRetryAfter: number | undefined;
}

const OWNERS = ['securitySolution', 'observability', 'cases'];
const SEVERITIES = ['low', 'medium', 'high', 'critical'];
const CONNECTOR_TYPES = [
  '.none',
  '.jira',
  '.resilient',
  '.servicenow',
  '.servicenow-sir',
  '.swimlane',
  '.cases-webhook',
  '.thehive',
];
const LIMITS = { title: 160, description: 30_000, tags: 200, tag: 256, assignees: 10, category: 50 };

/** Kibana's (hapi's Boom) error body. */
function boom(status: number, message: string, headers?: Record<string, string>): EmulatorResponse {
  const error: Record<number, string> = {
    400: 'Bad Request',
    401: 'Unauthorized',
    403: 'Forbidden',
    404: 'Not Found',
    415: 'Unsupported Media Type',
    503: 'Service Unavailable',
  };
  return {
    status,
    ...(headers === undefined ? {} : { headers }),
    body: { statusCode: status, error: error[status] ?? 'Error', message },
  };
}

/** What Kibana relays of Elasticsearch's security_exception when it refuses the credentials. */
function securityException(reason: string): string {
  return `[security_exception\n\tRoot causes:\n\t\tsecurity_exception: ${reason}]: ${reason}`;
}

/** Creates a Kibana emulator (serve it with `startEmulatorServer` or `startSiemEmulator`). */
export function createKibanaEmulator(options: KibanaEmulatorOptions = {}): KibanaEmulator {
  const users = options.users ?? { [KIBANA_DEFAULTS.username]: KIBANA_DEFAULTS.password };
  const apiKeys = new Set(options.apiKeys ?? [KIBANA_DEFAULTS.apiKey]);
  const spaces = new Set(['default', ...(options.spaces ?? [])]);
  const license = options.license ?? 'platinum';
  const version = options.version ?? '8.19.0';
  const cases: KibanaCase[] = [];

  /** The user the request authenticates as, or Kibana's 401. */
  const authenticate = (request: EmulatorRequest): string | EmulatorResponse => {
    const header = request.headers.authorization;
    const unauthorized = (message: string) =>
      boom(401, message, { 'www-authenticate': 'Basic realm="kibana", charset="UTF-8"' });
    if (typeof header !== 'string' || !header.trim()) return unauthorized('Unauthorized');
    const [scheme = '', value = ''] = header.trim().split(/\s+/, 2);
    if (scheme.toLowerCase() === 'basic') {
      const decoded = Buffer.from(value, 'base64').toString('utf8');
      const colon = decoded.indexOf(':');
      const user = colon < 0 ? decoded : decoded.slice(0, colon);
      const password = colon < 0 ? '' : decoded.slice(colon + 1);
      if (colon > 0 && users[user] !== undefined && users[user] === password) return user;
      return unauthorized(
        securityException(`unable to authenticate user [${user}] for REST request [/_security/_authenticate]`),
      );
    }
    if (scheme.toLowerCase() === 'apikey') {
      if (apiKeys.has(value)) return `api-key:${Buffer.from(value, 'base64').toString('utf8').split(':')[0]}`;
      return unauthorized(
        securityException(
          'unable to authenticate with provided credentials and anonymous access is not allowed for this request',
        ),
      );
    }
    return unauthorized('Unauthorized');
  };

  const status = (): EmulatorResponse => {
    const level = emulator.statusLevel;
    const summary = level === 'available' ? 'All services and plugins are available' : `Kibana is ${level} (emulated)`;
    return {
      status: level === 'unavailable' || level === 'critical' ? 503 : 200,
      body: {
        name: 'kibana-emulator',
        uuid: '5b2de169-2785-441b-ae8c-186a1936b17d',
        version: {
          number: version,
          build_hash: '0000000000000000000000000000000000000000',
          build_number: 80000,
          build_snapshot: false,
          build_flavor: 'traditional',
        },
        status: {
          overall: { level, summary },
          core: {
            elasticsearch: { level: 'available', summary: 'Elasticsearch is available' },
            savedObjects: { level: 'available', summary: 'SavedObjects service has completed migrations' },
          },
          plugins: {},
        },
      },
    };
  };

  const createCase = (request: EmulatorRequest, space: string, user: string): EmulatorResponse => {
    const type = String(request.headers['content-type'] ?? '')
      .split(';')[0]
      ?.trim()
      .toLowerCase();
    if (type !== 'application/json') return boom(415, 'Unsupported Media Type');
    let body: unknown;
    try {
      body = JSON.parse(request.body);
    } catch {
      return boom(400, 'Invalid request payload JSON format');
    }
    if (typeof body !== 'object' || body === null || Array.isArray(body)) {
      return boom(400, `Failed to create case: Error: Invalid value ${shown(body)} supplied to ""`);
    }
    const input = body as Record<string, unknown>;
    const problems = validateCase(input);
    if (problems.length > 0) return boom(400, `Failed to create case: Error: ${problems.join(',')}`);
    const owner = input.owner as string;
    if (!OWNERS.includes(owner)) return boom(403, `Unauthorized to create case with owners: "${owner}"`);
    const assignees = ((input.assignees as { uid: string }[] | undefined) ?? []).filter((a) => a.uid !== '');
    if (assignees.length > 0 && license !== 'platinum') {
      return boom(
        403,
        'Failed to create case: Error: In order to assign users to cases, you must be subscribed to an Elastic Platinum license',
      );
    }
    const created: KibanaCase = {
      id: randomUUID(),
      space,
      version: 'WzEsMV0=',
      title: (input.title as string).trim(),
      description: (input.description as string).trim(),
      tags: (input.tags as string[]).map((tag) => tag.trim()),
      severity: (input.severity as string | undefined) ?? 'low',
      owner,
      status: 'open',
      assignees,
      connector: input.connector as KibanaCase['connector'],
      settings: input.settings as Record<string, unknown>,
      category: (input.category as string | null | undefined) ?? null,
      customFields: (input.customFields as unknown[] | undefined) ?? [],
      created_at: new Date().toISOString(),
      created_by: { username: user, full_name: null, email: null },
    };
    cases.push(created);
    return { status: 200, body: caseObject(created) };
  };

  const emulator: KibanaEmulator = {
    vendor: 'kibana',
    statusLevel: 'available',
    busyRetryAfter: undefined,
    get cases() {
      return cases;
    },
    handles: (request) => /^(\/s\/[^/]+)?\/api\/(cases|status)(\/|$)/.test(request.path),
    handle(request) {
      const user = authenticate(request);
      if (typeof user !== 'string') return user;
      const match = /^(?:\/s\/([^/]+))?(\/api\/.*)$/.exec(request.path);
      const space = match?.[1] ?? 'default';
      const route = match?.[2] ?? '';
      if (!spaces.has(space)) return boom(404, 'Not Found');
      if (request.method === 'POST' && request.headers['kbn-xsrf'] === undefined) {
        return boom(400, 'Request must contain a kbn-xsrf header.');
      }
      if (route === '/api/status' && request.method === 'GET') return status();
      if (route === '/api/cases' && request.method === 'POST') return createCase(request, space, user);
      const get = /^\/api\/cases\/([^/]+)$/.exec(route);
      if (get && request.method === 'GET') {
        const found = cases.find((c) => c.id === get[1] && c.space === space);
        if (!found) return boom(404, `Saved object [cases/${get[1]}] not found`);
        return { status: 200, body: caseObject(found) };
      }
      return boom(404, 'Not Found');
    },
    busy() {
      const retry = emulator.busyRetryAfter;
      return boom(503, 'Service Unavailable', retry === undefined ? undefined : { 'retry-after': String(retry) });
    },
    reset() {
      cases.length = 0;
      emulator.statusLevel = 'available';
      emulator.busyRetryAfter = undefined;
    },
  };
  return emulator;
}

/** Kibana's answer for a case: the stored case without the emulator's space, with its (empty) comments. */
function caseObject(stored: KibanaCase): Record<string, unknown> {
  const { space: _space, ...rest } = stored;
  return {
    ...rest,
    comments: [],
    totalComment: 0,
    totalAlerts: 0,
    closed_at: null,
    closed_by: null,
    updated_at: null,
    updated_by: null,
    external_service: null,
    duration: null,
    observables: [],
  };
}

/** io-ts's rendering of a value in "Invalid value ... supplied to ...". */
function shown(value: unknown): string {
  if (value === undefined) return '"undefined"';
  if (typeof value === 'string') return `"${value}"`;
  return JSON.stringify(value);
}

/** The problems with a create-case body, in Kibana's words (io-ts and the Cases limited schemas). */
function validateCase(input: Record<string, unknown>): string[] {
  const problems: string[] = [];
  const allowed = [
    'description',
    'tags',
    'title',
    'connector',
    'settings',
    'owner',
    'assignees',
    'severity',
    'category',
    'customFields',
  ];
  const excess = Object.keys(input).filter((key) => !allowed.includes(key));
  if (excess.length > 0) problems.push(`invalid keys ${excess.map((key) => `"${key}"`).join(',')}`);
  const invalid = (path: string, value: unknown) =>
    problems.push(`Invalid value ${shown(value)} supplied to "${path}"`);

  const limitedString = (name: string, field: string, max: number, value: unknown, path = name) => {
    if (typeof value !== 'string') {
      invalid(path, value);
      return;
    }
    const trimmed = value.trim();
    if (trimmed.length === 0) problems.push(`The ${field} field cannot be an empty string.`);
    else if (trimmed.length > max)
      problems.push(`The length of the ${field} is too long. The maximum length is ${max}.`);
  };
  limitedString('title', 'title', LIMITS.title, input.title);
  limitedString('description', 'description', LIMITS.description, input.description);

  if (!Array.isArray(input.tags)) invalid('tags', input.tags);
  else {
    if (input.tags.length > LIMITS.tags) {
      problems.push(`The length of the field tags is too long. Array must be of length <= ${LIMITS.tags}.`);
    }
    input.tags.forEach((tag) => {
      limitedString('tags', 'tag', LIMITS.tag, tag);
    });
  }

  const connector = input.connector as Record<string, unknown> | undefined;
  if (typeof connector !== 'object' || connector === null || Array.isArray(connector)) invalid('connector', connector);
  else {
    if (typeof connector.id !== 'string') invalid('connector,id', connector.id);
    if (typeof connector.name !== 'string') invalid('connector,name', connector.name);
    if (typeof connector.type !== 'string' || !CONNECTOR_TYPES.includes(connector.type)) {
      invalid('connector,type', connector.type);
    } else if (connector.type === '.none' && connector.fields !== null) {
      invalid('connector,fields', connector.fields);
    }
    const extra = Object.keys(connector).filter((key) => !['id', 'name', 'type', 'fields'].includes(key));
    if (extra.length > 0) problems.push(`invalid keys ${extra.map((key) => `"${key}"`).join(',')}`);
  }

  const settings = input.settings as Record<string, unknown> | undefined;
  if (typeof settings !== 'object' || settings === null || Array.isArray(settings)) invalid('settings', settings);
  else {
    if (typeof settings.syncAlerts !== 'boolean') invalid('settings,syncAlerts', settings.syncAlerts);
    if (settings.extractObservables !== undefined && typeof settings.extractObservables !== 'boolean') {
      invalid('settings,extractObservables', settings.extractObservables);
    }
    const extra = Object.keys(settings).filter((key) => !['syncAlerts', 'extractObservables'].includes(key));
    if (extra.length > 0) problems.push(`invalid keys ${extra.map((key) => `"${key}"`).join(',')}`);
  }

  if (typeof input.owner !== 'string') invalid('owner', input.owner);
  if (input.severity !== undefined && (typeof input.severity !== 'string' || !SEVERITIES.includes(input.severity))) {
    invalid('severity', input.severity);
  }
  if (input.assignees !== undefined) {
    if (!Array.isArray(input.assignees)) invalid('assignees', input.assignees);
    else {
      if (input.assignees.length > LIMITS.assignees) {
        problems.push(`The length of the field assignees is too long. Array must be of length <= ${LIMITS.assignees}.`);
      }
      input.assignees.forEach((assignee: unknown) => {
        const uid = (assignee as { uid?: unknown } | null)?.uid;
        if (typeof uid !== 'string') invalid('assignees,uid', uid);
      });
    }
  }
  if (input.category !== undefined && input.category !== null) {
    limitedString('category', 'category', LIMITS.category, input.category);
  }
  if (input.customFields !== undefined && !Array.isArray(input.customFields)) {
    invalid('customFields', input.customFields);
  }
  return problems;
}
