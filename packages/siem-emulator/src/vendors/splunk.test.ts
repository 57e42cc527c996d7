import { gzipSync } from 'node:zlib';
import { afterEach, describe, expect, it } from 'vitest';
import { type RunningSiemEmulator, startSiemEmulator } from '../siem-emulator.js';
import { SPLUNK_DEFAULTS } from './splunk.js';

const CHANNEL = '5f1c2a3b-4d5e-4f60-8a7b-9c0d1e2f3a4b';
const splunkAuth = { authorization: `Splunk ${SPLUNK_DEFAULTS.hecToken}` };
const basicAuth = {
  authorization: `Basic ${Buffer.from(`${SPLUNK_DEFAULTS.username}:${SPLUNK_DEFAULTS.password}`).toString('base64')}`,
};
const form = { 'content-type': 'application/x-www-form-urlencoded' };

let emulator: RunningSiemEmulator | undefined;
afterEach(async () => {
  await emulator?.close();
  emulator = undefined;
});

async function call(
  path: string,
  init: { method?: string; headers?: Record<string, string>; body?: string | Buffer } = {},
): Promise<{ status: number; json: unknown; text: string }> {
  emulator ??= await startSiemEmulator({ tls: false });
  const response = await fetch(`${emulator.url}${path}`, {
    method: init.method ?? 'POST',
    headers: init.headers ?? {},
    ...(init.body === undefined ? {} : { body: init.body }),
  });
  const text = await response.text();
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  return { status: response.status, json, text };
}

describe('Splunk emulator: HTTP Event Collector', () => {
  it('checks the token before anything else, with HEC’s documented codes', async () => {
    expect(await call('/services/collector/event', { body: 'not json' })).toMatchObject({
      status: 401,
      json: { text: 'Token is required', code: 2 },
    });
    expect(
      await call('/services/collector/event', { headers: { authorization: 'Bearer x' }, body: 'not json' }),
    ).toMatchObject({ status: 401, json: { text: 'Invalid authorization', code: 3 } });
    expect(
      await call('/services/collector/event', { headers: { authorization: 'Splunk wrong' }, body: 'not json' }),
    ).toMatchObject({ status: 403, json: { text: 'Invalid token', code: 4 } });
    expect(await call('/services/collector/event?token=abc', { body: '{}' })).toMatchObject({
      status: 400,
      json: { code: 16 },
    });
  });

  it('then the channel (for a token with indexer acknowledgement), then the body', async () => {
    emulator = await startSiemEmulator({
      tls: false,
      splunk: { hecTokens: { [SPLUNK_DEFAULTS.hecToken]: { ack: true } } },
    });
    expect(await call('/services/collector/event', { headers: splunkAuth, body: 'not json' })).toMatchObject({
      status: 400,
      json: { text: 'Data channel is missing', code: 10 },
    });
    expect(
      await call('/services/collector/event', {
        headers: { ...splunkAuth, 'x-splunk-request-channel': 'not-a-guid' },
        body: '{"event":"x"}',
      }),
    ).toMatchObject({ status: 400, json: { text: 'Invalid data channel', code: 11 } });
    expect(
      await call('/services/collector/event', {
        headers: { ...splunkAuth, 'x-splunk-request-channel': CHANNEL },
        body: 'not json',
      }),
    ).toMatchObject({ status: 400, json: { text: 'Invalid data format', code: 6, 'invalid-event-number': 0 } });
  });

  it('refuses bodies HEC refuses, naming the event, and indexes nothing of them', async () => {
    const post = (body: string) => call('/services/collector/event', { headers: splunkAuth, body });
    expect(await post('')).toMatchObject({ status: 400, json: { text: 'No data', code: 5 } });
    expect(await post('{"event":"a"}{"time":1}')).toMatchObject({
      status: 400,
      json: { text: 'Event field is required', code: 12, 'invalid-event-number': 1 },
    });
    expect(await post('{"event":""}')).toMatchObject({ status: 400, json: { code: 13 } });
    expect(await post('[{"event":"a"}]')).toMatchObject({ status: 400, json: { code: 6 } });
    expect(await post('{"event":"a"}{"event":')).toMatchObject({
      status: 400,
      json: { code: 6, 'invalid-event-number': 1 },
    });
    expect(emulator?.splunk.events).toEqual([]);
  });

  it('accepts concatenated events (and gzip), keeping their metadata', async () => {
    const body = '{"time":1700000000.5,"sourcetype":"a","event":{"x":1}}\n{"event":"plain","index":"main"}';
    expect(await call('/services/collector/event', { headers: splunkAuth, body })).toMatchObject({
      status: 200,
      json: { text: 'Success', code: 0 },
    });
    expect(
      await call('/services/collector/event', {
        headers: { ...splunkAuth, 'content-encoding': 'gzip' },
        body: gzipSync('{"event":"zipped"}'),
      }),
    ).toMatchObject({ status: 200 });
    expect(emulator?.splunk.events.map((e) => [e.time, e.sourcetype, e.index, e.raw, e.request])).toEqual([
      [1700000000.5, 'a', 'main', '{"x":1}', 0],
      [expect.any(Number), 'httpevent', 'main', 'plain', 0],
      [expect.any(Number), 'httpevent', 'main', 'zipped', 1],
    ]);
  });

  it('refuses an index the token may not write to', async () => {
    emulator = await startSiemEmulator({
      tls: false,
      splunk: { hecTokens: { [SPLUNK_DEFAULTS.hecToken]: { indexes: ['main'] } } },
    });
    expect(
      await call('/services/collector/event', { headers: splunkAuth, body: '{"event":"a"}{"event":"b","index":"x"}' }),
    ).toMatchObject({ status: 400, json: { text: 'Incorrect index', code: 7, 'invalid-event-number': 1 } });
  });

  it('acknowledges indexing per channel, once, after the scripted number of polls', async () => {
    emulator = await startSiemEmulator({
      tls: false,
      splunk: { hecTokens: { [SPLUNK_DEFAULTS.hecToken]: { ack: true } } },
    });
    emulator.splunk.pendingAckPolls = 1;
    const headers = { ...splunkAuth, 'x-splunk-request-channel': CHANNEL };
    expect(await call('/services/collector/event', { headers, body: '{"event":"a"}' })).toMatchObject({
      json: { code: 0, ackId: 0 },
    });
    const poll = () => call('/services/collector/ack', { headers, body: '{"acks":[0]}' });
    expect((await poll()).json).toEqual({ acks: { 0: false } });
    expect((await poll()).json).toEqual({ acks: { 0: true } });
    expect((await poll()).json).toEqual({ acks: { 0: false } });
  });

  it('refuses ack queries for a token without acknowledgement', async () => {
    expect(
      await call('/services/collector/ack', {
        headers: { ...splunkAuth, 'x-splunk-request-channel': CHANNEL },
        body: '{"acks":[0]}',
      }),
    ).toMatchObject({ status: 400, json: { text: 'ACK is disabled', code: 14 } });
  });

  it('reports health without a token, and unhealthy when told', async () => {
    expect(await call('/services/collector/health', { method: 'GET' })).toMatchObject({
      status: 200,
      json: { text: 'HEC is healthy', code: 17 },
    });
    if (emulator) emulator.splunk.healthy = false;
    expect(await call('/services/collector/health', { method: 'GET' })).toMatchObject({
      status: 503,
      json: { code: 18 },
    });
  });
});

