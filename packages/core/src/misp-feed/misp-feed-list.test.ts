import { createHash } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { InsecureEndpointError } from '../errors/insecure-endpoint-error.js';
import { parseIndicator } from '../indicators/parse-indicator.js';
import { ListLoadError } from '../lists/list-load-error.js';
import { ManualClock } from '../scheduler/clock.js';
import { directoryTransport } from './directory-transport.js';
import { loadMispFeedList, type MispFeedListOptions } from './load-misp-feed-list.js';
import type { MispFeedList } from './misp-feed-list.js';
import { checkFeedFileName } from './misp-feed-transport.js';

// A MISP feed served over HTTP by a real server on loopback: each test sets the files it serves, and reads back the
// requests it got (path and headers), so that what the list fetched is counted, not guessed.

interface Served {
  status?: number;
  body: string;
  headers?: Record<string, string>;
}

let server: Server;
let base: string;
let files = new Map<string, Served>();
let requests: { path: string; headers: IncomingHttpHeaders }[] = [];
const lists: MispFeedList[] = [];
let dir: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'threatlib-misp-list-'));
  server = createServer((req, res) => {
    requests.push({ path: req.url ?? '', headers: req.headers });
    const file = files.get(req.url ?? '');
    if (file === undefined) {
      res.writeHead(404).end('not found');
      return;
    }
    const etag = file.headers?.etag;
    if (etag !== undefined && req.headers['if-none-match'] === etag) {
      res.writeHead(304).end();
      return;
    }
    res.writeHead(file.status ?? 200, { 'content-type': 'application/json', ...file.headers }).end(file.body);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}/feed`;
});

afterEach(async () => {
  await Promise.all(lists.splice(0).map((list) => list.close()));
  files = new Map();
  requests = [];
});

afterAll(async () => {
  await new Promise((resolve) => server.close(resolve));
  await rm(dir, { recursive: true, force: true });
});

const uuid = (n: number) => `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`;

interface FeedEvent {
  n: number;
  timestamp?: number;
  attributes: Record<string, unknown>[];
  tags?: string[];
  info?: string;
}

/** Serves `events` as a MISP feed: `manifest.json` (with an ETag of its content) and one file per event. */
function serveFeed(events: FeedEvent[], manifestExtra: Record<string, unknown> = {}): void {
  const manifest: Record<string, unknown> = { ...manifestExtra };
  for (const event of events) {
    const id = uuid(event.n);
    const tags = (event.tags ?? []).map((name) => ({ name, colour: '#ffffff' }));
    manifest[id] = { info: event.info ?? `event ${event.n}`, timestamp: event.timestamp ?? 1_700_000_000, Tag: tags };
    files.set(`/feed/${id}.json`, {
      body: JSON.stringify({
        Event: {
          uuid: id,
          info: event.info ?? `event ${event.n}`,
          date: '2026-01-15',
          Orgc: { name: 'CIRCL', uuid: '55f6ea5e-2c60-40e5-964f-47a8950d210f' },
          Tag: tags,
          Attribute: event.attributes,
        },
      }),
    });
  }
  const body = JSON.stringify(manifest);
  files.set('/feed/manifest.json', { body, headers: { etag: `"${createHash('md5').update(body).digest('hex')}"` } });
}

async function load(options: Partial<MispFeedListOptions> = {}): Promise<MispFeedList> {
  const list = await loadMispFeedList({ name: 'osint', url: base, enforceHttps: false, pollInterval: 0, ...options });
  lists.push(list);
  return list;
}

const eventFiles = () => requests.filter((r) => r.path !== '/feed/manifest.json').map((r) => r.path);
const lookup = (list: MispFeedList, value: string) => list.lookup(parseIndicator(value));

describe('a MISP feed read as a list', () => {
  it('answers from the attributes of its events, with the event and attribute as evidence', async () => {
    serveFeed([
      {
        n: 1,
        info: 'Emotet C2 servers',
        tags: ['tlp:white', 'type:OSINT', 'misp-galaxy:malpedia="Emotet"', 'kill-chain:c2'],
        attributes: [
          { type: 'ip-dst', value: '198.51.100.7', to_ids: true, category: 'Network activity', comment: 'C2' },
          { type: 'link', value: 'https://blog.example.com/emotet', to_ids: false },
        ],
      },
      { n: 2, attributes: [{ type: 'ip-dst', value: '198.51.100.7', to_ids: true, timestamp: '1767225600' }] },
    ]);
    const list = await load();
    const hit = lookup(list, '198.51.100.7');
    expect(hit).toMatchObject({ status: 'ok', verdict: 'malicious', score: 1 });
    expect(hit.evidence).toEqual([
      `listed in MISP feed "osint": event ${uuid(1)} "Emotet C2 servers" by CIRCL on 2026-01-15 [tlp:white, ` +
        'type:OSINT, misp-galaxy:malpedia="Emotet", kill-chain:c2]: ip-dst attribute in Network activity, comment "C2"',
      `listed in MISP feed "osint": event ${uuid(2)} "event 2" by CIRCL on 2026-01-15: ip-dst attribute`,
    ]);
    // Handling tags (tlp:, type:) say nothing about the threat: they stay out of the answer's tags.
    expect(hit.tags).toEqual(['misp-feed', 'kill-chain:c2']);
    expect(hit.malwareFamilies).toEqual(['Emotet']);
    expect(hit.references).toEqual([`urn:uuid:${uuid(1)}`, 'https://blog.example.com/emotet', `urn:uuid:${uuid(2)}`]);
    expect(hit.lastSeen).toBe('2026-01-01T00:00:00.000Z');
    expect(lookup(list, 'http://198.51.100.7/gate.php')).toMatchObject({ status: 'ok' });
    expect(lookup(list, '198.51.100.8')).toMatchObject({
      status: 'not_found',
      verdict: 'unknown',
      evidence: ['not in MISP feed "osint"'],
    });
    expect(list.status()).toMatchObject({ name: 'osint', source: base, events: 2, entries: 1 });
  });

  it('says suspicious or clean when its verdict says so; an allowlist needs every reading of a URL', async () => {
    serveFeed([{ n: 1, attributes: [{ type: 'domain', value: 'good.example.com', to_ids: true }] }]);
    const suspicious = await load({ verdict: 'suspicious' });
    expect(lookup(suspicious, 'good.example.com')).toMatchObject({ verdict: 'suspicious', score: 0.5 });
    const clean = await load({ verdict: 'clean', name: 'allow' });
    expect(lookup(clean, 'a.good.example.com')).toMatchObject({ status: 'ok', verdict: 'clean', score: 0 });
  });

  it('reads only what changed: the manifest with If-None-Match, then only the events whose timestamp moved', async () => {
    serveFeed([
      { n: 1, timestamp: 100, attributes: [{ type: 'domain', value: 'one.example.com', to_ids: true }] },
      { n: 2, timestamp: 100, attributes: [{ type: 'domain', value: 'two.example.com', to_ids: true }] },
      { n: 3, timestamp: 100, attributes: [{ type: 'domain', value: 'three.example.com', to_ids: true }] },
    ]);
    const list = await load();
    expect(eventFiles().sort()).toEqual([uuid(1), uuid(2), uuid(3)].map((id) => `/feed/${id}.json`));

    requests = [];
    expect(await list.refresh()).toMatchObject({ manifestChanged: false, fetched: 0 });
    expect(requests.map((r) => r.path)).toEqual(['/feed/manifest.json']);
    expect(requests[0]?.headers['if-none-match']).toMatch(/^"[0-9a-f]{32}"$/);

    // Event 2 is edited (newer timestamp), event 3 leaves the feed, event 4 arrives.
    serveFeed([
      { n: 1, timestamp: 100, attributes: [{ type: 'domain', value: 'one.example.com', to_ids: true }] },
      { n: 2, timestamp: 200, attributes: [{ type: 'domain', value: 'two-edited.example.com', to_ids: true }] },
      { n: 4, timestamp: 150, attributes: [{ type: 'domain', value: 'four.example.com', to_ids: true }] },
    ]);
    requests = [];
    expect(await list.refresh()).toMatchObject({ manifestChanged: true, fetched: 2, failed: 0, removed: 1 });
    expect(eventFiles().sort()).toEqual([uuid(2), uuid(4)].map((id) => `/feed/${id}.json`));
    expect(lookup(list, 'one.example.com').status).toBe('ok');
    expect(lookup(list, 'two.example.com').status).toBe('not_found');
    expect(lookup(list, 'two-edited.example.com').status).toBe('ok');
    expect(lookup(list, 'three.example.com').status).toBe('not_found');
    expect(lookup(list, 'four.example.com').status).toBe('ok');
    expect(list.status()).toMatchObject({ events: 3, entries: 3 });
  });

  it('keeps what it has when an event cannot be read, and reads it again next time', async () => {
    serveFeed([
      { n: 1, timestamp: 100, attributes: [{ type: 'domain', value: 'one.example.com', to_ids: true }] },
      { n: 2, timestamp: 100, attributes: [{ type: 'domain', value: 'two.example.com', to_ids: true }] },
    ]);
    const list = await load();
    serveFeed([
      { n: 1, timestamp: 100, attributes: [{ type: 'domain', value: 'one.example.com', to_ids: true }] },
      { n: 2, timestamp: 200, attributes: [{ type: 'domain', value: 'two-new.example.com', to_ids: true }] },
    ]);
    files.set(`/feed/${uuid(2)}.json`, { status: 500, body: 'oops' });
    expect(await list.refresh()).toMatchObject({ fetched: 0, failed: 1 });
    // The copy held before stays; the failure is counted with its reason.
    expect(lookup(list, 'two.example.com').status).toBe('ok');
    expect(list.status().skippedEvents).toMatchObject({
      count: 1,
      byReason: { 'event file unreadable': 1 },
      first: [{ event: uuid(2), reason: `event file unreadable: ${base}/${uuid(2)}.json answered HTTP 500` }],
    });
    // No ETag was kept: the next read asks for the whole manifest again and retries the event.
    serveFeed([
      { n: 1, timestamp: 100, attributes: [{ type: 'domain', value: 'one.example.com', to_ids: true }] },
      { n: 2, timestamp: 200, attributes: [{ type: 'domain', value: 'two-new.example.com', to_ids: true }] },
    ]);
    requests = [];
    expect(await list.refresh()).toMatchObject({ manifestChanged: true, fetched: 1, failed: 0 });
    expect(requests[0]?.headers['if-none-match']).toBeUndefined();
    expect(lookup(list, 'two-new.example.com').status).toBe('ok');
    expect(list.status().skippedEvents.count).toBe(0);
  });

  it('reads the feed again every pollInterval until it is closed', async () => {
    const clock = new ManualClock(Date.parse('2026-02-01T00:00:00Z'));
    serveFeed([{ n: 1, timestamp: 100, attributes: [{ type: 'domain', value: 'one.example.com', to_ids: true }] }]);
    const list = await load({ pollInterval: 60_000, clock });
    expect(clock.pending).toBe(1);
    serveFeed([
      { n: 1, timestamp: 100, attributes: [{ type: 'domain', value: 'one.example.com', to_ids: true }] },
      { n: 2, timestamp: 100, attributes: [{ type: 'domain', value: 'two.example.com', to_ids: true }] },
    ]);
    requests = [];
    await clock.advance(59_999);
    expect(requests).toEqual([]);
    await until(async () => {
      await clock.advance(1);
      return lookup(list, 'two.example.com').status === 'ok';
    });
    expect(eventFiles()).toEqual([`/feed/${uuid(2)}.json`]);
    await until(async () => clock.pending === 1);
    await list.close();
    expect(clock.pending).toBe(0);
    requests = [];
    await clock.advance(600_000);
    expect(requests).toEqual([]);
  });

  it('keeps its entries when a later read fails, and says so in its status', async () => {
    const clock = new ManualClock(Date.parse('2026-02-01T00:00:00Z'));
    serveFeed([{ n: 1, attributes: [{ type: 'domain', value: 'one.example.com', to_ids: true }] }]);
    const list = await load({ pollInterval: 60_000, clock });
    files.set('/feed/manifest.json', { body: '{"truncated": ' });
    await expect(list.refresh()).rejects.toThrow(/manifest\.json is not JSON/);
    expect(lookup(list, 'one.example.com').status).toBe('ok');
    expect(list.status().lastError).toEqual({
      at: '2026-02-01T00:00:00.000Z',
      message: expect.stringMatching(
        /^Cannot load list MISP feed "osint" at http:\/\/127\.0\.0\.1:\d+\/feed: manifest\.json is not JSON/,
      ),
    });
  });
});

describe('hostile and broken feeds', () => {
  it('never builds a path or URL from a manifest key that is not a UUID', async () => {
    serveFeed([{ n: 1, attributes: [{ type: 'domain', value: 'ok.example.com', to_ids: true }] }], {
      '../../etc/passwd': { timestamp: 1 },
      '..%2f..%2fetc%2fpasswd': { timestamp: 1 },
      '/etc/passwd': { timestamp: 1 },
      'C:\\Windows\\win.ini': { timestamp: 1 },
      '00000000-0000-4000-8000-000000000009/../../x': { timestamp: 1 },
      '': { timestamp: 1 },
    });
    const list = await load();
    expect(requests.map((r) => r.path).sort()).toEqual(['/feed/manifest.json', `/feed/${uuid(1)}.json`].sort());
    expect(list.status().skippedEvents).toMatchObject({ count: 6, byReason: { 'manifest key is not a UUID': 6 } });
    expect(list.status().skippedEvents.first[0]).toEqual({
      event: '"../../etc/passwd"',
      reason: 'manifest key is not a UUID',
    });
    expect(lookup(list, 'ok.example.com').status).toBe('ok');
  });

  it('refuses a file name that is not manifest.json or <uuid>.json in every transport', async () => {
    expect(() => checkFeedFileName('../../etc/passwd')).toThrow(TypeError);
    expect(() => checkFeedFileName(`${uuid(1)}.json/../../x.json`)).toThrow(TypeError);
    expect(checkFeedFileName(`${uuid(1)}.json`)).toBe(`${uuid(1)}.json`);
    await expect(directoryTransport(dir).read('../passwd.json', { maxBytes: 100 })).rejects.toThrow(TypeError);
  });

  it('refuses a manifest that is too large, too deep, not JSON or not an object, naming the problem', async () => {
    const cases: [string, RegExp][] = [
      [JSON.stringify({ padding: 'x'.repeat(4096) }), /manifest\.json is larger than 2048 bytes/],
      [`${'['.repeat(1000)}${']'.repeat(1000)}`, /manifest\.json is nested deeper than 64 levels/],
      ['{"a": 1, "a": 2}', /manifest\.json has the key "a" twice/],
      ['<html>', /manifest\.json is not JSON/],
      ['[1, 2]', /manifest\.json is not an object of events keyed by their UUID/],
      ['42', /not an object of events/],
      ['"text"', /not an object of events/],
      ['null', /not an object of events/],
    ];
    for (const [body, message] of cases) {
      files.set('/feed/manifest.json', { body });
      const error = await load({ maxManifestBytes: 2048 }).catch((e: unknown) => e);
      expect(ListLoadError.isInstance(error), body.slice(0, 20)).toBe(true);
      expect((error as Error).message).toMatch(message);
    }
    // An empty feed, as PHP writes it, is a feed without events.
    files.set('/feed/manifest.json', { body: '[]' });
    expect((await load()).status()).toMatchObject({ events: 0, entries: 0 });
  });

  it('skips and counts manifest entries without a usable timestamp, and events beyond maxEvents (oldest first)', async () => {
    serveFeed(
      Array.from({ length: 12 }, (_, i) => ({
        n: i + 1,
        timestamp: 1000 + i,
        attributes: [{ type: 'domain', value: `e${i + 1}.example.com`, to_ids: true }],
      })),
      {
        [uuid(90)]: { timestamp: 'yesterday' },
        [uuid(91)]: { timestamp: -5 },
        [uuid(92)]: { timestamp: 1.5 },
        [uuid(93)]: 'not an object',
        [uuid(94)]: null,
      },
    );
    const list = await load({ maxEvents: 10 });
    expect(eventFiles()).toHaveLength(10);
    expect(lookup(list, 'e12.example.com').status).toBe('ok');
    expect(lookup(list, 'e3.example.com').status).toBe('ok');
    expect(lookup(list, 'e2.example.com').status).toBe('not_found');
    expect(lookup(list, 'e1.example.com').status).toBe('not_found');
    expect(list.status().skippedEvents.byReason).toEqual({
      'manifest entry has no valid timestamp': 5,
      'over maxEvents': 2,
    });
  });

  it('skips and counts event files that are too large, missing, not JSON or not the event', async () => {
    serveFeed([
      { n: 1, attributes: [{ type: 'domain', value: 'ok.example.com', to_ids: true }] },
      { n: 2, attributes: [{ type: 'domain', value: 'x'.repeat(3000), to_ids: true }] },
      { n: 3, attributes: [] },
      { n: 4, attributes: [] },
      { n: 5, attributes: [] },
      { n: 6, attributes: [] },
    ]);
    files.delete(`/feed/${uuid(3)}.json`);
    files.set(`/feed/${uuid(4)}.json`, { body: '{"Event": [' });
    files.set(`/feed/${uuid(5)}.json`, { body: JSON.stringify({ Event: { uuid: uuid(1), info: 'x' } }) });
    files.set(`/feed/${uuid(6)}.json`, {
      body: `{"Event": {"uuid": "${uuid(6)}", "x": ${'['.repeat(500)}${']'.repeat(500)}}}`,
    });
    const list = await load({ maxEventBytes: 2048 });
    expect(lookup(list, 'ok.example.com').status).toBe('ok');
    expect(list.status()).toMatchObject({ events: 1, entries: 1 });
    expect(list.status().skippedEvents.byReason).toEqual({
      'event file larger than maxEventBytes': 1,
      'event file missing': 1,
      'not a MISP event': 3,
    });
  });

  it('holds at most maxEntries entries, keeping those of the newest events', async () => {
    serveFeed([
      { n: 1, timestamp: 100, attributes: [{ type: 'domain', value: 'old.example.com', to_ids: true }] },
      {
        n: 2,
        timestamp: 200,
        attributes: [
          { type: 'domain', value: 'new1.example.com', to_ids: true },
          { type: 'domain', value: 'new2.example.com', to_ids: true },
        ],
      },
    ]);
    const list = await load({ maxEntries: 2 });
    expect(lookup(list, 'new1.example.com').status).toBe('ok');
    expect(lookup(list, 'new2.example.com').status).toBe('ok');
    expect(lookup(list, 'old.example.com').status).toBe('not_found');
    expect(list.status().skippedAttributes).toMatchObject({
      count: 1,
      byReason: { 'over maxEntries': 1 },
      first: [{ event: uuid(1), attribute: 'old.example.com', reason: 'over maxEntries: the list holds 2 entries' }],
    });
  });

  it('escapes what a feed puts in evidence: no control character reaches a log line or a terminal', async () => {
    serveFeed([
      {
        n: 1,
        info: 'line one\nFAKE LOG LINE\u2028\u001b[31m',
        tags: ['evil\r\ntag'],
        attributes: [{ type: 'domain', value: 'ok.example.com', to_ids: true, comment: 'a\u0085b', category: 'x\ty' }],
      },
    ]);
    const list = await load();
    const [evidence] = lookup(list, 'ok.example.com').evidence;
    expect(evidence).toBe(
      `listed in MISP feed "osint": event ${uuid(1)} "line one\\nFAKE LOG LINE\\u2028\\u001b[31m" by CIRCL on ` +
        '2026-01-15 [evil\\u000d\\u000atag]: domain attribute in x\\u0009y, comment "a\\u0085b"',
    );
    expect(evidence).not.toMatch(/[\p{Cc}\u2028\u2029]/u);
  });

  it('sends its headers, never shows them, and says what a refusal, a redirect or a zip archive was', async () => {
    serveFeed([{ n: 1, attributes: [{ type: 'domain', value: 'ok.example.com', to_ids: true }] }]);
    const secret = 'Bearer s3cr3t-feed-key';
    await load({ headers: { Authorization: secret } });
    expect(requests.every((r) => r.headers.authorization === secret)).toBe(true);
    expect(requests[0]?.headers.accept).toBe('application/json');

    const refusals: [Served, RegExp][] = [
      [{ status: 403, body: 'no' }, /manifest\.json refused access \(HTTP 403\): check the list's headers/],
      [
        { status: 301, body: '', headers: { location: 'https://elsewhere.example.com/feed/manifest.json?key=x' } },
        /answered HTTP 301 \(to https:\/\/elsewhere\.example\.com\/feed\/manifest\.json\); MISP feeds are read without following redirects/,
      ],
      [
        { body: 'PK', headers: { 'content-type': 'application/zip' } },
        /is a zip archive, which threatlib does not unpack/,
      ],
      [{ status: 503, body: '' }, /answered HTTP 503/],
    ];
    for (const [served, message] of refusals) {
      files.set('/feed/manifest.json', served);
      const error = await load({ headers: { Authorization: secret } }).catch((e: unknown) => e as Error);
      expect(error).toBeInstanceOf(Error);
      expect((error as Error).message).toMatch(message);
      expect((error as Error).message).not.toContain('s3cr3t');
      expect((error as Error).message).not.toContain('key=x');
    }
  });

  it('answers a read that takes longer than the timeout with an error naming it', async () => {
    const slow = createServer((_req, res) => {
      setTimeout(() => res.end('{}'), 2_000).unref();
    });
    await new Promise<void>((resolve) => slow.listen(0, '127.0.0.1', resolve));
    try {
      const url = `http://127.0.0.1:${(slow.address() as AddressInfo).port}/feed`;
      await expect(load({ url, timeout: 50 })).rejects.toThrow(/timed out after 50 ms/);
    } finally {
      slow.closeAllConnections();
      await new Promise((resolve) => slow.close(resolve));
    }
  });

  it('refuses invalid options, and an http:// URL while HTTPS is enforced, before any request', async () => {
    const refused: [Partial<MispFeedListOptions>, RegExp][] = [
      [{ url: undefined }, /give either url .* or directory/],
      [{ directory: dir }, /give either url .* or directory .*, not both/],
      [{ url: 'ftp://feeds.example.com/x' }, /url: expected an http\(s\) URL, got ftp:/],
      [{ url: 'https://user:pw@feeds.example.com/x' }, /url: must not carry credentials/],
      [{ url: 'https://feeds.example.com/x?key=1' }, /url: must not have a query or fragment/],
      [{ pollInterval: 1000 }, /pollInterval: expected 0 \(read once\) or at least 60000 ms/],
      [{ maxEventBytes: 10 }, /maxEventBytes: at least 1024 bytes/],
      [{ headers: { 'Bad Header': 'x' } }, /headers: expected a header name \(an RFC 9110 token.*got "Bad Header"/],
      [{ headers: { 'X-Key': 'a\r\nInjected: 1' } }, /headers\.X-Key: a header value cannot hold a line break/],
      [{ verdict: 'evil' as never }, /unknown verdict "evil"/],
      [{ name: '' }, /a list needs a name/],
      [{ mystery: 1 } as never, /Unrecognized key: "mystery"/],
    ];
    for (const [options, message] of refused) {
      const error = await load(options).catch((e: unknown) => e);
      expect(ListLoadError.isInstance(error), JSON.stringify(options)).toBe(true);
      expect((error as Error).message).toMatch(message);
    }
    const insecure = await load({ enforceHttps: true }).catch((e: unknown) => e);
    expect(InsecureEndpointError.isInstance(insecure)).toBe(true);
    expect(requests).toEqual([]);
  });
});

