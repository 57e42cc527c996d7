// Splunk Enterprise as @threatlib/siem talks to it: the HTTP Event Collector (event, ack, health) and the
// management port's server info and search endpoints (export and oneshot), over the events HEC received. Strict the
// way Splunk is: authentication first, then headers (the channel), then the body, answering HEC's
// {"text", "code"} bodies with its documented HTTP statuses, and the management port's {"messages": [...]}.
// - https://help.splunk.com/splunk-enterprise/get-data-in/collect-http-event-data/format-events-for-http-event-collector
// - https://help.splunk.com/en/splunk-enterprise/get-data-in/collect-http-event-data/troubleshoot-http-event-collector
// - https://help.splunk.com/splunk-enterprise/get-data-in/collect-http-event-data/about-http-event-collector-indexer-acknowledgment
// - https://help.splunk.com/en/splunk-enterprise/get-data-in/collect-http-event-data/http-event-collector-rest-api-endpoints
// - https://help.splunk.com/splunk-enterprise/search/search-manual/9.3/export-search-results/export-data-using-the-splunk-rest-api
import { gunzipSync } from 'node:zlib';
import type { EmulatorRequest, EmulatorResponse, VendorEmulator } from '../vendor.js';
import { type IndexedEvent, type ResultRow, runSearch, SplError } from './splunk-spl.js';

/** A HEC token the emulator knows. */
export interface HecTokenSettings {
  /** The name of its HEC input (default `threatlib` for the first token, `input<n>` for the others). */
  name?: string;
  /** Indexes the token may write to (default: any). */
  indexes?: readonly string[];
  /** Where events without an index go (default `main`). */
  defaultIndex?: string;
  /** Indexer acknowledgement on: every request needs a channel, and answers an ackId. */
  ack?: boolean;
  disabled?: boolean;
}

/** Options of the Splunk emulator. */
export interface SplunkEmulatorOptions {
  /** HEC tokens by value (default: {@link SPLUNK_DEFAULTS}.hecToken with no restriction). */
  hecTokens?: Record<string, HecTokenSettings>;
  /** Management users, name to password (default: {@link SPLUNK_DEFAULTS}.username / password). */
  users?: Record<string, string>;
  /** Splunk authentication tokens accepted as `Authorization: Bearer` on the management port. */
  authTokens?: readonly string[];
  /** What `/services/server/info` reports (default `9.4.1`). */
  version?: string;
}

/** The credentials a default emulator accepts. */
export const SPLUNK_DEFAULTS = {
  hecToken: '3a6f1a2e-4b0c-4d7e-9f11-5c2b7d8e9a01',
  username: 'admin',
  password: 'emulator-password-9f1c',
  authToken: 'eyJraWQiOiJzcGx1bmsuc2VjcmV0IiwiYWxnIjoiSFM1MTIifQ.emulator-auth-token',
} as const;

/** An event HEC accepted, with what it was sent with. */
export interface ReceivedEvent extends IndexedEvent {
  /** The `event` field as sent (a string or an object). */
  event: unknown;
  /** The token it came with. */
  token: string;
  /** The request it came in (0 for the first request HEC accepted), to see batching. */
  request: number;
}

/** The Splunk emulator: what it received, and how to make it misbehave. */
export interface SplunkEmulator extends VendorEmulator {
  /** Every event HEC accepted, oldest first. */
  readonly events: readonly ReceivedEvent[];
  /** Every search the management port ran. */
  readonly searches: readonly { search: string; earliest: string | undefined; endpoint: string }[];
  /** How many event requests HEC accepted. */
  readonly acceptedRequests: number;
  /** `/services/collector/health` answers 503 "HEC is unhealthy, queues are full" while false. */
  healthy: boolean;
  /** Each ackId answers `false` to this many polls before `true`. */
  pendingAckPolls: number;
  /** Adds an event as if it had been indexed some time ago (for enrichment tests). */
  index(event: Partial<IndexedEvent> & { raw: string }): void;
}

const GUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** HEC's answer with its documented status. */
function hec(status: number, code: number, text: string, extra: Record<string, unknown> = {}): EmulatorResponse {
  return { status, body: { text, code, ...extra } };
}

