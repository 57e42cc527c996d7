// IBM QRadar as @threatlib/siem talks to it: the REST API (system/about, reference sets, Ariel searches, offense
// notes) and the TCP and TLS syslog listeners whose LEEF events Ariel then searches. Strict the way QRadar is:
// authentication first (SEC token or basic), then the Version and Accept headers, then the parameters and body,
// each failure answered with QRadar's error envelope {http_response: {code, message}, code, description, details,
// message}, its documented HTTP status and unique code. The emulated release is QRadar 7.5.0 Update Package 8:
// API 22.0 (20.0 and 21.0 supported, 19.x deprecated and answered with a Deprecated header, older ones refused).
// - Versions, authentication, Version header, deprecation (410 for removed endpoints, 422 for removed versions):
//   https://ibmsecuritydocs.github.io/qradar_api_overview/c_rest_api_getting_started.html
// - Error envelope and HTTP messages: https://ibmsecuritydocs.github.io/qradar_api_overview/c_rest_api_errors.html
// - Filter syntax: https://ibmsecuritydocs.github.io/qradar_api_overview/c_rest_api_filtering.html
// - Endpoints (API 20.0, unchanged to 26.0): https://ibmsecuritydocs.github.io/qradar_api_20.0/
//   20.0--reference_data-sets-POST.html, 20.0--reference_data-sets-name-GET.html, 20.0--reference_data-sets-name-POST.html,
//   20.0--reference_data-sets-bulk_load-namespace-name-domain_id-POST.html, 20.0--ariel-searches-POST.html,
//   20.0--ariel-searches-search_id-GET.html, 20.0--ariel-searches-search_id-results-GET.html,
//   20.0--siem-offenses-offense_id-GET.html, 20.0--siem-offenses-offense_id-notes-POST.html, 20.0--system-about-GET.html
// - The 401 and 403 bodies (codes 18 and 26) as QRadar sends them, e.g. IBM's countMVS tests and public mocks.
// The wording of a refused token or password is the emulator's: IBM documents the envelope, not that sentence.
import { readFileSync } from 'node:fs';
import { isIP } from 'node:net';
import type { EmulatorRequest, EmulatorResponse, VendorEmulator } from '../vendor.js';
import { AqlError, type ArielEvent, parseAql, runAql } from './qradar-aql.js';
import { type SyslogListener, type SyslogMessage, startSyslogListener } from './qradar-syslog.js';

/** A LEEF reader the emulator is given (the strict one of @threatlib/siem in its tests). */
export type LeefReader = (line: string) => { eventId: string; attributes: Record<string, string> };

/** Options of the QRadar emulator. */
export interface QradarEmulatorOptions {
  /** Authorized service tokens accepted in `SEC` (default: {@link QRADAR_DEFAULTS}.token). */
  tokens?: readonly string[];
  /** Users for basic authentication, name to password (default: {@link QRADAR_DEFAULTS}.username / password). */
  users?: Record<string, string>;
  /** Reads the LEEF of each syslog message; without it, messages are kept as unparsed payloads. */
  parseLeef?: LeefReader;
  /** Custom event properties AQL may name besides the LEEF keys received (default `['riskScore']`). */
  customProperties?: readonly string[];
  /** Longest syslog message kept, in bytes (QRadar's default "Max TCP Syslog Payload Length": 4096). */
  maxPayloadBytes?: number;
  /** Offenses that exist, by id. */
  offenses?: readonly number[];
  /** Domains that exist besides the shared one (default `[0]`, the Default Domain). */
  domains?: readonly number[];
  /** Status polls of an Ariel search that answer before it is COMPLETED (default 1). */
  arielPolls?: number;
  /**
   * Whether a status poll with `Prefer: wait=N` waits for the search (default true: it completes at once); false
   * answers it like a poll without the header (a server or proxy that drops `Prefer`).
   */
  honourPreferWait?: boolean;
}

/** The credentials a default emulator accepts. */
export const QRADAR_DEFAULTS = {
  token: '4c1f9e2a-7b3d-4e8f-a6c5-2d9b0e1f3a7c',
  username: 'admin',
  password: 'qradar-emulator-password-5e2b',
} as const;