describe('a MISP feed in a directory', () => {
  it('reads manifest.json and the event files as MISP reads a local feed', async () => {
    const feed = join(dir, 'local');
    await rm(feed, { recursive: true, force: true });
    await import('node:fs/promises').then((fs) => fs.mkdir(feed));
    await writeFile(join(feed, 'manifest.json'), `\uFEFF${JSON.stringify({ [uuid(1)]: { timestamp: 5 } })}`);
    await writeFile(
      join(feed, `${uuid(1)}.json`),
      JSON.stringify({
        Event: {
          uuid: uuid(1),
          info: 'local',
          Attribute: [{ type: 'md5', value: 'D41D8CD98F00B204E9800998ECF8427E' }],
        },
      }),
    );
    const list = await loadMispFeedList({ name: 'local', directory: feed, pollInterval: 0 });
    lists.push(list);
    expect(lookup(list, 'd41d8cd98f00b204e9800998ecf8427e').status).toBe('ok');
    expect(list.status()).toMatchObject({ source: feed, events: 1, entries: 1 });

    const missing = await loadMispFeedList({ name: 'gone', directory: join(dir, 'nowhere'), pollInterval: 0 }).catch(
      (e: unknown) => e,
    );
    expect((missing as Error).message).toMatch(/manifest\.json is not in .*nowhere/);
  });
});

/** Polls `check` (advancing nothing by itself) until it holds; fails after a few hundred tries. */
async function until(check: () => Promise<boolean>): Promise<void> {
  for (let i = 0; i < 500; i++) {
    if (await check()) return;
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
  throw new Error('condition never held');
}
