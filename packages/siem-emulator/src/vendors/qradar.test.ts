import { request } from 'node:https';
import { connect as connectTcp } from 'node:net';
import { connect as connectTls } from 'node:tls';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { TEST_CA } from '../emulator.js';
import { type RunningSiemEmulator, startSiemEmulator } from '../siem-emulator.js';
import { QRADAR_DEFAULTS } from './qradar.js';
import { AqlError, parseAql, runAql } from './qradar-aql.js';

interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: Record<string, unknown>;
}

const AUTH = { SEC: QRADAR_DEFAULTS.token, Version: '22.0', Accept: 'application/json' };

function call(
  emulator: RunningSiemEmulator,
  method: string,
  path: string,
  headers: Record<string, string> = AUTH,
  body?: string,
): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = request(`${emulator.url}${path}`, { method, headers, ca: TEST_CA }, (res) => {
      let text = '';
      res.on('data', (chunk) => {
        text += chunk;
      });
      res.on('end', () =>
        resolve({ status: res.statusCode ?? 0, headers: res.headers, body: JSON.parse(text || '{}') }),
      );
    });
    req.on('error', reject);
    req.end(body);
  });
}

/** Sends raw bytes to a syslog listener and waits until the listener closed the connection. */
function syslog(port: number, bytes: string, tls: boolean): Promise<void> {
  return new Promise((resolve, reject) => {
    const socket = tls ? connectTls({ host: '127.0.0.1', port, ca: TEST_CA }) : connectTcp({ host: '127.0.0.1', port });
    socket.once(tls ? 'secureConnect' : 'connect', () => socket.end(bytes));
    socket.on('error', reject);
    socket.on('close', () => resolve());
  });
}

function envelope(answer: Answer): { status: number; code: unknown; http: unknown } {
  return { status: answer.status, code: answer.body.code, http: (answer.body.http_response as { code: number }).code };
}

