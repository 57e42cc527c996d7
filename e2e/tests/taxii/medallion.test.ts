// threatlib's TAXII list source against medallion, the OASIS reference TAXII 2.1 server (memory back end, started
// on a free loopback port with a bundle loaded): the first poll lists the bundle, the second (with added_after)
// exactly the indicators added since.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { silentLogger, ThreatClient, toStixBundle } from '@threatlib/core';
import { ManualClock } from '@threatlib/core/testing';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { describeWithTaxiiTools, type Medallion, startMedallion } from './python-tools.js';

const bundle = (prefix: string, count: number, at: string) =>
  toStixBundle(
    Array.from({ length: count }, (_, i) => ({
      indicator: `${prefix}-${i}-example.com`,
      type: 'domain' as const,
      confidence: 90,
      verdict: 'malicious' as const,
      startedAt: at,
    })),
  );

describeWithTaxiiTools('threatlib polls medallion, the reference TAXII 2.1 server', () => {
  let medallion: Medallion;
  const loaded = bundle('loaded', 120, '2026-01-01T00:00:00.000Z');

  beforeAll(async () => {
    medallion = await startMedallion(
      loaded.objects as unknown as Array<Record<string, unknown>>,
      Date.parse('2026-01-01T00:00:00Z'),
    );
  }, 60_000);
  afterAll(async () => {
    await medallion?.close();
  });

  it('lists the bundle on the first poll, and on the second (added_after) reads exactly the indicators added since', async () => {
    const clock = new ManualClock(Date.parse('2026-06-01T00:00:00Z'));
    const client = new ThreatClient(
      {
        sources: [],
        strategy: 'aggressive',
        lists: [
          {
            name: 'medallion',
            taxii: {
              url: medallion.apiRoot,
              collection: medallion.collection,
              auth: { type: 'basic', username: medallion.user, password: medallion.password },
              pageSize: 50,
              pollInterval: 60_000,
              stateFile: join(mkdtempSync(join(tmpdir(), 'threatlib-medallion-state-')), 'state.json'),
            },
          },
        ],
        security: { enforceHttps: false },
        caching: { enabled: false },
      },
      { env: false, logger: silentLogger, clock },
    );
    const status = async () => (await client.listStatus())[0] as Record<string, unknown>;
    try {
      await client.start();
      // 121 objects (threatlib's identity and 120 indicators), read 50 a page, following medallion's next.
      expect(await status()).toMatchObject({ state: 'ok', polls: 1, pages: 3, objects: 121, indicators: 120 });
      const position = (await status()).addedAfter;
      expect(position).toBe('2026-01-01T00:02:00.000000Z');
      expect((await client.correlate('loaded-119-example.com')).isThreat).toBe(true);
      expect((await client.correlate('added-0-example.com')).isThreat).toBe(false);

      // 30 indicators added to medallion by POST, as a producer would.
      const added = bundle('added', 30, '2026-05-01T00:00:00.000Z');
      const response = await fetch(`${medallion.apiRoot}collections/${medallion.collection}/objects/`, {
        method: 'POST',
        headers: {
          authorization: `Basic ${Buffer.from(`${medallion.user}:${medallion.password}`).toString('base64')}`,
          accept: 'application/taxii+json;version=2.1',
          'content-type': 'application/taxii+json;version=2.1',
        },
        body: JSON.stringify({ objects: added.objects.slice(1) }),
      });
      expect(response.status).toBe(202);
      expect(await response.json()).toMatchObject({ status: 'complete', success_count: 30 });

      await clock.advance(60_000);
      const deadline = Date.now() + 20_000;
      for (let now = await status(); now.polls !== 2; now = await status()) {
        if (Date.now() > deadline) throw new Error(`the second poll did not end: ${JSON.stringify(now)}`);
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      // The second poll read the 30 new objects and nothing else: 151 in all.
      expect(await status()).toMatchObject({ state: 'ok', polls: 2, objects: 151, indicators: 150 });
      expect((await status()).addedAfter).not.toBe(position);
      for (const value of ['added-0-example.com', 'added-29-example.com', 'loaded-0-example.com']) {
        expect((await client.correlate(value)).isThreat, value).toBe(true);
      }
    } finally {
      await client.stop();
    }
  }, 60_000);
});
