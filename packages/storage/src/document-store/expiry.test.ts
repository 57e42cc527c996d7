import { silentLogger } from '@threatlib/core';
import { ManualClock } from '@threatlib/core/testing';
import { describe, expect, it } from 'vitest';
import { ExpirySweeper, type IndexableCollection, prepareExpiry } from './expiry.js';

/** A collection whose server answers a TTL index the way `answer` says. */
function collection(answer: 'kept' | 'ignored' | 'not-implemented' | 'conflict' | 'down') {
  const created: Array<{ name: string; expireAfterSeconds?: number }> = [];
  const fake: IndexableCollection = {
    async createIndex(_keys, options) {
      if (answer === 'down') throw Object.assign(new Error('connect ECONNREFUSED'), { name: 'MongoNetworkError' });
      if (options.expireAfterSeconds !== undefined && answer === 'not-implemented') {
        throw Object.assign(new Error('Index option "expireAfterSeconds" is not implemented yet'), { code: 238 });
      }
      if (answer === 'conflict')
        throw Object.assign(new Error('Index already exists with a different name'), { code: 85 });
      created.push(answer === 'ignored' ? { name: options.name } : { ...options });
      return options.name;
    },
    listIndexes: () => ({ toArray: async () => [{ name: '_id_' }, ...created] }),
  };
  return { fake, created };
}

describe('prepareExpiry', () => {
  it('a server that keeps the TTL index (MongoDB) expires records itself', async () => {
    const { fake, created } = collection('kept');
    expect(await prepareExpiry(fake)).toEqual({ mode: 'ttl-index', reason: 'the server keeps a TTL index' });
    expect(created).toEqual([{ name: 'threatlib_expiresAt', expireAfterSeconds: 0 }]);
  });

  it('a server that answers NotImplemented (FerretDB 1.x) gets a plain index and the sweeper', async () => {
    const { fake, created } = collection('not-implemented');
    expect(await prepareExpiry(fake)).toEqual({
      mode: 'sweeper',
      reason: 'the server answered NotImplemented (238) to a TTL index',
    });
    expect(created).toEqual([{ name: 'threatlib_expiresAt' }]);
  });

  it('a server that accepts expireAfterSeconds but silently drops it is found out by reading the index back', async () => {
    const { fake } = collection('ignored');
    expect(await prepareExpiry(fake)).toEqual({
      mode: 'sweeper',
      reason: 'the server accepted a TTL index but did not keep expireAfterSeconds',
    });
  });

  it('an index with other options already there means sweeping, and says how to get the TTL index', async () => {
    expect((await prepareExpiry(collection('conflict').fake)).reason).toMatch(/code 85\); drop it/);
  });

  it('any other failure is the caller’s to report', async () => {
    await expect(prepareExpiry(collection('down').fake)).rejects.toThrow(/ECONNREFUSED/);
  });
});

describe('ExpirySweeper', () => {
  it('sweeps once per interval on the clock with the clock’s now, goes on after a failure, and stops clean', async () => {
    const clock = new ManualClock(Date.parse('2026-03-01T00:00:00Z'));
    const calls: string[] = [];
    let fail = true;
    const sweeper = new ExpirySweeper({
      clock,
      intervalMs: 60_000,
      logger: silentLogger,
      sweep: async (now) => {
        calls.push(now.toISOString());
        if (fail) {
          fail = false;
          throw new Error('server down');
        }
        return 3;
      },
    });
    sweeper.start();
    await clock.advance(59_999);
    expect(calls).toEqual([]);
    await clock.advance(1);
    await sweeper.idle();
    await clock.advance(60_000);
    await sweeper.idle();
    expect(calls).toEqual(['2026-03-01T00:01:00.000Z', '2026-03-01T00:02:00.000Z']);
    expect(sweeper.stats).toEqual({ sweeps: 1, deleted: 3, failures: 1 });
    await sweeper.stop();
    expect(clock.pending).toBe(0);
    await clock.advance(600_000);
    expect(calls).toHaveLength(2);
  });
});