/** The API versions the emulated release serves. */
const LATEST_VERSION = 22.0;
const OLDEST_SUPPORTED = 20.0;
const OLDEST_DEPRECATED = 19.0;

/** A syslog message the listeners received, as Ariel keeps it. */
export interface QradarEvent extends ArielEvent {
  /** The LEEF EventID, when the payload was LEEF the reader accepted. */
  eventId: string | undefined;
  /** Why the LEEF reader refused the payload (an event QRadar would store unparsed). */
  leefError: string | undefined;
  /** The syslog header's HOSTNAME (QRadar's log source identifier), when it had one. */
  hostname: string | undefined;
  truncated: boolean;
  framing: SyslogMessage['framing'];
  transport: SyslogMessage['transport'];
}

/** One element of a reference set. */
export interface ReferenceSetElement {
  value: string;
  source: string;
  first_seen: number;
  last_seen: number;
  domain_id: number | null;
}

/** A reference set. */
export interface ReferenceSet {
  name: string;
  element_type: string;
  timeout_type: string;
  time_to_live: string | undefined;
  creation_time: number;
  collection_id: number;
  elements: Map<string, ReferenceSetElement>;
}

/** A note on an offense. */
export interface OffenseNote {
  id: number;
  create_time: number;
  username: string;
  note_text: string;
}

/** The QRadar emulator: what it received, and its scripted state. */
export interface QradarEmulator extends VendorEmulator {
  /** Every syslog message received, as an Ariel event, oldest first. */
  readonly events: readonly QradarEvent[];
  readonly referenceSets: ReadonlyMap<string, ReferenceSet>;
  /** Every Ariel search created. */
  readonly searches: readonly { search_id: string; query_expression: string }[];
  /** Offenses by id, with their notes. */
  readonly offenses: ReadonlyMap<number, { id: number; notes: OffenseNote[] }>;
  /** Port of the plain TCP syslog listener (0 until `listen`). */
  readonly syslogPort: number;
  /** Port of the TLS syslog listener (0 until `listen`). */
  readonly syslogTlsPort: number;
  /** Status polls of an Ariel search that answer before it is COMPLETED. */
  arielPolls: number;
  addOffense(id: number): void;
  /** Starts the syslog listeners, TLS with `tls` or the bundled test certificate (trust `TEST_CA`). */
  listen(tls?: { key: string; cert: string }): Promise<void>;
  /** Stops the syslog listeners. */
  closeListeners(): Promise<void>;
}

const HTTP_MESSAGES: Record<number, string> = {
  400: 'Invalid syntax for this request was provided.',
  401: 'You are unauthorized to access the requested resource. Please log in.',
  403: 'Your account is not authorized to access the requested resource.',
  404: 'We could not find the resource you requested. Please refer to the documentation for the list of resources.',
  405: 'This method type is not currently supported.',
  406: 'Acceptance header is invalid for this endpoint resource.',
  409: 'The request could not be completed due to a conflict with the current state of the resource.',
  410: 'The requested resource is no longer available and has been permanently removed.',
  415: 'The requested resource does not support the media type provided.',
  422: 'The request was well-formed but was unable to be followed due to semantic errors.',
  500: 'Unexpected internal server error.',
  503: 'The server is currently unavailable.',
};

/** QRadar's error envelope with its documented status. */
export function qradarError(
  status: number,
  code: number,
  message: string,
  description = '',
  headers?: Record<string, string>,
): EmulatorResponse {
  return {
    status,
    ...(headers ? { headers } : {}),
    body: {
      http_response: { code: status, message: HTTP_MESSAGES[status] ?? '' },
      code,
      description,
      details: {},
      message,
    },
  };
}

const ELEMENT_TYPES = new Set(['ALN', 'ALNIC', 'NUM', 'IP', 'PORT', 'DATE']);
const TIMEOUT_TYPES = new Set(['UNKNOWN', 'FIRST_SEEN', 'LAST_SEEN']);
const RFC5424 = /^<(\d{1,3})>1 (\S+) (\S+) (\S+) (\S+) (\S+) (-|\[[^\]]*\](?:\[[^\]]*\])*) ?([\s\S]*)$/;
const RFC3164 = /^<(\d{1,3})>[A-Z][a-z]{2} [ \d]\d \d{2}:\d{2}:\d{2} (\S+) ([\s\S]*)$/;