/** The management port's error answer, in JSON or (as Splunk without output_mode=json) XML. */
function management(status: number, type: string, text: string, json: boolean): EmulatorResponse {
  if (json) return { status, body: { messages: [{ type, text }] } };
  const escaped = text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
  return {
    status,
    headers: { 'content-type': 'text/xml; charset=UTF-8' },
    body: `<?xml version="1.0" encoding="UTF-8"?>\n<response>\n  <messages>\n    <msg type="${type}">${escaped}</msg>\n  </messages>\n</response>\n`,
  };
}

/** Creates a Splunk emulator (serve it with `startEmulatorServer` or `startSiemEmulator`). */
export function createSplunkEmulator(options: SplunkEmulatorOptions = {}): SplunkEmulator {
  const tokens = options.hecTokens ?? { [SPLUNK_DEFAULTS.hecToken]: {} };
  const users = options.users ?? { [SPLUNK_DEFAULTS.username]: SPLUNK_DEFAULTS.password };
  const authTokens = new Set(options.authTokens ?? [SPLUNK_DEFAULTS.authToken]);
  const version = options.version ?? '9.4.1';
  const events: ReceivedEvent[] = [];
  const searches: { search: string; earliest: string | undefined; endpoint: string }[] = [];
  /** Per channel: ackId → polls left before it answers true (absent once answered true). */
  const acks = new Map<string, { next: number; pending: Map<number, number> }>();
  let accepted = 0;

  const emulator: SplunkEmulator = {
    vendor: 'splunk',
    healthy: true,
    pendingAckPolls: 0,
    get events() {
      return events;
    },
    get searches() {
      return searches;
    },
    get acceptedRequests() {
      return accepted;
    },
    handles: (request) => request.path.startsWith('/services/') || request.path.startsWith('/servicesNS/'),
    handle(request) {
      if (request.path.startsWith('/services/collector')) return collector(request);
      return managementPort(request);
    },
    busy(request) {
      if (request.path.startsWith('/services/collector')) return hec(503, 9, 'Server is busy');
      return management(
        503,
        'ERROR',
        'Search not executed: The maximum number of concurrent historical searches on this instance has been reached.',
        true,
      );
    },
    reset() {
      events.length = 0;
      searches.length = 0;
      acks.clear();
      accepted = 0;
      emulator.healthy = true;
      emulator.pendingAckPolls = 0;
    },
    index(event) {
      events.push({
        time: event.time ?? Date.now() / 1000,
        index: event.index ?? 'main',
        source: event.source ?? 'emulator',
        sourcetype: event.sourcetype ?? 'emulator',
        host: event.host ?? 'emulator',
        raw: event.raw,
        event: event.raw,
        token: '',
        request: -1,
      });
    },
  };

  /** The token of a HEC request, or HEC's refusal. */
  function authenticate(request: EmulatorRequest): { token: string; settings: HecTokenSettings } | EmulatorResponse {
    const header = request.headers.authorization;
    if (header === undefined) {
      if (request.query.has('token')) return hec(400, 16, 'Query string authorization is not enabled');
      return hec(401, 2, 'Token is required');
    }
    let token: string | undefined;
    const splunk = /^Splunk\s+(\S+)$/.exec(header);
    const basic = /^Basic\s+(\S+)$/.exec(header);
    if (splunk) token = splunk[1];
    else if (basic)
      token = Buffer.from(basic[1] as string, 'base64')
        .toString('utf8')
        .split(':')
        .slice(1)
        .join(':');
    if (!token) return hec(401, 3, 'Invalid authorization');
    const settings = tokens[token];
    if (!settings) return hec(403, 4, 'Invalid token');
    if (settings.disabled) return hec(403, 1, 'Token disabled');
    return { token, settings };
  }

  function collector(request: EmulatorRequest): EmulatorResponse {
    const path = request.path.replace(/\/+$/, '');
    if (path === '/services/collector/health' || path === '/services/collector/health/1.0') {
      if (request.method !== 'GET') return hec(405, 405, 'Method Not Allowed');
      return emulator.healthy ? hec(200, 17, 'HEC is healthy') : hec(503, 18, 'HEC is unhealthy, queues are full');
    }
    const isEvent =
      path === '/services/collector' ||
      path === '/services/collector/event' ||
      path === '/services/collector/event/1.0';
    const isAck = path === '/services/collector/ack';
    if (!isEvent && !isAck) return hec(404, 404, 'The requested URL was not found on this server.');
    if (request.method !== 'POST') return hec(405, 405, 'Method Not Allowed');
    const auth = authenticate(request);
    if ('status' in auth) return auth;
    const channel = headerValue(request, 'x-splunk-request-channel') ?? request.query.get('channel') ?? undefined;
    if (isAck) {
      if (!auth.settings.ack) return hec(400, 14, 'ACK is disabled');
      if (channel === undefined) return hec(400, 10, 'Data channel is missing');
      if (!GUID.test(channel)) return hec(400, 11, 'Invalid data channel');
      return ackQuery(request, channel);
    }
    if (auth.settings.ack && channel === undefined) return hec(400, 10, 'Data channel is missing');
    if (channel !== undefined && !GUID.test(channel)) return hec(400, 11, 'Invalid data channel');
    let body: string;
    try {
      body = decode(request);
    } catch {
      return hec(400, 6, 'Invalid data format');
    }
    if (body.trim() === '') return hec(400, 5, 'No data');
    const parsed = parseEvents(body, auth.token, auth.settings);
    if ('status' in parsed) return parsed;
    // All or nothing: HEC indexes no event of a request it refused.
    for (const event of parsed) events.push({ ...event, request: accepted });
    accepted += 1;
    if (auth.settings.ack && channel !== undefined) {
      let state = acks.get(channel);
      if (!state) {
        state = { next: 0, pending: new Map() };
        acks.set(channel, state);
      }
      const ackId = state.next++;
      state.pending.set(ackId, emulator.pendingAckPolls);
      return hec(200, 0, 'Success', { ackId });
    }
    return hec(200, 0, 'Success');
  }

  function ackQuery(request: EmulatorRequest, channel: string): EmulatorResponse {
    let ids: unknown;
    try {
      ids = (JSON.parse(request.body) as { acks?: unknown }).acks;
    } catch {
      return hec(400, 6, 'Invalid data format');
    }
    if (!Array.isArray(ids) || !ids.every((id) => Number.isInteger(id))) return hec(400, 6, 'Invalid data format');
    const state = acks.get(channel);
    const answer: Record<string, boolean> = {};
    for (const id of ids as number[]) {
      const left = state?.pending.get(id);
      if (left === undefined) {
        // Unknown, or already answered true: HEC forgets an ackId once it reported it indexed.
        answer[id] = false;
      } else if (left > 0) {
        state?.pending.set(id, left - 1);
        answer[id] = false;
      } else {
        state?.pending.delete(id);
        answer[id] = true;
      }
    }
    return { status: 200, body: { acks: answer } };
  }

  function parseEvents(
    body: string,
    token: string,
    settings: HecTokenSettings,
  ): Omit<ReceivedEvent, 'request'>[] | EmulatorResponse {
    const parsed: Omit<ReceivedEvent, 'request'>[] = [];
    let objects: unknown[];
    try {
      objects = concatenatedJson(body);
    } catch (error) {
      return hec(400, 6, 'Invalid data format', { 'invalid-event-number': (error as JsonAt).eventNumber ?? 0 });
    }
    for (const [n, object] of objects.entries()) {
      if (typeof object !== 'object' || object === null || Array.isArray(object)) {
        return hec(400, 6, 'Invalid data format', { 'invalid-event-number': n });
      }
      const record = object as Record<string, unknown>;
      if (!('event' in record)) return hec(400, 12, 'Event field is required', { 'invalid-event-number': n });
      const event = record.event;
      if (event === null || (typeof event === 'string' && event.trim() === '')) {
        return hec(400, 13, 'Event field cannot be blank', { 'invalid-event-number': n });
      }
      const time = record.time === undefined ? Date.now() / 1000 : Number(record.time);
      if (!Number.isFinite(time)) return hec(400, 6, 'Invalid data format', { 'invalid-event-number': n });
      const index = record.index === undefined ? (settings.defaultIndex ?? 'main') : String(record.index);
      if (settings.indexes && !settings.indexes.includes(index)) {
        return hec(400, 7, 'Incorrect index', { 'invalid-event-number': n });
      }
      if (record.fields !== undefined && (typeof record.fields !== 'object' || Array.isArray(record.fields))) {
        return hec(400, 15, 'Error in handling indexed fields', { 'invalid-event-number': n });
      }
      parsed.push({
        time,
        index,
        source: record.source === undefined ? 'http:emulator' : String(record.source),
        sourcetype: record.sourcetype === undefined ? 'httpevent' : String(record.sourcetype),
        host: record.host === undefined ? '127.0.0.1' : String(record.host),
        raw: typeof event === 'string' ? event : JSON.stringify(event),
        event,
        token,
      });
    }
    return parsed;
  }

  function managementPort(request: EmulatorRequest): EmulatorResponse {
    const params = new URLSearchParams(request.query);
    const form = (request.headers['content-type'] ?? '').startsWith('application/x-www-form-urlencoded');
    if (request.method === 'POST' && form) {
      for (const [name, value] of new URLSearchParams(request.body)) params.set(name, value);
    }
    const json = params.get('output_mode') === 'json';
    if (!authorised(request)) return management(401, 'WARN', 'call not properly authenticated', json);
    const path = request.path.replace(/\/+$/, '');
    if (path === '/services/data/inputs/http' || path === '/servicesNS/nobody/splunk_httpinput/data/inputs/http') {
      if (request.method !== 'GET') return management(405, 'ERROR', 'Method Not Allowed', json);
      return httpInputs(json);
    }
    if (path === '/services/server/info') {
      if (request.method !== 'GET') return management(405, 'ERROR', 'Method Not Allowed', json);
      return serverInfo(json);
    }
    const isExport = path === '/services/search/v2/jobs/export' || path === '/services/search/jobs/export';
    const isJobs = path === '/services/search/jobs' || path === '/services/search/v2/jobs';
    if (!isExport && !isJobs) return management(404, 'ERROR', `Not Found: ${path}`, json);
    if (request.method !== 'POST') return management(405, 'ERROR', 'Method Not Allowed', json);
    if (!form) return management(400, 'FATAL', 'Unsupported content type: expected a form body', json);
    if (!json) {
      return management(400, 'FATAL', 'The emulator answers searches in output_mode=json only', json);
    }
    const search = params.get('search')?.trim();
    if (!search) return management(400, 'FATAL', 'Empty search.', json);
    if (isJobs && params.get('exec_mode') !== 'oneshot') {
      return management(400, 'FATAL', 'The emulator runs search jobs with exec_mode=oneshot only', json);
    }
    const earliest = params.get('earliest_time') ?? undefined;
    const latest = params.get('latest_time') ?? undefined;
    const now = Date.now() / 1000;
    const from = earliest === undefined ? 0 : timeModifier(earliest, now);
    if (from === undefined) return management(400, 'FATAL', `Invalid earliest_time: ${earliest}`, json);
    const to = latest === undefined ? Number.POSITIVE_INFINITY : timeModifier(latest, now);
    if (to === undefined) return management(400, 'FATAL', `Invalid latest_time: ${latest}`, json);
    searches.push({ search, earliest, endpoint: path });
    let rows: ResultRow[];
    try {
      rows = runSearch(
        search,
        events.filter((e) => e.time >= from && e.time <= to),
      );
    } catch (error) {
      if (error instanceof SplError) return management(400, 'FATAL', error.message, json);
      throw error;
    }
    if (isExport) {
      const lines = rows.map((result, offset) =>
        JSON.stringify({ preview: false, offset, ...(offset === rows.length - 1 ? { lastrow: true } : {}), result }),
      );
      return { status: 200, headers: { 'content-type': 'application/json; charset=UTF-8' }, body: lines.join('\n') };
    }
    const fields = [...new Set(rows.flatMap((row) => Object.keys(row)))].map((name) => ({ name }));
    return {
      status: 200,
      body: { preview: false, init_offset: 0, messages: [], fields, results: rows, highlighted: {} },
    };
  }

  function authorised(request: EmulatorRequest): boolean {
    const header = request.headers.authorization ?? '';
    const basic = /^Basic\s+(\S+)$/.exec(header);
    if (basic) {
      const decoded = Buffer.from(basic[1] as string, 'base64').toString('utf8');
      const colon = decoded.indexOf(':');
      if (colon < 0) return false;
      return users[decoded.slice(0, colon)] === decoded.slice(colon + 1);
    }
    const bearer = /^Bearer\s+(\S+)$/.exec(header);
    return bearer !== null && authTokens.has(bearer[1] as string);
  }

  /** The HEC inputs as `data/inputs/http` lists them: `http://<name>` with the token and its settings. */
  function httpInputs(json: boolean): EmulatorResponse {
    if (!json) return management(400, 'FATAL', 'The emulator lists inputs in output_mode=json only', json);
    const entry = Object.entries(tokens).map(([token, settings], n) => ({
      name: `http://${settings.name ?? (n === 0 ? 'threatlib' : `input${n}`)}`,
      content: {
        token,
        disabled: settings.disabled === true,
        useACK: settings.ack === true,
        index: settings.defaultIndex ?? 'main',
        ...(settings.indexes ? { indexes: settings.indexes } : {}),
      },
    }));
    return {
      status: 200,
      body: { links: {}, entry, paging: { total: entry.length, perPage: 0, offset: 0 }, messages: [] },
    };
  }

  function serverInfo(json: boolean): EmulatorResponse {
    const content = { serverName: 'siem-emulator', version, build: 'emulator', product_type: 'enterprise' };
    if (!json) {
      return {
        status: 200,
        headers: { 'content-type': 'text/xml; charset=UTF-8' },
        body: `<?xml version="1.0" encoding="UTF-8"?>\n<feed><entry><content><s:dict><s:key name="version">${version}</s:key></s:dict></content></entry></feed>\n`,
      };
    }
    return {
      status: 200,
      body: {
        links: {},
        origin: 'https://127.0.0.1:8089/services/server/info',
        generator: { build: 'emulator', version },
        entry: [{ name: 'server-info', content }],
        paging: { total: 1, perPage: 30, offset: 0 },
        messages: [],
      },
    };
  }

  return emulator;
}