describe('the QRadar emulator', () => {
  let emulator: RunningSiemEmulator;
  beforeEach(async () => {
    emulator = await startSiemEmulator({
      qradar: {
        offenses: [42],
        parseLeef: (line) => {
          const [, , , , eventId, , attributes = ''] = line.split('|');
          return {
            eventId: eventId ?? '',
            attributes: Object.fromEntries(attributes.split('^').map((pair) => pair.split('=') as [string, string])),
          };
        },
      },
    });
  });
  afterEach(async () => {
    await emulator.close();
  });

  it('checks authentication first: no credentials, a wrong token, a wrong password → 401 with code 18', async () => {
    const none = await call(emulator, 'GET', '/api/system/about', { Version: '1.0' });
    expect(envelope(none)).toEqual({ status: 401, code: 18, http: 401 });
    expect(none.body.message).toMatch(/^No SEC header present in request/);
    const wrongToken = await call(emulator, 'GET', '/api/system/about', { ...AUTH, SEC: 'nope' });
    expect(envelope(wrongToken)).toEqual({ status: 401, code: 18, http: 401 });
    const basic = `Basic ${Buffer.from(`${QRADAR_DEFAULTS.username}:wrong`).toString('base64')}`;
    const wrongPassword = await call(emulator, 'GET', '/api/system/about', { Authorization: basic });
    expect(envelope(wrongPassword)).toEqual({ status: 401, code: 18, http: 401 });
    const right = `Basic ${Buffer.from(`${QRADAR_DEFAULTS.username}:${QRADAR_DEFAULTS.password}`).toString('base64')}`;
    expect((await call(emulator, 'GET', '/api/system/about', { Authorization: right })).status).toBe(200);
  });

  it('then the Version header (a removed version → 422, a deprecated one → Deprecated) and Accept (→ 406)', async () => {
    const removed = await call(emulator, 'GET', '/api/system/about', { ...AUTH, Version: '12.0' });
    expect(envelope(removed)).toMatchObject({ status: 422 });
    expect(removed.body.message).toMatch(/Version 12\.0 is no longer supported/);
    expect((await call(emulator, 'GET', '/api/system/about', { ...AUTH, Version: 'latest' })).status).toBe(422);
    const deprecated = await call(emulator, 'GET', '/api/system/about', { ...AUTH, Version: '19.0' });
    expect(deprecated.status).toBe(200);
    expect(deprecated.headers.deprecated).toBeDefined();
    const newer = await call(emulator, 'GET', '/api/system/about', { ...AUTH, Version: '26.0' });
    expect(newer.status).toBe(200);
    expect(newer.body).toMatchObject({ external_version: '7.5.0 UpdatePackage 8' });
    expect((await call(emulator, 'GET', '/api/system/about', { ...AUTH, Accept: 'text/xml' })).status).toBe(406);
  });

  it('creates reference sets: 201, then 409 code 1004 for the same name, 422 code 1005 without a valid element_type', async () => {
    const created = await call(emulator, 'POST', '/api/reference_data/sets?name=ioc%20set&element_type=ALNIC');
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ name: 'ioc set', element_type: 'ALNIC', number_of_elements: 0 });
    expect(
      envelope(await call(emulator, 'POST', '/api/reference_data/sets?name=ioc%20set&element_type=ALNIC')),
    ).toEqual({ status: 409, code: 1004, http: 409 });
    expect(envelope(await call(emulator, 'POST', '/api/reference_data/sets?name=x&element_type=TEXT'))).toEqual({
      status: 422,
      code: 1005,
      http: 422,
    });
    expect(envelope(await call(emulator, 'POST', '/api/reference_data/sets?element_type=IP'))).toMatchObject({
      status: 422,
      code: 1005,
    });
  });

  it('adds elements one by one and in bulk, refusing what QRadar refuses', async () => {
    const one = '/api/reference_data/sets/ips?value=198.51.100.7&source=threatlib';
    expect(envelope(await call(emulator, 'POST', one))).toEqual({ status: 404, code: 1002, http: 404 });
    await call(emulator, 'POST', '/api/reference_data/sets?name=ips&element_type=IP');
    expect((await call(emulator, 'POST', one)).status).toBe(200);
    expect(envelope(await call(emulator, 'POST', '/api/reference_data/sets/ips?value=evil.com'))).toMatchObject({
      status: 422,
      code: 1005,
    });
    const json = { ...AUTH, 'Content-Type': 'application/json' };
    const bulk = (path: string, body: string, headers: Record<string, string> = json) =>
      call(emulator, 'POST', path, headers, body);
    expect(
      (await bulk('/api/reference_data/sets/bulk_load/SHARED/ips/SHARED', '["203.0.113.1","203.0.113.2"]')).status,
    ).toBe(200);
    expect(envelope(await bulk('/api/reference_data/sets/bulk_load/SHARED/ips/SHARED', '["x"', json))).toMatchObject({
      status: 400,
      code: 1001,
    });
    expect((await bulk('/api/reference_data/sets/bulk_load/SHARED/ips/SHARED', '[]', AUTH)).status).toBe(415);
    expect(envelope(await bulk('/api/reference_data/sets/bulk_load/GLOBAL/ips/SHARED', '[]'))).toMatchObject({
      status: 422,
      code: 1015,
    });
    expect(envelope(await bulk('/api/reference_data/sets/bulk_load/SHARED/ips/7', '[]'))).toMatchObject({
      status: 404,
      code: 1011,
    });
    expect(envelope(await bulk('/api/reference_data/sets/bulk_load/SHARED/nope/0', '[]'))).toMatchObject({
      status: 404,
      code: 1002,
    });
    expect((await bulk('/api/reference_data/sets/bulk_load/ips', '["203.0.113.3"]')).status).toBe(410);
    const listed = await call(
      emulator,
      'GET',
      `/api/reference_data/sets/ips?filter=${encodeURIComponent('value = "203.0.113.2"')}`,
    );
    expect(listed.body).toMatchObject({
      number_of_elements: 3,
      data: [{ value: '203.0.113.2', source: 'reference data api' }],
    });
    expect(emulator.qradar.referenceSets.get('ips')?.elements.get('198.51.100.7')?.source).toBe('threatlib');
  });

  it('runs Ariel searches: 422 code 2000 for AQL it cannot run, EXECUTE before COMPLETED, results only when done', async () => {
    const bad = await call(
      emulator,
      'POST',
      `/api/ariel/searches?query_expression=${encodeURIComponent('DROP events')}`,
    );
    expect(envelope(bad)).toEqual({ status: 422, code: 2000, http: 422 });
    const query = "SELECT COUNT(*) AS n FROM events WHERE UTF8(payload) ILIKE '%evil%' LAST 1 DAYS";
    const created = await call(emulator, 'POST', `/api/ariel/searches?query_expression=${encodeURIComponent(query)}`);
    expect(created).toMatchObject({ status: 201, body: { status: 'WAIT' } });
    const id = created.body.search_id as string;
    expect(envelope(await call(emulator, 'GET', `/api/ariel/searches/${id}/results`))).toMatchObject({
      status: 404,
      code: 1003,
    });
    expect((await call(emulator, 'GET', `/api/ariel/searches/${id}`)).body.status).toBe('EXECUTE');
    expect((await call(emulator, 'GET', `/api/ariel/searches/${id}`)).body.status).toBe('COMPLETED');
    expect((await call(emulator, 'GET', `/api/ariel/searches/${id}/results`)).body).toEqual({ events: [{ n: 0 }] });
    expect(envelope(await call(emulator, 'GET', '/api/ariel/searches/nope'))).toMatchObject({
      status: 404,
      code: 1002,
    });
  });

  it('adds notes to offenses that exist only, and requires note_text', async () => {
    expect((await call(emulator, 'POST', '/api/siem/offenses/42/notes?note_text=hello')).status).toBe(201);
    expect(envelope(await call(emulator, 'POST', '/api/siem/offenses/43/notes?note_text=hello'))).toMatchObject({
      status: 404,
      code: 1002,
    });
    expect(envelope(await call(emulator, 'POST', '/api/siem/offenses/42/notes'))).toMatchObject({
      status: 422,
      code: 1005,
    });
    expect(envelope(await call(emulator, 'POST', '/api/siem/offenses/x/notes?note_text=a'))).toMatchObject({
      status: 422,
    });
    expect(emulator.qradar.offenses.get(42)?.notes.map((n) => n.note_text)).toEqual(['hello']);
  });

  it('receives syslog over TCP (line feeds) and TLS (octet counting), reading RFC 5424 and 3164 headers and LEEF', async () => {
    const leef = 'LEEF:2.0|threatlib|threatlib|1.0|ThreatAlert|^|sev=8^dst=198.51.100.7^title=evil';
    const rfc5424 = `<11>1 2026-01-01T00:00:00.000Z host-a threatlib - ThreatAlert - ${leef}`;
    const rfc3164 = `<13>Jan  1 00:00:00 host-b ${leef}`;
    await syslog(emulator.qradar.syslogPort, `${rfc5424}\n${rfc3164}\n`, false);
    await syslog(emulator.qradar.syslogTlsPort, `${Buffer.byteLength(rfc5424)} ${rfc5424}`, true);
    expect(
      emulator.qradar.events.map((e) => [e.transport, e.framing, e.hostname, e.eventId, e.destinationip, e.magnitude]),
    ).toEqual([
      ['tcp', 'lf', 'host-a', 'ThreatAlert', '198.51.100.7', 8],
      ['tcp', 'lf', 'host-b', 'ThreatAlert', '198.51.100.7', 8],
      ['tls', 'octet-counting', 'host-a', 'ThreatAlert', '198.51.100.7', 8],
    ]);
  });

  it('cuts a message longer than the maximum payload length, as QRadar does', async () => {
    await emulator.close();
    emulator = await startSiemEmulator({ qradar: { maxPayloadBytes: 1024 } });
    await syslog(emulator.qradar.syslogPort, `<13>Jan  1 00:00:00 h ${'x'.repeat(2000)}\n`, false);
    expect(emulator.qradar.events[0]?.truncated).toBe(true);
    expect(Buffer.byteLength(emulator.qradar.events[0]?.payload ?? '')).toBe(1024);
  });
});

