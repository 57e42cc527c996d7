import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CampaignDetectedEvent } from '../campaigns/campaign.js';
import { ThreatClient } from '../client/threat-client.js';
import type { ThreatConfig } from '../config/schema.js';
import { ConfigurationError } from '../errors/configuration-error.js';
import { InsecureEndpointError } from '../errors/insecure-endpoint-error.js';
import { silentLogger } from '../logging/logger.js';
import { ManualClock } from '../scheduler/clock.js';

// A MISP feed configured as a list (`lists: [{name, misp: {...}}]`): loaded with the client's lists, answered as
// `list:<name>`, polled until the client stops.

let dir: string;
let feed: string;
let server: Server;
let url: string;
const manifestReads: string[] = [];

const EVENT_A = '00000000-0000-4000-8000-00000000000a';
const EVENT_B = '00000000-0000-4000-8000-00000000000b';

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'threatlib-misp-client-'));
  feed = join(dir, 'feed');
  await mkdir(feed);
  const event = (uuid: string, attributes: object[]) =>
    writeFile(
      join(feed, `${uuid}.json`),
      JSON.stringify({
        Event: { uuid, info: `event ${uuid.slice(-1)}`, Tag: [{ name: 'tlp:white' }], Attribute: attributes },
      }),
    );
  await event(EVENT_A, [
    { type: 'domain', value: 'a1.threatlib-test.net', to_ids: true },
    { type: 'domain', value: 'a2.threatlib-test.net', to_ids: true },
    { type: 'domain', value: 'a3.threatlib-test.net', to_ids: true },
  ]);
  await event(EVENT_B, [
    { type: 'domain', value: 'b1.threatlib-test.net', to_ids: true },
    { type: 'domain', value: 'b2.threatlib-test.net', to_ids: true },
  ]);
  const manifest = JSON.stringify({
    [EVENT_A]: { info: 'event a', timestamp: 1, Tag: [{ name: 'tlp:white' }] },
    [EVENT_B]: { info: 'event b', timestamp: 1, Tag: [{ name: 'tlp:white' }] },
  });
  await writeFile(join(feed, 'manifest.json'), manifest);
  server = createServer((req, res) => {
    if (req.url === '/feed/manifest.json') {
      manifestReads.push(req.url);
      res.writeHead(200, { 'content-type': 'application/json' }).end(manifest);
    } else res.writeHead(404).end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/feed`;
});

afterAll(async () => {
  await new Promise((resolve) => server.close(resolve));
  await rm(dir, { recursive: true, force: true });
});

const client = (config: Partial<ThreatConfig>, clock = new ManualClock(Date.parse('2026-02-01T00:00:00Z'))) =>
  new ThreatClient({ sources: [], strategy: 'aggressive', alerting: { enabled: false }, ...config } as ThreatConfig, {
    env: false,
    logger: silentLogger,
    clock,
  });

describe('a MISP feed in the client configuration', () => {
  it('answers scans as list:<name>, beside file lists, and reports its status', async () => {
    const list = join(dir, 'block.txt');
    await writeFile(list, '198.51.100.7\nnot an indicator\n');
    const c = client({
      lists: [
        { name: 'block', file: list },
        { name: 'osint', misp: { directory: feed } },
      ],
    });
    try {
      const verdict = await c.correlate('www.a1.threatlib-test.net');
      expect(verdict.isThreat).toBe(true);
      expect(verdict.results.map((r) => [r.feed, r.status])).toEqual([
        ['list:block', 'not_found'],
        ['list:osint', 'ok'],
      ]);
      expect(await c.listStatus()).toEqual([
        {
          kind: 'file',
          name: 'block',
          source: list,
          format: 'plain',
          entries: 1,
          skipped: 1,
          firstSkipped: [expect.objectContaining({ line: 2 })],
        },
        expect.objectContaining({ kind: 'misp', name: 'osint', source: feed, events: 2, entries: 5 }),
      ]);
    } finally {
      await c.stop();
    }
  });

  it('polls the feed while the client runs, and stops polling when it stops', async () => {
    const clock = new ManualClock(Date.parse('2026-02-01T00:00:00Z'));
    const c = client(
      { security: { enforceHttps: false }, lists: [{ name: 'osint', misp: { url, pollInterval: 60_000 } }] },
      clock,
    );
    manifestReads.length = 0;
    await c.start();
    expect(manifestReads).toHaveLength(1);
    await clock.advance(60_000);
    await waitFor(() => manifestReads.length === 2);
    await c.stop();
    await clock.advance(600_000);
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(manifestReads).toHaveLength(2);
  });

  it('stops the feeds it loaded when another list fails to load, so none polls for a client that has no lists', async () => {
    const clock = new ManualClock(Date.parse('2026-02-01T00:00:00Z'));
    const c = client(
      {
        security: { enforceHttps: false },
        lists: [
          { name: 'osint', misp: { url, pollInterval: 60_000 } },
          { name: 'missing', file: join(dir, 'no-such-file.txt') },
        ],
      },
      clock,
    );
    manifestReads.length = 0;
    await expect(c.start()).rejects.toThrow(/no-such-file\.txt: the file does not exist/);
    expect(manifestReads).toHaveLength(1);
    await clock.advance(600_000);
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(manifestReads).toHaveLength(1);
  });

  it('forms a campaign from one MISP event, never from the tags every event of a feed shares', async () => {
    const c = client({ lists: [{ name: 'osint', misp: { directory: feed, pollInterval: 0 } }] });
    const detected: CampaignDetectedEvent[] = [];
    c.events.on('campaignDetected', (campaign) => {
      detected.push(campaign);
    });
    try {
      // One from each event, then a third from B: tlp:white and 'misp-feed' are shared, the events are not.
      for (const name of ['a1', 'b1', 'b2']) await c.correlate(`${name}.threatlib-test.net`);
      expect(detected).toEqual([]);
      for (const name of ['a2', 'a3']) await c.correlate(`${name}.threatlib-test.net`);
      expect(detected.map((campaign) => campaign.sharedBy)).toEqual([
        { kind: 'reference', value: `urn:uuid:${EVENT_A}` },
      ]);
    } finally {
      await c.stop();
    }
  });

  it('refuses a list with no source, two sources, file options on a feed, or an insecure feed URL', () => {
    const refused: [object, RegExp][] = [
      [{ name: 'x' }, /lists\[0\]\.file: required: the path of the list file \(or misp: \{url \| directory\}/],
      [
        { name: 'x', file: 'a.txt', misp: { directory: feed } },
        /lists\[0\]\.misp: give one source per list, not file and misp/,
      ],
      [
        { name: 'x', misp: { directory: feed }, format: 'csv', column: 1 },
        /lists\[0\]\.format: applies to list files.*lists\[0\]\.column: applies to CSV list files/,
      ],
      [{ name: 'x', misp: {} }, /lists\[0\]\.misp: give either url .* or directory/],
      [
        { name: 'x', misp: { url: 'https://u:p@feeds.example.com/f' } },
        /lists\[0\]\.misp\.url: must not carry credentials/,
      ],
      [
        { name: 'x', misp: { directory: feed, headers: { a: 'b' } } },
        /lists\[0\]\.misp\.headers: headers go with a url feed/,
      ],
      [
        { name: 'x', misp: { directory: feed, pollInterval: 5 } },
        /lists\[0\]\.misp\.pollInterval: expected 0 \(read once\) or at least 60000 ms/,
      ],
      [{ name: 'x', misp: { directory: feed, maxEvents: 0 } }, /lists\[0\]\.misp\.maxEvents:/],
      [{ name: 'x', misp: { directory: feed, extra: 1 } }, /lists\[0\]\.misp\.extra: unknown option/],
    ];
    for (const [list, message] of refused) {
      const attempt = () => client({ lists: [list as never] });
      expect(attempt, JSON.stringify(list)).toThrow(ConfigurationError);
      expect(attempt).toThrow(message);
    }
    // The secret in the URL is never quoted back.
    expect(() =>
      client({ lists: [{ name: 'x', misp: { url: 'https://u:hunter2@feeds.example.com/f' } }] }),
    ).not.toThrow(/hunter2/);
    const insecure = (() => {
      try {
        client({ lists: [{ name: 'x', misp: { url: 'http://feeds.example.com/f' } }] });
      } catch (error) {
        return error;
      }
      return undefined;
    })();
    expect(InsecureEndpointError.isInstance(insecure)).toBe(true);
    expect((insecure as Error).message).toMatch(/lists\[0\]\.misp\.url http:\/\/feeds\.example\.com\/f is not HTTPS/);
  });
});

async function waitFor(done: () => boolean): Promise<void> {
  for (let i = 0; i < 400 && !done(); i++) await new Promise((resolve) => setTimeout(resolve, 5));
  expect(done()).toBe(true);
}
