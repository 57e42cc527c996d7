// The TAXII list source (`lists: [{name, taxii: {...}}]`) against a TAXII 2.1 collection: what it lists, how it pages,
// how it polls incrementally and keeps its position, and every `lists[].taxii` option (the configuration's option
// checks point here).
import { mkdtempSync, readFileSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ThreatClient } from '../../client/threat-client.js';
import type { ThreatConfig } from '../../config/schema.js';
import { silentLogger } from '../../logging/logger.js';
import { ManualClock } from '../../scheduler/clock.js';
import { stixIndicator, TaxiiEmulator } from './taxii-emulator.test-suite.js';

let emulator: TaxiiEmulator;
let directory: string;
const clients: ThreatClient[] = [];

beforeEach(async () => {
  emulator = new TaxiiEmulator();
  await emulator.start();
  directory = mkdtempSync(join(tmpdir(), 'threatlib-taxii-list-'));
});

afterEach(async () => {
  await Promise.all(clients.splice(0).map((client) => client.stop()));
  await emulator.close();
});

type TaxiiOptions = NonNullable<NonNullable<ThreatConfig['lists']>[number]['taxii']>;

function client(taxii: Partial<TaxiiOptions> = {}, extra: Partial<ThreatConfig> = {}, clock?: ManualClock) {
  const made = new ThreatClient(
    {
      sources: [],
      strategy: 'aggressive',
      lists: [
        {
          name: 'partner',
          taxii: {
            url: emulator.url,
            collection: emulator.collection,
            stateFile: join(directory, 'partner.json'),
            ...taxii,
          },
          verdict: 'malicious',
        },
      ],
      security: { enforceHttps: false },
      caching: { enabled: false },
      ...extra,
    },
    { env: false, logger: silentLogger, ...(clock ? { clock } : {}) },
  );
  clients.push(made);
  return made;
}

async function listedBy(c: ThreatClient, indicator: string): Promise<boolean> {
  const result = await c.correlate(indicator);
  return result.results.some((r) => r.feed === 'list:partner' && r.status === 'ok' && r.verdict === 'malicious');
}

const statusOf = async (c: ThreatClient) =>
  (await c.listStatus()).find((s) => s.name === 'partner') as Record<string, unknown>;