/** Creates a QRadar emulator (serve it with `startSiemEmulator`, which also starts its syslog listeners). */
export function createQradarEmulator(options: QradarEmulatorOptions = {}): QradarEmulator {
  const tokens = new Set(options.tokens ?? [QRADAR_DEFAULTS.token]);
  const users = options.users ?? { [QRADAR_DEFAULTS.username]: QRADAR_DEFAULTS.password };
  const customProperties = new Set(options.customProperties ?? ['riskScore']);
  const maxPayloadBytes = options.maxPayloadBytes ?? 4096;
  const domains = new Set(options.domains ?? [0]);
  const events: QradarEvent[] = [];
  const sets = new Map<string, ReferenceSet>();
  const searches: { search_id: string; query_expression: string; row: Record<string, number | null>; polls: number }[] =
    [];
  const offenses = new Map<number, { id: number; notes: OffenseNote[] }>();
  const listeners: SyslogListener[] = [];
  let nextId = 1;

  const addOffense = (id: number) => {
    if (!offenses.has(id)) offenses.set(id, { id, notes: [] });
  };
  for (const id of options.offenses ?? []) addOffense(id);

  const receive = (message: SyslogMessage) => {
    const now = Date.now();
    const header = RFC5424.exec(message.text) ?? RFC3164.exec(message.text);
    const hostname = header ? (header.length === 9 ? header[3] : header[2]) : undefined;
    const body = header ? ((header.length === 9 ? header[8] : header[3]) ?? '') : message.text;
    let eventId: string | undefined;
    let leefError: string | undefined;
    let properties: Record<string, string> = {};
    if (options.parseLeef && body.startsWith('LEEF:')) {
      try {
        const leef = options.parseLeef(body);
        eventId = leef.eventId;
        properties = leef.attributes;
      } catch (error) {
        leefError = (error as Error).message;
      }
    } else if (body.startsWith('LEEF:')) {
      leefError = 'no LEEF reader configured';
    }
    const severity = Math.min(10, Math.max(0, Number(properties.sev) || 0));
    events.push({
      starttime: now,
      devicetime: deviceTime(properties) ?? now,
      sourceip: properties.src ?? message.remoteAddress.replace(/^::ffff:/, ''),
      destinationip: properties.dst ?? '0.0.0.0',
      severity,
      // QRadar weighs severity, credibility and relevance into magnitude; with the last two at their midpoint,
      // magnitude follows severity.
      magnitude: severity,
      payload: message.text,
      properties,
      eventId,
      leefError,
      hostname,
      truncated: message.truncated,
      framing: message.framing,
      transport: message.transport,
    });
  };

  const authenticate = (request: EmulatorRequest): EmulatorResponse | undefined => {
    const sec = request.headers.sec;
    const authorization = request.headers.authorization;
    if (typeof sec === 'string' && sec !== '') {
      return tokens.has(sec)
        ? undefined
        : qradarError(401, 18, 'Invalid authorization token: the SEC token is not an authorized service token');
    }
    if (typeof authorization === 'string' && /^basic /i.test(authorization)) {
      const decoded = Buffer.from(authorization.slice(6).trim(), 'base64').toString('utf8');
      const colon = decoded.indexOf(':');
      const user = colon === -1 ? decoded : decoded.slice(0, colon);
      const password = colon === -1 ? '' : decoded.slice(colon + 1);
      return Object.hasOwn(users, user) && users[user] === password
        ? undefined
        : qradarError(401, 18, 'Invalid credentials: the user name or password is incorrect');
    }
    return qradarError(
      401,
      18,
      'No SEC header present in request. Please provide it via "SEC: token". You may also use BASIC authentication parameters if this host supports it. e.g. "Authorization: Basic base64Encoding"',
    );
  };

  /** The Version header: absent means the latest; a version older than the release keeps is refused. */
  const checkVersion = (request: EmulatorRequest): { headers: Record<string, string> } | EmulatorResponse => {
    const header = request.headers.version;
    if (header === undefined) return { headers: {} };
    const text = Array.isArray(header) ? header.join(',') : header;
    if (!/^\d+(\.\d+)?$/.test(text.trim())) {
      return qradarError(422, 1005, `Invalid version header value "${text}": expected a version such as 22.0`);
    }
    const version = Number(text);
    if (version < OLDEST_DEPRECATED) {
      return qradarError(
        422,
        1005,
        `Version ${text} is no longer supported. Supported versions: ${OLDEST_SUPPORTED.toFixed(1)} to ${LATEST_VERSION.toFixed(1)}`,
      );
    }
    return { headers: version < OLDEST_SUPPORTED ? { deprecated: 'true' } : {} };
  };

  const checkAccept = (request: EmulatorRequest): EmulatorResponse | undefined => {
    const accept = request.headers.accept;
    if (accept === undefined) return undefined;
    const types = accept.split(',').map((t) => t.split(';')[0]?.trim().toLowerCase());
    if (types.some((t) => t === 'application/json' || t === '*/*' || t === 'application/*')) return undefined;
    return qradarError(
      406,
      1008,
      `None of the accepted types (${accept}) can be produced; this endpoint produces application/json`,
    );
  };

  const setInfo = (set: ReferenceSet) => ({
    collection_id: set.collection_id,
    creation_time: set.creation_time,
    element_type: set.element_type,
    name: set.name,
    namespace: 'SHARED',
    number_of_elements: set.elements.size,
    ...(set.time_to_live === undefined ? {} : { time_to_live: set.time_to_live }),
    timeout_type: set.timeout_type,
  });

  /** Why `value` cannot be an element of `set`, or undefined. */
  const elementProblem = (set: ReferenceSet, value: string): string | undefined => {
    if (value === '') return 'The value must not be empty';
    switch (set.element_type) {
      case 'IP':
        return isIP(value) ? undefined : `${value} is not a valid IP address`;
      case 'NUM':
      case 'DATE':
        return /^-?\d+(\.\d+)?$/.test(value) ? undefined : `${value} is not a valid number`;
      case 'PORT':
        return /^\d+$/.test(value) && Number(value) <= 65_535 ? undefined : `${value} is not a valid port`;
      default:
        return undefined;
    }
  };

  const addElement = (set: ReferenceSet, value: string, source: string, domain: number | null) => {
    const key = set.element_type === 'ALNIC' ? value.toLowerCase() : value;
    const now = Date.now();
    const existing = set.elements.get(key);
    if (existing) {
      existing.last_seen = now;
      existing.source = source;
    } else {
      set.elements.set(key, { value, source, first_seen: now, last_seen: now, domain_id: domain });
    }
  };

  const referenceData = (request: EmulatorRequest, segments: string[]): EmulatorResponse => {
    // segments after /api/reference_data/sets
    if (segments.length === 0) {
      if (request.method !== 'POST' && request.method !== 'GET') return qradarError(405, 0, 'Method not allowed');
      if (request.method === 'GET') return { status: 200, body: [...sets.values()].map(setInfo) };
      const name = request.query.get('name');
      const elementType = request.query.get('element_type');
      if (!name)
        return qradarError(
          422,
          1005,
          'Missing required parameter "name" from query parameters',
          'A request parameter is not valid',
        );
      if (!elementType || !ELEMENT_TYPES.has(elementType)) {
        return qradarError(
          422,
          1005,
          `element_type must be one of ALN, ALNIC, NUM, IP, PORT, DATE; got ${JSON.stringify(elementType ?? '')}`,
          'A request parameter is not valid',
        );
      }
      const timeoutType = request.query.get('timeout_type') ?? 'UNKNOWN';
      if (!TIMEOUT_TYPES.has(timeoutType)) {
        return qradarError(
          422,
          1005,
          `timeout_type must be FIRST_SEEN, LAST_SEEN or UNKNOWN`,
          'A request parameter is not valid',
        );
      }
      if (sets.has(name)) {
        return qradarError(
          409,
          1004,
          `The reference set ${name} already exists`,
          'The reference set could not be created, the name provided is already in use. Please change the name and try again.',
        );
      }
      const set: ReferenceSet = {
        name,
        element_type: elementType,
        timeout_type: timeoutType,
        time_to_live: request.query.get('time_to_live') ?? undefined,
        creation_time: Date.now(),
        collection_id: nextId++,
        elements: new Map(),
      };
      sets.set(name, set);
      return { status: 201, body: setInfo(set) };
    }
    if (segments[0] === 'bulk_load') {
      if (segments.length === 2) {
        return qradarError(
          410,
          0,
          'POST /reference_data/sets/bulk_load/{name} has been removed; use /reference_data/sets/bulk_load/{namespace}/{name}/{domain_id}',
        );
      }
      if (segments.length !== 4) return notFound();
      if (request.method !== 'POST') return qradarError(405, 0, 'Method not allowed');
      const [, namespace, name, domain] = segments as [string, string, string, string];
      const type = String(request.headers['content-type'] ?? '')
        .split(';')[0]
        ?.trim()
        .toLowerCase();
      if (type !== 'application/json') {
        return qradarError(415, 1009, `Content-Type ${type || '(none)'} is not supported: send application/json`);
      }
      let data: unknown;
      try {
        data = JSON.parse(request.body);
      } catch {
        return qradarError(
          400,
          1001,
          'The message body is not valid JSON',
          'An error occurred parsing the JSON formatted message body',
        );
      }
      if (!Array.isArray(data) || data.some((v) => typeof v !== 'string')) {
        return qradarError(
          400,
          1001,
          'Expected a JSON array of strings',
          'An error occurred parsing the JSON formatted message body',
        );
      }
      if (namespace !== 'SHARED' && namespace !== 'TENANT') {
        return qradarError(
          422,
          1015,
          `Namespace ${namespace} is not valid`,
          'The namespace parameter must be either SHARED or TENANT',
        );
      }
      if (namespace === 'TENANT') {
        return qradarError(422, 1012, 'This QRadar has no tenants', 'The namespace value of SHARED was expected');
      }
      let domainId: number | null = null;
      if (domain !== 'SHARED') {
        if (!/^\d+$/.test(domain))
          return qradarError(
            422,
            1014,
            `domain_id ${domain} is not a number or SHARED`,
            'The domain_id parameter must be specified',
          );
        if (!domains.has(Number(domain)))
          return qradarError(404, 1011, `Domain ${domain} not found`, 'Domain not found');
        domainId = Number(domain);
      }
      const set = sets.get(name);
      if (!set) return qradarError(404, 1002, `${name} does not exist`, 'The reference set does not exist');
      for (const value of data as string[]) {
        const problem = elementProblem(set, value);
        if (problem) return qradarError(422, 1005, problem, 'A request parameter is not valid');
      }
      for (const value of data as string[]) addElement(set, value, 'reference data api', domainId);
      return { status: 200, body: setInfo(set) };
    }
    if (segments.length !== 1) return notFound();
    const name = segments[0] as string;
    const set = sets.get(name);
    if (request.method === 'GET') {
      if (!set) return qradarError(404, 1002, `${name} does not exist`, 'The reference set does not exist.');
      const filter = request.query.get('filter');
      let elements = [...set.elements.values()];
      if (filter !== null) {
        const wanted = parseValueFilter(filter);
        if (wanted === undefined) {
          return qradarError(
            422,
            1005,
            `The filter ${JSON.stringify(filter)} could not be parsed`,
            'A request parameter is not valid',
          );
        }
        elements = elements.filter((e) =>
          set.element_type === 'ALNIC' ? e.value.toLowerCase() === wanted.toLowerCase() : e.value === wanted,
        );
      }
      return { status: 200, body: { ...setInfo(set), data: elements.slice(0, 20) } };
    }
    if (request.method !== 'POST') return qradarError(405, 0, 'Method not allowed');
    if (!set) return qradarError(404, 1002, `${name} does not exist`, 'The reference set does not exist');
    const value = request.query.get('value');
    if (value === null) {
      return qradarError(
        422,
        1005,
        'Missing required parameter "value" from query parameters',
        'A request parameter is not valid',
      );
    }
    const problem = elementProblem(set, value);
    if (problem) return qradarError(422, 1005, problem, 'A request parameter is not valid');
    addElement(set, value, request.query.get('source') ?? 'reference data api', null);
    return { status: 200, body: setInfo(set) };
  };

  const ariel = (request: EmulatorRequest, segments: string[]): EmulatorResponse => {
    if (segments.length === 0) {
      if (request.method !== 'POST') return qradarError(405, 0, 'Method not allowed');
      const query = request.query.get('query_expression');
      if (!query) {
        return qradarError(
          422,
          1005,
          'Missing required parameter "query_expression" from query parameters',
          'A request parameter is not valid',
        );
      }
      const knownProperties = new Set(customProperties);
      for (const event of events) for (const key of Object.keys(event.properties)) knownProperties.add(key);
      let row: Record<string, number | null>;
      try {
        row = runAql(parseAql(query, Date.now(), knownProperties), events);
      } catch (error) {
        if (!(error instanceof AqlError)) throw error;
        return qradarError(422, 2000, error.message, 'The query_expression contains invalid AQL syntax.');
      }
      const search_id = `emulator-${nextId++}`;
      const search = { search_id, query_expression: query, row, polls: emulator.arielPolls };
      searches.push(search);
      return { status: 201, body: searchStatus(search, 'WAIT') };
    }
    const search = searches.find((s) => s.search_id === segments[0]);
    if (!search) return qradarError(404, 1002, `Search ${segments[0]} does not exist`, 'The search does not exist.');
    if (segments.length === 1) {
      if (request.method !== 'GET') return qradarError(405, 0, 'Method not allowed');
      const prefer =
        options.honourPreferWait === false ? null : /wait=(\d+)/.exec(String(request.headers.prefer ?? ''));
      if (search.polls > 0 && prefer === null) {
        search.polls -= 1;
        return { status: 200, body: searchStatus(search, 'EXECUTE') };
      }
      search.polls = 0;
      return { status: 200, body: searchStatus(search, 'COMPLETED') };
    }
    if (segments.length === 2 && segments[1] === 'results') {
      if (request.method !== 'GET') return qradarError(405, 0, 'Method not allowed');
      if (search.polls > 0) {
        return qradarError(
          404,
          1003,
          `Search ${search.search_id} is still in progress`,
          'Search results not found. The search is still in progress.',
        );
      }
      return { status: 200, body: { events: [search.row] } };
    }
    return notFound();
  };

  const siem = (request: EmulatorRequest, segments: string[]): EmulatorResponse => {
    if (segments[0] !== 'offenses' || segments.length < 2 || segments.length > 3) return notFound();
    const idText = segments[1] as string;
    if (!/^\d+$/.test(idText)) {
      return qradarError(
        422,
        1005,
        `offense_id ${JSON.stringify(idText)} is not a number`,
        'A request parameter is not valid',
      );
    }
    const offense = offenses.get(Number(idText));
    if (segments.length === 2) {
      if (request.method !== 'GET') return qradarError(405, 0, 'Method not allowed');
      if (!offense) return qradarError(404, 1002, `Offense ${idText} does not exist`, 'The offense does not exist.');
      return { status: 200, body: { id: offense.id, status: 'OPEN', description: `Offense ${offense.id}` } };
    }
    if (segments[2] !== 'notes') return notFound();
    if (request.method !== 'POST') return qradarError(405, 0, 'Method not allowed');
    if (!offense)
      return qradarError(
        404,
        1002,
        `Offense ${idText} does not exist`,
        'No offense was found for the provided offense_id.',
      );
    const text = request.query.get('note_text');
    if (!text) {
      return qradarError(
        422,
        1005,
        'Missing required parameter "note_text" from query parameters',
        'A request parameter is not valid',
      );
    }
    const note: OffenseNote = { id: nextId++, create_time: Date.now(), username: 'threatlib', note_text: text };
    offense.notes.push(note);
    return { status: 201, body: note };
  };

  const emulator: QradarEmulator = {
    vendor: 'qradar',
    arielPolls: options.arielPolls ?? 1,
    get events() {
      return events;
    },
    get referenceSets() {
      return sets;
    },
    get searches() {
      return searches;
    },
    get offenses() {
      return offenses;
    },
    get syslogPort() {
      return listeners[0]?.port ?? 0;
    },
    get syslogTlsPort() {
      return listeners[1]?.port ?? 0;
    },
    addOffense,
    handles: (request) => /^\/api\/(reference_data|ariel|siem|system|help)(\/|$)/.test(request.path),
    handle(request) {
      const refused = authenticate(request);
      if (refused) return refused;
      const version = checkVersion(request);
      if ('status' in version) return version;
      const accept = checkAccept(request);
      if (accept) return accept;
      const response = route(request);
      return { ...response, headers: { ...version.headers, ...response.headers } };
    },
    busy: () => qradarError(503, 1010, 'The server is temporarily unavailable. Please try again later.'),
    reset() {
      events.length = 0;
      sets.clear();
      searches.length = 0;
      for (const offense of offenses.values()) offense.notes.length = 0;
      emulator.arielPolls = options.arielPolls ?? 1;
    },
    async listen(tls) {
      if (listeners.length > 0) return;
      listeners.push(await startSyslogListener({ maxPayloadBytes, onMessage: receive }));
      listeners.push(
        await startSyslogListener({
          maxPayloadBytes,
          onMessage: receive,
          tls: tls ?? {
            key: readFileSync(new URL('../../certs/server-key.pem', import.meta.url), 'utf8'),
            cert: readFileSync(new URL('../../certs/server.pem', import.meta.url), 'utf8'),
          },
        }),
      );
    },
    async closeListeners() {
      await Promise.all(listeners.splice(0).map((listener) => listener.close()));
    },
  };

  const route = (request: EmulatorRequest): EmulatorResponse => {
    const segments = request.path.split('/').slice(2).map(decodeURIComponent);
    const [area, ...rest] = segments;
    if (area === 'system' && rest.length === 1 && rest[0] === 'about') {
      if (request.method !== 'GET') return qradarError(405, 0, 'Method not allowed');
      return {
        status: 200,
        body: {
          release_name: '7.5.0',
          build_version: '2022.2.0.20230719120000',
          external_version: '7.5.0 UpdatePackage 8',
          fips_enabled: false,
        },
      };
    }
    if (area === 'reference_data' && rest[0] === 'sets') return referenceData(request, rest.slice(1));
    if (area === 'ariel' && rest[0] === 'searches') return ariel(request, rest.slice(1));
    if (area === 'siem') return siem(request, rest);
    return notFound();
  };

  return emulator;
}