describe('the AQL subset', () => {
  const now = Date.UTC(2026, 0, 10);
  const event = (over: Partial<Parameters<typeof runAql>[1][number]>) => ({
    starttime: now - 1000,
    devicetime: now - 5000,
    sourceip: '10.0.0.1',
    destinationip: '198.51.100.7',
    magnitude: 5,
    severity: 5,
    payload: 'LEEF:2.0|x|x|1|A|^|dst=198.51.100.7',
    properties: { riskScore: '7.5' },
    ...over,
  });

  it('aggregates over the events matching WHERE within the time range', () => {
    const query = parseAql(
      "SELECT MIN(devicetime) AS f, MAX(devicetime) AS l, COUNT(*) AS n, MAX(\"riskScore\") AS r FROM events WHERE destinationip = '198.51.100.7' OR UTF8(payload) ILIKE '%EVIL.com%' LAST 2 DAYS",
      now,
      new Set(['riskScore']),
    );
    const rows = runAql(query, [
      event({}),
      event({ destinationip: '0.0.0.0', payload: 'seen evil.com', devicetime: now - 9000, properties: {} }),
      event({ destinationip: '0.0.0.0' }),
      event({ starttime: now - 3 * 86_400_000 }),
    ]);
    expect(rows).toEqual({ f: now - 9000, l: now - 5000, n: 2, r: 7.5 });
  });

  it('defaults to the last 60 seconds and gives null for MIN and MAX of nothing', () => {
    const query = parseAql('SELECT COUNT(*) AS n, MIN(starttime) AS m FROM events', now, new Set());
    expect(runAql(query, [event({ starttime: now - 61_000 })])).toEqual({ n: 0, m: null });
  });

  it('refuses anything else, naming it', () => {
    const refuse = (aql: string) => () => parseAql(aql, now, new Set());
    expect(refuse('SELECT * FROM events')).toThrow(AqlError);
    expect(refuse('SELECT COUNT(*) FROM flows')).toThrow(/Only FROM events/);
    expect(refuse('SELECT MAX("riskScore") FROM events')).toThrow(/not a valid event field or custom property/);
    expect(refuse("SELECT COUNT(*) FROM events WHERE sourceip = 'x")).toThrow(/Unterminated/);
    expect(refuse('SELECT COUNT(*) FROM events LAST 3 WEEKS')).toThrow(/MINUTES, HOURS or DAYS/);
  });
});