function headerValue(request: EmulatorRequest, name: string): string | undefined {
  const value = request.headers[name];
  return Array.isArray(value) ? value[0] : value;
}

function decode(request: EmulatorRequest): string {
  const encoding = headerValue(request, 'content-encoding');
  if (encoding === 'gzip') return gunzipSync(request.raw).toString('utf8');
  return request.body;
}

/** A JSON syntax error at one of the concatenated events. */
interface JsonAt extends Error {
  eventNumber?: number;
}

/** Parses concatenated JSON values (`{...}{...}`, whitespace allowed between them), as HEC reads a body. */
export function concatenatedJson(text: string): unknown[] {
  const values: unknown[] = [];
  let i = 0;
  while (i < text.length) {
    while (i < text.length && /\s/.test(text[i] as string)) i++;
    if (i >= text.length) break;
    const start = i;
    let depth = 0;
    let inString = false;
    for (; i < text.length; i++) {
      const c = text[i];
      if (inString) {
        if (c === '\\') i++;
        else if (c === '"') inString = false;
      } else if (c === '"') {
        inString = true;
      } else if (c === '{' || c === '[') {
        depth++;
      } else if (c === '}' || c === ']') {
        depth--;
        if (depth === 0) {
          i++;
          break;
        }
      } else if (depth === 0 && /\s/.test(c as string)) {
        break;
      }
    }
    try {
      values.push(JSON.parse(text.slice(start, i)));
    } catch (error) {
      const failure = error as JsonAt;
      failure.eventNumber = values.length;
      throw failure;
    }
  }
  return values;
}

/** A Splunk time modifier as epoch seconds: `now`, `0`, epoch seconds, or `-<n><unit>` (snapping ignored). */
function timeModifier(value: string, now: number): number | undefined {
  if (value === 'now') return now;
  if (/^\d+(\.\d+)?$/.test(value)) return Number(value);
  const match = /^-(\d+)(s|m|h|d|w|mon|y)(@\w+)?$/.exec(value);
  if (!match) return undefined;
  const seconds: Record<string, number> = {
    s: 1,
    m: 60,
    h: 3600,
    d: 86_400,
    w: 604_800,
    mon: 2_592_000,
    y: 31_536_000,
  };
  return now - Number(match[1]) * (seconds[match[2] as string] as number);
}
