import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { ThreatClient } from '../client/threat-client.js';
import { silentLogger } from '../logging/logger.js';
import { ManualClock } from '../scheduler/clock.js';
import { exportMispFeed } from './export-misp-feed.js';
import { describeWithPyMisp, type PyMispEventSpec, pymispCheck, pymispGenerate } from './pymisp.test-suite.js';
import type { MispFeedInput } from './to-misp-feed.js';

// Both directions against the MISP project's own code: a feed threatlib writes is read by MISP's feed rules
// (reproduced from app/Model/Feed.php, see e2e/tools/misp_feed.py) and by PyMISP, which regenerates its manifest and
// hashes; a feed PyMISP's generator writes is read by threatlib's list source, and its indicators are found by scans.

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'threatlib-pymisp-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describeWithPyMisp('MISP feeds between threatlib and PyMISP', () => {
  it('a feed exportMispFeed writes is taken by MISP and PyMISP as it is', async () => {
    const at = '2026-03-01T10:00:00Z';
    const inputs: MispFeedInput[] = [
      { indicator: '198.51.100.7', type: 'ip', confidence: 83, verdict: 'malicious', startedAt: at, riskScore: 9 },
      { indicator: '2001:DB8::1', type: 'ipv6', confidence: 40, verdict: 'suspicious', startedAt: at },
      { indicator: 'hxxp://Evil[.]example.com/x?a=1', type: 'url', confidence: 12, verdict: 'clean', startedAt: at },
      {
        indicator: 'd41d8cd98f00b204e9800998ecf8427e',
        type: 'md5',
        confidence: 95,
        verdict: 'malicious',
        startedAt: at,
      },
      {
        id: 'alert-42',
        title: 'Phishing wave — “invoice” lures',
        severity: 'critical',
        timestamp: '2026-03-02T08:00:00Z',
        description: 'Seen in mail to finance.\nTwo waves.',
        indicators: [
          { type: 'domain', value: 'Phish.Example.org', confidence: 90, sources: ['feed_urls'] },
          { type: 'email', value: 'Billing@Phish.Example.org' },
          { type: 'sha256', value: 'E3B0C44298FC1C149AFBF4C8996FB92427AE41E4649B934CA495991B7852B855' },
          { type: 'sha1', value: 'da39a3ee5e6b4b0d3255bfef95601890afd80709' },
          { type: 'url', value: 'https://phish.example.org/invoice.php?id=7' },
        ],
      },
    ];
    const target = join(dir, 'ours');
    const written = await exportMispFeed(inputs, target, { tags: ['tlp:green'] });
    const report = await pymispCheck(target);
    expect(report.errors).toEqual([]);
    expect(Object.keys(report.events).sort()).toEqual(
      written.files
        .filter((name) => /^[0-9a-f-]{36}\.json$/.test(name))
        .map((name) => name.slice(0, -5))
        .sort(),
    );
    const attributes = Object.values(report.events)
      .flatMap((event) => event.attributes.map((a) => `${a.type} ${a.value} ${a.to_ids} ${a.category}`))
      .sort();
    expect(attributes).toEqual([
      'comment Seen in mail to finance.\nTwo waves. false Other',
      'domain phish.example.org true Network activity',
      'email-src billing@phish.example.org true Payload delivery',
      'ip-dst 198.51.100.7 true Network activity',
      'ip-dst 2001:db8::1 true Network activity',
      'md5 d41d8cd98f00b204e9800998ecf8427e true Payload delivery',
      'sha1 da39a3ee5e6b4b0d3255bfef95601890afd80709 true Payload delivery',
      'sha256 e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855 true Payload delivery',
      'url http://evil.example.com/x?a=1 false Network activity',
      'url https://phish.example.org/invoice.php?id=7 true Network activity',
    ]);
    expect(report.hashes).toBe(10);
  }, 60_000);

  it('the MISP and PyMISP check finds what MISP or PyMISP would refuse or write otherwise', async () => {
    const target = join(dir, 'tampered');
    await exportMispFeed(
      [
        {
          indicator: '198.51.100.7',
          type: 'ipv4',
          confidence: 83,
          verdict: 'malicious',
          startedAt: '2026-03-01T10:00:00Z',
        },
      ],
      target,
    );
    const manifestPath = join(target, 'manifest.json');
    const manifest = JSON.parse(await readFile(manifestPath, 'utf8')) as Record<string, Record<string, unknown>>;
    const [uuid] = Object.keys(manifest) as [string];
    const eventPath = join(target, `${uuid}.json`);
    const event = JSON.parse(await readFile(eventPath, 'utf8'));
    // What a careless writer does: a string timestamp, an upper-case address MISP would rewrite, a key MISP refuses.
    (manifest[uuid] as Record<string, unknown>).timestamp = String(manifest[uuid]?.timestamp);
    event.Event.Attribute.push({
      ...event.Event.Attribute[0],
      type: 'email-src',
      category: 'Payload delivery',
      value: 'A@B.example.com',
      uuid: '11111111-2222-4333-8444-555555555555',
    });
    manifest['../../etc/passwd'] = { ...manifest[uuid] };
    await writeFile(manifestPath, JSON.stringify(manifest));
    await writeFile(eventPath, JSON.stringify(event));
    const report = await pymispCheck(target);
    expect(report.errors).toEqual(
      expect.arrayContaining([
        'manifest[../../etc/passwd]: MISP refuses the key: Validation::uuid fails',
        `manifest[${uuid}].timestamp: expected an integer, got '${manifest[uuid]?.timestamp}'`,
        `${uuid}.json: email-src 'A@B.example.com': MISP would store 'a@b.example.com'`,
        'hashes.csv: 0 lines PyMISP would not write, 1 missing',
        'manifest.json differs from the one feed_meta_generator writes for the same events',
      ]),
    );
  }, 60_000);

  it('a feed PyMISP generates is read by the list source, over HTTP and incrementally, and scans find its indicators', async () => {
    const feed = join(dir, 'theirs');
    const events: PyMispEventSpec[] = [
      {
        uuid: '5b1c8d2e-4f6a-4b7c-9d8e-0f1a2b3c4d5e',
        info: 'OSINT - Emotet C2',
        timestamp: 1_768_435_200,
        tags: ['tlp:white', 'misp-galaxy:malpedia="Emotet"'],
        attributes: [
          { type: 'ip-dst', value: '198.51.100.7', to_ids: true, comment: 'C2' },
          { type: 'domain', value: 'context.example.com', to_ids: false },
          { type: 'domain|ip', value: 'both.example.net|203.0.113.9' },
          { type: 'md5', value: 'd41d8cd98f00b204e9800998ecf8427e', deleted: true },
          { type: 'url', value: 'http://phish.example.org/login' },
          { type: 'ip-src|port', value: '192.0.2.80|8080' },
          {
            type: 'filename|sha256',
            value: 'drop.exe|e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855',
          },
          { type: 'email-src', value: 'billing@phish.example.org', disable_correlation: true },
          { type: 'link', value: 'https://blog.example.com/emotet' },
          { type: 'text', value: 'free text' },
        ],
        objects: [
          {
            name: 'domain-ip',
            attributes: [
              { relation: 'domain', value: 'obj.example.com' },
              { relation: 'ip', value: '192.0.2.44' },
            ],
          },
        ],
      },
      {
        uuid: '6c2d9e3f-5a7b-4c8d-8e9f-1a2b3c4d5e6f',
        info: 'OSINT - phishing kit',
        timestamp: 1_768_435_200,
        attributes: [{ type: 'hostname', value: 'kit.example.net', to_ids: true }],
      },
    ];
    await pymispGenerate(feed, events);
    const { server, url, requests } = await serveDirectory(feed);
    const clock = new ManualClock(Date.parse('2026-02-01T00:00:00Z'));
    const client = new ThreatClient(
      {
        sources: [],
        strategy: 'aggressive',
        security: { enforceHttps: false },
        alerting: { enabled: false },
        lists: [{ name: 'pymisp', misp: { url, pollInterval: 60_000 } }],
      },
      { env: false, logger: silentLogger, clock },
    );
    try {
      await client.start();
      const listed = [
        '198.51.100.7',
        'both.example.net',
        '203.0.113.9',
        'http://phish.example.org/login',
        '192.0.2.80',
        'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855',
        'billing@phish.example.org',
        'obj.example.com',
        '192.0.2.44',
        'kit.example.net',
        // Host matching, as for every local list: names under a listed domain, URLs on a listed address.
        'www.kit.example.net',
        'http://198.51.100.7/gate.php',
      ];
      for (const value of listed) {
        const verdict = await client.correlate(value);
        expect(verdict.isThreat, value).toBe(true);
        expect(verdict.results.find((r) => r.feed === 'list:pymisp')?.status, value).toBe('ok');
      }
      for (const value of [
        'context.example.com',
        'd41d8cd98f00b204e9800998ecf8427e',
        '8080',
        'https://blog.example.com/emotet',
      ]) {
        const verdict = await client.correlate(value).catch(() => undefined);
        expect(verdict?.isThreat ?? false, value).toBe(false);
      }
      const c2 = await client.scout('198.51.100.7');
      const answer = c2.results.find((r) => r.feed === 'list:pymisp');
      expect(answer?.evidence[0]).toBe(
        'listed in MISP feed "pymisp": event 5b1c8d2e-4f6a-4b7c-9d8e-0f1a2b3c4d5e "OSINT - Emotet C2" by CIRCL on ' +
          '2026-01-15 [tlp:white, misp-galaxy:malpedia="Emotet"]: ip-dst attribute in Network activity, comment "C2"',
      );
      expect(answer?.malwareFamilies).toEqual(['Emotet']);
      const [status] = await client.listStatus();
      expect(status).toMatchObject({
        kind: 'misp',
        name: 'pymisp',
        events: 2,
        skippedAttributes: {
          // PyMISP gives the text attribute its type's default, to_ids false.
          byReason: { 'to_ids is false': 2, deleted: 1 },
        },
      });

      // PyMISP writes the first event again, edited (newer timestamp): only that event file is read again.
      const edited = events[0] as PyMispEventSpec;
      await pymispGenerate(feed, [
        { ...edited, timestamp: 1_768_521_600, attributes: [{ type: 'ip-dst', value: '198.51.100.99', to_ids: true }] },
        events[1] as PyMispEventSpec,
      ]);
      requests.length = 0;
      // The list's poll timer fires; its read is over when the status shows it.
      await clock.advance(60_000);
      for (let i = 0; i < 400; i++) {
        const [now] = await client.listStatus();
        if (now?.kind === 'misp' && now.lastRefresh?.at === new Date(clock.now()).toISOString()) break;
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
      const [after] = await client.listStatus();
      expect(after).toMatchObject({ lastRefresh: { manifestChanged: true, fetched: 1, removed: 0 } });
      expect(requests.sort()).toEqual(['/feed/5b1c8d2e-4f6a-4b7c-9d8e-0f1a2b3c4d5e.json', '/feed/manifest.json']);
      expect((await client.correlate('198.51.100.99')).isThreat).toBe(true);
      expect((await client.correlate('kit.example.net')).isThreat).toBe(true);
      expect((await client.correlate('both.example.net')).isThreat).toBe(false);
    } finally {
      await client.stop();
      await new Promise((resolve) => server.close(resolve));
    }
  }, 60_000);
});

/** Serves `directory` over HTTP at `/feed/`, recording the paths asked. */
async function serveDirectory(directory: string): Promise<{ server: Server; url: string; requests: string[] }> {
  const requests: string[] = [];
  const server = createServer(async (req, res) => {
    const path = req.url ?? '';
    requests.push(path);
    const name = path.startsWith('/feed/') ? path.slice('/feed/'.length) : '';
    if (!/^(?:manifest|[0-9a-f-]{36})\.json$/.test(name)) {
      res.writeHead(404).end();
      return;
    }
    try {
      res.writeHead(200, { 'content-type': 'application/json' }).end(await readFile(join(directory, name)));
    } catch {
      res.writeHead(404).end();
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/feed`, requests };
}
