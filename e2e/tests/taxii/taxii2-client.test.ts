// taxii2-client, the OASIS reference TAXII 2.1 client, reads and writes threatlib's TAXII server: discovery, the API
// root's collections, paging through every object with limit=100 (and the manifest), adding objects and reading the
// status. Every object the server serves passes the OASIS stix2-validator.
import { randomUUID } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { silentLogger, stixIndicatorId, THREATLIB_STIX_IDENTITY, ThreatClient, toStixBundle } from '@threatlib/core';
import { APIServer } from '@threatlib/server';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { describeWithTaxiiTools, taxii2Client, validateStixBundle } from './python-tools.js';

const TOKEN = 'taxii-interop-token-0123456789abcdef';
const COUNT = 2500;
const domain = (n: number) => `bulk-${n}-example.com`;

/** A REST and TAXII server for a client whose one list holds `entries`; stopped by the caller. */
async function serve(entries: readonly string[]) {
  const directory = mkdtempSync(join(tmpdir(), 'threatlib-taxii-interop-'));
  writeFileSync(join(directory, 'list.txt'), `${entries.join('\n')}\n`);
  const client = new ThreatClient(
    {
      sources: [],
      strategy: 'aggressive',
      lists: [{ name: 'bulk', file: join(directory, 'list.txt') }],
      security: { enforceHttps: false },
      caching: { enabled: false },
      alerting: { enabled: false },
    },
    { env: false, logger: silentLogger },
  );
  const server = new APIServer({
    port: 0,
    authentication: { type: 'bearer', tokens: [TOKEN] },
    rateLimit: { max: 100_000 },
  });
  server.mount('/api/v1', client);
  server.mountTaxii('/taxii2', client);
  const base = await server.start();
  const rest = (path: string, body: unknown) =>
    fetch(`${base}/api/v1${path}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
  return { server, base, rest };
}

describeWithTaxiiTools("taxii2-client against threatlib's TAXII server", () => {
  let server: APIServer;
  let base: string;
  let rest: Awaited<ReturnType<typeof serve>>['rest'];

  beforeAll(async () => {
    ({ server, base, rest } = await serve(Array.from({ length: COUNT }, (_, i) => domain(i))));
    // The threats the server's indicators collection holds: 2,500 scans concluded malicious, through the REST API.
    for (let from = 0; from < COUNT; from += 1000) {
      const indicators = Array.from({ length: Math.min(1000, COUNT - from) }, (_, i) => domain(from + i));
      const response = await rest('/threats/batch', { indicators });
      expect(response.status).toBe(200);
    }
  }, 120_000);
  afterAll(async () => {
    await server?.stop();
  });

  it('pages through the 2,500 indicators with limit=100 and gets each exactly once', async () => {
    const result = await taxii2Client({
      url: `${base}/taxii2/`,
      token: TOKEN,
      collection: 'indicators',
      read: { per_request: 100 },
    });
    expect(result.discovery).toEqual({ title: 'threatlib TAXII 2.1 server', api_roots: [`${base}/taxii2/threatlib/`] });
    expect(result.collections.map((c) => [c.alias, c.can_read, c.can_write])).toEqual([
      ['indicators', true, false],
      ['inbox', true, true],
    ]);
    const pages = result.pages ?? [];
    // threatlib's identity, then the 2,500 indicators: 26 pages of at most 100.
    expect(pages).toHaveLength(26);
    expect(pages.every((page) => page.length <= 100)).toBe(true);
    const ids = pages.flat();
    expect(ids).toHaveLength(COUNT + 1);
    expect(new Set(ids).size).toBe(COUNT + 1);
    expect(new Set(ids)).toEqual(
      new Set([
        THREATLIB_STIX_IDENTITY.id,
        ...Array.from({ length: COUNT }, (_, i) => stixIndicatorId({ type: 'domain', value: domain(i) })),
      ]),
    );
    expect(result.manifest_count).toBe(COUNT + 1);
  }, 60_000);

  it('adds 100 objects to the inbox: the status is complete, and later scans list the indicators', async () => {
    const added = toStixBundle(
      Array.from({ length: 100 }, (_, i) => ({
        indicator: `inbox-${i}-example.com`,
        type: 'domain' as const,
        confidence: 80,
        verdict: 'malicious' as const,
      })),
    ).objects.slice(1);
    const before = (await (await rest('/threats/scan', { indicator: 'inbox-7-example.com' })).json()) as {
      isThreat: boolean;
    };
    expect(before.isThreat).toBe(false);
    const result = await taxii2Client({
      url: `${base}/taxii2/`,
      token: TOKEN,
      collection: 'inbox',
      add: { objects: added },
    });
    expect(result.status).toMatchObject({
      status: 'complete',
      total_count: 100,
      success_count: 100,
      failure_count: 0,
      pending_count: 0,
    });
    expect(result.status_again).toEqual(result.status);
    for (const n of [0, 7, 99]) {
      const scanned = (await (await rest('/threats/scan', { indicator: `inbox-${n}-example.com` })).json()) as {
        isThreat: boolean;
        results: Array<{ feed: string; status: string }>;
      };
      expect(scanned.isThreat).toBe(true);
      expect(scanned.results.find((r) => r.feed === 'list:taxii-inbox')?.status).toBe('ok');
    }
  }, 60_000);

  it('serves objects that all pass the OASIS stix2-validator (strict, references resolved)', async () => {
    // Every kind of indicator threatlib writes: concluded by scans (the indicators collection; the first four
    // twice, the second time with more evidence, so in two versions) and posted (the inbox); everything both
    // collections serve, read by taxii2-client.
    const values = [
      '198.51.100.200',
      '2001:db8::77',
      'validator-example.com',
      'http://validator-example.com/path?q=1',
      'phish@validator-example.com',
      'd41d8cd98f00b204e9800998ecf8427e',
      'da39a3ee5e6b4b0d3255bfef95601890afd80709',
      'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855',
    ];
    const small = await serve(values.slice(0, 4));
    try {
      const url = `${small.base}/taxii2/`;
      for (const indicator of values.slice(0, 4)) await small.rest('/threats/scan', { indicator });
      const posted = toStixBundle(
        values.map((indicator) => ({
          indicator,
          type: typeOf(indicator),
          confidence: 70,
          verdict: 'malicious' as const,
        })),
        // An hour back: a version never shares its modified time with one the server concludes during the test.
        { now: Date.now() - 3_600_000 },
      );
      await taxii2Client({ url, token: TOKEN, collection: 'inbox', add: { objects: posted.objects.slice(1) } });
      for (const indicator of values) await small.rest('/threats/scan', { indicator });
      const served = [];
      for (const collection of ['indicators', 'inbox']) {
        const result = await taxii2Client({ url, token: TOKEN, collection, read: { per_request: 5 } });
        served.push(...(result.objects ?? []));
      }
      // The indicators collection serves the newest version of each; the older versions of the first four come
      // through their versions route, read here as the server serves them.
      const versions = await fetch(`${url}threatlib/collections/indicators/objects/?match[version]=all`, {
        headers: { authorization: `Bearer ${TOKEN}`, accept: 'application/taxii+json;version=2.1' },
      });
      const all = ((await versions.json()) as { objects: typeof served }).objects;
      expect(all.filter((o) => o.type === 'indicator')).toHaveLength(values.length + 4);
      served.push(...all);
      // The same version of an object in both collections (threatlib's identity) once: a bundle holds it once.
      const objects = [...new Map(served.map((o) => [`${o.id}@${String(o.modified)}`, o])).values()];
      expect(objects.filter((o) => o.type === 'indicator')).toHaveLength(2 * values.length + 4);
      expect(new Set(objects.map((o) => o.id)).size).toBeLessThan(objects.length);
      const verdict = await validateStixBundle({ type: 'bundle', id: `bundle--${randomUUID()}`, objects });
      expect(verdict.errors).toEqual([]);
      expect(verdict.valid).toBe(true);
    } finally {
      await small.server.stop();
    }
  }, 60_000);
});

function typeOf(value: string): 'ipv4' | 'ipv6' | 'domain' | 'url' | 'email' | 'md5' | 'sha1' | 'sha256' {
  if (/^\d+\.\d+\.\d+\.\d+$/.test(value)) return 'ipv4';
  if (value.includes('::')) return 'ipv6';
  if (value.startsWith('http')) return 'url';
  if (value.includes('@')) return 'email';
  if (value.includes('.')) return 'domain';
  return value.length === 32 ? 'md5' : value.length === 40 ? 'sha1' : 'sha256';
}