/** Waits until the list's status satisfies `done`. */
async function until(c: ThreatClient, done: (status: Record<string, unknown>) => boolean, ms = 5_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!done(await statusOf(c))) {
    if (Date.now() > deadline) throw new Error(`condition not met in time: ${JSON.stringify(await statusOf(c))}`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

describe('a TAXII list', () => {
  it('polls the collection at url and collection when the client starts, and lists what its indicators name', async () => {
    emulator.add([
      stixIndicator(1, "[ipv4-addr:value = '198.51.100.7']"),
      stixIndicator(2, "[domain-name:value = 'evil-example.com'] OR [url:value = 'http://bad-example.com/x']"),
      stixIndicator(3, "[file:hashes.'SHA-256' = 'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855']"),
      { type: 'identity', id: 'identity--00000000-0000-4000-8000-000000000009', name: 'x' },
    ]);
    const c = client();
    expect(emulator.requests).toHaveLength(0);
    await c.start();
    for (const value of [
      '198.51.100.7',
      'evil-example.com',
      'http://bad-example.com/x',
      'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855',
    ]) {
      expect(await listedBy(c, value), value).toBe(true);
    }
    expect(await listedBy(c, '198.51.100.8')).toBe(false);
    expect(emulator.requests[0]?.accept).toBe('application/taxii+json;version=2.1');
    expect(emulator.requests[0]?.url.pathname).toBe(`/api1/collections/${emulator.collection}/objects/`);
    expect(await statusOf(c)).toMatchObject({
      kind: 'taxii',
      state: 'ok',
      url: `${emulator.url}collections/${emulator.collection}/objects/`,
      polls: 1,
      objects: 4,
      indicators: 3,
      skippedByReason: { 'not-indicator': 1 },
    });
  });

  it('polls again every pollInterval, asking only for what was added after the last object it saw', async () => {
    const clock = new ManualClock(Date.parse('2026-03-01T00:00:00Z'));
    const first = emulator.add([stixIndicator(1, "[ipv4-addr:value = '198.51.100.1']")]);
    const c = client({ pollInterval: 60_000 }, {}, clock);
    await c.start();
    emulator.add([
      stixIndicator(2, "[ipv4-addr:value = '198.51.100.2']"),
      stixIndicator(3, "[ipv4-addr:value = '198.51.100.3']"),
    ]);
    await clock.advance(59_999);
    expect(emulator.requests).toHaveLength(1);
    await clock.advance(1);
    await until(c, (status) => status.polls === 2 && status.state === 'ok');
    expect(emulator.addedAfter).toEqual([null, first]);
    expect(await statusOf(c)).toMatchObject({ objects: 3, indicators: 3 });
    expect(await listedBy(c, '198.51.100.3')).toBe(true);
  });

  it('reads pageSize objects a page, following next while more, or X-TAXII-Date-Added-Last without next', async () => {
    emulator.add([1, 2, 3, 4, 5].map((n) => stixIndicator(n, `[ipv4-addr:value = '198.51.100.${n}']`)));
    const c = client({ pageSize: 2 });
    await c.start();
    expect(emulator.requests.map((r) => [r.url.searchParams.get('limit'), r.url.searchParams.get('next')])).toEqual([
      ['2', null],
      ['2', 'p2'],
      ['2', 'p4'],
    ]);
    expect(await statusOf(c)).toMatchObject({ pages: 3, indicators: 5 });

    const dated = new TaxiiEmulator();
    await dated.start();
    try {
      dated.sendNext = false;
      const dates = [1, 2, 3].map((n) => dated.add([stixIndicator(n, `[ipv4-addr:value = '203.0.113.${n}']`)]));
      const d = client({
        url: dated.url,
        collection: dated.collection,
        pageSize: 1,
        stateFile: join(directory, 'd.json'),
      });
      await d.start();
      expect(dated.addedAfter).toEqual([null, dates[0], dates[1]]);
      expect(await statusOf(d)).toMatchObject({ state: 'ok', indicators: 3 });
    } finally {
      await dated.close();
    }
  });

  it('sends auth: a bearer token, or a user name and password; a refusal is a status error that never shows them', async () => {
    emulator.add([stixIndicator(1, "[ipv4-addr:value = '198.51.100.7']")]);
    emulator.authorization = 'Bearer s3cret-taxii-token';
    emulator.echoAuthorization = true;
    const refused = client({ auth: { type: 'bearer', token: 'wrong-s3cret-token' } });
    await refused.start();
    const status = await statusOf(refused);
    expect(status).toMatchObject({ state: 'error', indicators: 0 });
    expect(status.lastError).toMatch(/answered 401 \(the credentials in auth were refused/);
    expect(JSON.stringify(await refused.listStatus())).not.toContain('wrong-s3cret-token');
    expect(await listedBy(refused, '198.51.100.7')).toBe(false);

    const bearer = client({
      auth: { type: 'bearer', token: 's3cret-taxii-token' },
      stateFile: join(directory, 'b.json'),
    });
    await bearer.start();
    expect(await listedBy(bearer, '198.51.100.7')).toBe(true);

    emulator.authorization = `Basic ${Buffer.from('reader:pa55word').toString('base64')}`;
    const basic = client({
      auth: { type: 'basic', username: 'reader', password: 'pa55word' },
      stateFile: join(directory, 'c.json'),
    });
    await basic.start();
    expect(await statusOf(basic)).toMatchObject({ state: 'ok', indicators: 1 });
  });

  it('gives up on a request after timeout ms, saying so', async () => {
    emulator.delayMs = 2_000;
    const c = client({ timeout: 100 });
    await c.start();
    expect(await statusOf(c)).toMatchObject({ state: 'error' });
    expect((await statusOf(c)).lastError).toMatch(/timed out after 100 ms/);
  });

  it('keeps its position and indicators in stateFile, so a restart lists them at once and asks only for the new', async () => {
    const stateFile = join(directory, 'kept', 'state.json');
    const last = emulator.add([stixIndicator(1, "[ipv4-addr:value = '198.51.100.7']")]);
    const before = client({ stateFile });
    await before.start();
    await before.stop();
    expect(statSync(stateFile).mode & 0o777).toBe(0o600);
    expect(JSON.parse(readFileSync(stateFile, 'utf8'))).toMatchObject({
      addedAfter: last,
      indicators: [{ id: stixIndicator(1, '').id }],
    });

    emulator.authorization = 'Bearer nobody-has-this';
    const after = client({ stateFile });
    await after.start();
    // The server refuses this run: what the last run read is still listed.
    expect(await statusOf(after)).toMatchObject({
      state: 'error',
      addedAfter: last,
      indicators: 1,
      stateStore: stateFile,
    });
    expect(await listedBy(after, '198.51.100.7')).toBe(true);
    expect(emulator.addedAfter.at(-1)).toBe(last);
  });

  it('honours newer versions, revocation and valid_until across polls, and counts what it skips by reason', async () => {
    const clock = new ManualClock(Date.parse('2026-03-01T00:00:00Z'));
    emulator.add([
      stixIndicator(1, "[ipv4-addr:value = '198.51.100.1']"),
      stixIndicator(2, "[ipv4-addr:value = '198.51.100.2']", { valid_until: '2026-03-01T00:30:00Z' }),
      stixIndicator(3, "[ipv4-addr:value = '198.51.100.3']"),
    ]);
    const c = client({ pollInterval: 3_600_000 }, {}, clock);
    await c.start();
    expect(await listedBy(c, '198.51.100.2')).toBe(true);
    emulator.add([
      stixIndicator(1, "[ipv4-addr:value = '198.51.100.1']", { modified: '2026-02-01T00:00:00.000Z', revoked: true }),
      stixIndicator(3, "[ipv4-addr:value = '198.51.100.33']", { modified: '2026-02-01T00:00:00.000Z' }),
      stixIndicator(3, "[ipv4-addr:value = '198.51.100.3']", { modified: '2025-12-01T00:00:00.000Z' }),
      stixIndicator(4, "[ipv4-addr:value = '198.51.100.4' AND ipv4-addr:value = '198.51.100.5']"),
    ]);
    await clock.advance(3_600_000);
    await until(c, (status) => status.polls === 2);
    expect(await listedBy(c, '198.51.100.1')).toBe(false); // revoked
    expect(await listedBy(c, '198.51.100.2')).toBe(false); // valid_until passed
    expect(await listedBy(c, '198.51.100.3')).toBe(false); // replaced by the newer version...
    expect(await listedBy(c, '198.51.100.33')).toBe(true); // ...which an older one did not undo
    expect(await statusOf(c)).toMatchObject({
      indicators: 2,
      skippedByReason: { revoked: 1, 'older-version': 1, pattern: 1 },
    });
  });
});

describe('lists[].taxii in the configuration', () => {
  const base = { sources: [], security: { enforceHttps: false } };
  const make =
    (list: object, extra: object = {}) =>
    () =>
      new ThreatClient({ ...base, ...extra, lists: [list] } as ThreatConfig, { env: false, logger: silentLogger });

  it('takes either file or taxii, and format and column with files only', () => {
    expect(make({ name: 'x' })).toThrow(
      /lists\[0\]\.file: required: the path of the list file \(or misp: .* or taxii: \{url, collection\}/,
    );
    expect(make({ name: 'x', file: 'a.txt', taxii: { url: 'http://t/', collection: 'c' } })).toThrow(
      /lists\[0\]\.taxii: give one source per list, not file and taxii/,
    );
    expect(make({ name: 'x', format: 'csv', taxii: { url: 'http://t/', collection: 'c' } })).toThrow(
      /lists\[0\]\.format: applies to list files; a TAXII collection has its own format/,
    );
  });

  it('refuses a URL with credentials, an insecure URL while enforceHttps, and bounds the numbers', () => {
    expect(make({ name: 'x', taxii: { url: 'http://u:p@t/', collection: 'c' } })).toThrow(
      /lists\[0\]\.taxii\.url: must not hold a user name or password/,
    );
    expect(
      make({ name: 'x', taxii: { url: 'http://t/api/', collection: 'c' } }, { security: { enforceHttps: true } }),
    ).toThrow(/lists\[0\]\.taxii\.url http:\/\/t\/api\/ is not HTTPS/);
    expect(make({ name: 'x', taxii: { url: 'https://t/', collection: 'c', pollInterval: 1000 } })).toThrow(
      /pollInterval: at least 10000 ms/,
    );
    expect(make({ name: 'x', taxii: { url: 'https://t/', collection: 'c', timeout: 900_000 } })).toThrow(
      /timeout: at most 300000/,
    );
    expect(make({ name: 'x', taxii: { url: 'https://t/', collection: 'a/b' } })).toThrow(
      /collection: expected a collection id/,
    );
    expect(make({ name: 'x', taxii: { url: 'https://t/', collection: 'c', auth: { type: 'digest' } } })).toThrow(
      /auth\.type: expected \{type: "bearer", token\} or \{type: "basic", username, password\}/,
    );
  });
});