describe('Splunk emulator: management port', () => {
  it('refuses calls without valid credentials in Splunk’s own words (JSON or XML)', async () => {
    expect(await call('/services/server/info?output_mode=json', { method: 'GET' })).toMatchObject({
      status: 401,
      json: { messages: [{ type: 'WARN', text: 'call not properly authenticated' }] },
    });
    const xml = await call('/services/server/info', {
      method: 'GET',
      headers: { authorization: `Basic ${Buffer.from('admin:wrong').toString('base64')}` },
    });
    expect(xml.status).toBe(401);
    expect(xml.text).toContain('<msg type="WARN">call not properly authenticated</msg>');
    expect(
      await call('/services/server/info?output_mode=json', {
        method: 'GET',
        headers: { authorization: `Bearer ${SPLUNK_DEFAULTS.authToken}` },
      }),
    ).toMatchObject({ status: 200, json: { entry: [{ content: { version: '9.4.1' } }] } });
  });

  it('runs the SPL subset over received events: export lines and oneshot results', async () => {
    await call('/services/collector/event', {
      headers: splunkAuth,
      body:
        '{"time":1000,"event":{"ip":"198.51.100.1","riskScore":3}}' +
        '{"time":2000,"event":{"ip":"198.51.100.1","riskScore":8}}' +
        '{"time":3000,"event":{"ip":"198.51.100.10","riskScore":9}}',
    });
    const search =
      'search (index="main" OR index="other") "198.51.100.1" | where match(_raw, "198\\\\.51\\\\.100\\\\.1\\"") ' +
      '| spath output=r path=riskScore | stats min(_time) AS first max(_time) AS last count AS n max(r) AS risk';
    const exported = await call('/services/search/v2/jobs/export', {
      headers: { ...basicAuth, ...form },
      body: new URLSearchParams({ search, output_mode: 'json', earliest_time: '0' }).toString(),
    });
    expect(exported.status).toBe(200);
    expect(exported.text.split('\n').map((line) => JSON.parse(line))).toEqual([
      { preview: false, offset: 0, lastrow: true, result: { first: '1000', last: '2000', n: '2', risk: '8' } },
    ]);
    const oneshot = await call('/services/search/jobs', {
      headers: { ...basicAuth, ...form },
      body: new URLSearchParams({ search, output_mode: 'json', exec_mode: 'oneshot' }).toString(),
    });
    expect(oneshot.json).toMatchObject({ results: [{ first: '1000', last: '2000', n: '2', risk: '8' }] });
  });

  it('refuses a search it cannot parse, or that does not start with search, as Splunk does', async () => {
    const run = (search: string) =>
      call('/services/search/v2/jobs/export', {
        headers: { ...basicAuth, ...form },
        body: new URLSearchParams({ search, output_mode: 'json' }).toString(),
      });
    expect(await run('search "unbalanced')).toMatchObject({
      status: 400,
      json: { messages: [{ type: 'FATAL', text: 'Unbalanced quotes.' }] },
    });
    expect(await run('| makeresults')).toMatchObject({ status: 400, json: { messages: [{ type: 'FATAL' }] } });
    expect(await run('search x | eval y=1')).toMatchObject({
      status: 400,
      json: { messages: [{ text: "Unknown search command 'eval'." }] },
    });
    expect(await run('')).toMatchObject({ status: 400, json: { messages: [{ text: 'Empty search.' }] } });
  });

  it('searches only the asked time range', async () => {
    emulator = await startSiemEmulator({ tls: false });
    emulator.splunk.index({ raw: 'old 192.0.2.1', time: Date.now() / 1000 - 10 * 86_400 });
    emulator.splunk.index({ raw: 'new 192.0.2.1', time: Date.now() / 1000 - 3600 });
    const result = await call('/services/search/v2/jobs/export', {
      headers: { ...basicAuth, ...form },
      body: new URLSearchParams({
        search: 'search index=main "192.0.2.1" | stats count',
        output_mode: 'json',
        earliest_time: '-7d',
      }).toString(),
    });
    expect(JSON.parse(result.text)).toMatchObject({ result: { count: '1' } });
  });
});
