import { ManualClock } from '@threatlib/core/testing';
import { eventually } from '@threatlib/test-utils';
import { describeWithElasticsearch, elasticsearch } from '@threatlib/test-utils/elasticsearch';
import { expect, it } from 'vitest';
import { dailyIndices, rawCount } from '../test-support/elasticsearch.js';
import { DAY, open } from '../test-support/search-index.js';

describeWithElasticsearch('SearchIndexStorage on Elasticsearch', () => {
  it('retention: old daily indices are deleted at start and by the sweep on the clock, nothing else', async () => {
    const clock = new ManualClock(Date.parse('2026-03-31T08:00:00Z'));
    const { storage, indices } = open('retention', { retentionDays: 30, sweepIntervalMs: DAY }, { clock });
    const base = indices.threats;
    const names = ['2026.02.27', '2026.02.28', '2026.03.01', '2026.03.02', '2026.03.31'].map((d) => `${base}-${d}`);
    const notOurs = `${indices.campaigns}-2026.01.15`;
    for (const name of [...names, `${base}-archive`, notOurs]) {
      expect((await elasticsearch('PUT', `/${name}`)).status).toBe(200);
    }

    await storage.start();
    // On 2026-03-31 with 30 days kept, a day is gone once it ended before 2026-03-01T08:00.
    expect(await dailyIndices(base)).toEqual([
      `${base}-2026.03.01`,
      `${base}-2026.03.02`,
      `${base}-2026.03.31`,
      `${base}-archive`,
    ]);
    expect(await dailyIndices(indices.campaigns)).toEqual([notOurs]);

    // A day later the sweep runs on its own and March 1st goes; the next day, March 2nd.
    await clock.advance(DAY);
    await eventually(() => storage.stats.sweeps === 2, 'the second sweep');
    expect(await dailyIndices(base)).toEqual([`${base}-2026.03.02`, `${base}-2026.03.31`, `${base}-archive`]);
    await clock.advance(DAY);
    await eventually(() => storage.stats.sweeps === 3, 'the third sweep');
    expect(await dailyIndices(base)).toEqual([`${base}-2026.03.31`, `${base}-archive`]);
    expect(storage.stats.sweepFailures).toBe(0);

    await storage.stop();
    expect(clock.pending).toBe(0);
  });

  it('start fails clearly on wrong credentials, an unreachable node and an alias name taken by an index', async () => {
    const wrong = open('auth', { auth: { username: 'threatlib', password: 'not-the-password-x1' } }).storage;
    const denied = await wrong.start().catch((e: unknown) => e);
    expect(denied).toMatchObject({ name: 'StorageError', operation: 'connect', isRetryable: false });
    expect((denied as Error).message).toMatch(/^Elasticsearch connect failed: HTTP 401: security_exception: /);
    expect((denied as Error).message).not.toContain('not-the-password-x1');

    const down = open('down', { node: 'http://127.0.0.1:9' }, { clientOptions: { maxRetries: 0 } }).storage;
    await expect(down.start()).rejects.toMatchObject({ operation: 'connect', isRetryable: true });

    const { storage, indices } = open('taken');
    await elasticsearch('PUT', `/${indices.threats}`);
    await expect(storage.start()).rejects.toThrow(
      `indices.threats: "${indices.threats}" is an existing index; the store keeps threats in daily indices`,
    );
  });

  it('an alert index made by an earlier version gains the fields added since, so pending() works on it', async () => {
    const { storage, indices } = open('upgrade');
    // The alert index as the first version made it: no `pending` field, and the mapping is strict.
    await elasticsearch('PUT', `/${indices.alerts}`, {
      mappings: {
        dynamic: 'strict',
        _meta: { managed_by: 'threatlib', kind: 'alerts' },
        properties: {
          time: { type: 'date' },
          seq: { type: 'keyword' },
          rank: { type: 'byte' },
          alert: { type: 'object', enabled: false },
          deliveries: { type: 'object', enabled: false },
        },
      },
    });
    const alert = await storage.alerts.add({
      title: 'waiting',
      severity: 'high',
      deliveries: [{ integration: 'siem', status: 'pending', attempts: 1 }],
    });
    expect((await storage.alerts.pending()).items).toEqual([alert]);
  });

  it('stop() sends what is queued and waits for it; afterwards the store refuses work', async () => {
    const clock = new ManualClock(Date.parse('2026-03-01T12:00:00Z'));
    const { storage, indices } = open('stop', { flushIntervalMs: 60_000, maxQueued: 2 }, { clock });
    await storage.start();
    const queued = [1, 2].map((i) =>
      storage.index('threats', { indicator: `h${i}.example`, '@timestamp': new Date(clock.now()) }),
    );
    // A third would pass maxQueued: refused at once, the two queued are kept.
    await expect(
      storage.index('threats', { indicator: 'h3.example', '@timestamp': new Date(clock.now()) }),
    ).rejects.toMatchObject({
      isRetryable: true,
      message: expect.stringMatching(/2 are already waiting to be sent \(maxQueued 2\)/),
    });
    await storage.stop();
    await expect(Promise.all(queued)).resolves.toHaveLength(2);
    expect(await rawCount(indices.threats)).toBe(2);
    await expect(storage.index('threats', { indicator: 'late.example', '@timestamp': new Date() })).rejects.toThrow(
      'the search index is stopped',
    );
    expect(clock.pending).toBe(0);
  });
});