function notFound(): EmulatorResponse {
  return qradarError(404, 1002, 'The requested endpoint does not exist', 'The resource does not exist.');
}

function searchStatus(search: { search_id: string; query_expression: string }, status: string) {
  return {
    cursor_id: search.search_id,
    search_id: search.search_id,
    status,
    progress: status === 'COMPLETED' ? 100 : status === 'EXECUTE' ? 50 : 0,
    query_string: search.query_expression,
    record_count: status === 'COMPLETED' ? 1 : 0,
    error_messages: [],
    save_results: false,
    desired_retention_time_msec: 86_400_000,
  };
}

/** The value of a `value = "..."` (or `'...'`) filter, `\` escaping the quote and itself; undefined otherwise. */
function parseValueFilter(filter: string): string | undefined {
  const match = /^\s*value\s*=\s*(?:"((?:[^"\\]|\\.)*)"|'((?:[^'\\]|\\.)*)')\s*$/.exec(filter);
  if (!match) return undefined;
  return (match[1] ?? match[2] ?? '').replace(/\\(.)/g, '$1');
}

/** Epoch ms of a LEEF event's `devTime` (epoch ms, or a date `Date.parse` reads with the ISO `devTimeFormat`). */
function deviceTime(attributes: Record<string, string>): number | undefined {
  const text = attributes.devTime;
  if (text === undefined) return undefined;
  if (/^\d+$/.test(text)) return Number(text);
  const time = Date.parse(text);
  return Number.isNaN(time) ? undefined : time;
}
