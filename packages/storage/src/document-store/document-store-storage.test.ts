import { connect, createServer, type Socket } from 'node:net';
import { ConfigurationError, ValidationError } from '@threatlib/core';
import { ManualClock } from '@threatlib/core/testing';
import { eventually } from '@threatlib/test-utils';
import {
  describeWithFerretDB,
  dropDatabases,
  E2E_FERRETDB_URI,
  rawCount,
  recordCommands,
  uniqueDatabase,
} from '@threatlib/test-utils/ferretdb';
import { BSON } from 'mongodb';
import { afterAll, afterEach, expect, it } from 'vitest';
import { type DocumentStoreRuntime, DocumentStoreStorage } from './document-store-storage.js';

const databases: string[] = [];
const open: DocumentStoreStorage[] = [];

function makeStorage(label: string, runtime: DocumentStoreRuntime = {}, extra: Record<string, unknown> = {}) {
  const database = uniqueDatabase(label);
  databases.push(database);
  const storage = new DocumentStoreStorage(
    {
      uri: E2E_FERRETDB_URI,
      database,
      collections: { threats: 'threats', campaigns: 'campaigns', indicators: 'indicators' },
      ...extra,
    },
    { ...runtime, driverOptions: { monitorCommands: true, ...runtime.driverOptions } },
  );
  open.push(storage);
  return { storage, database, commands: recordCommands(storage.client) };
}

afterEach(async () => {
  await Promise.all(open.splice(0).map((storage) => storage.stop()));
});
afterAll(() => dropDatabases(databases));

describeWithFerretDB('DocumentStoreStorage on FerretDB', () => {
  it('stores the documented threat record and answers the documented query', async () => {
    const { storage } = makeStorage('documented');
    const scanResults = { indicator: 'malicious.com', confidence: 92, verdict: 'malicious', riskScore: 9 };
    await storage.store('threats', {
      indicator: 'malicious.com',
      results: scanResults,
      scanDate: new Date(),
      ttl: 86400,
    });
    await storage.store('threats', {
      indicator: 'benign.example',
      results: { confidence: 12, verdict: 'clean' },
      scanDate: new Date(),
      ttl: 86400,
    });
    await storage.store('threats', {
      indicator: 'old.example',
      results: { confidence: 95, verdict: 'malicious' },
      scanDate: new Date(Date.now() - 10 * 24 * 60 * 60 * 1000),
      ttl: 30 * 86400,
    });

    const highThreats = await storage.query('threats', {
      'results.confidence': { $gte: 80 },
      scanDate: { $gte: new Date(Date.now() - 7 * 24 * 60 * 60 * 1000) },
    });

    expect(highThreats).toEqual([
      {
        id: expect.stringMatching(/^[0-9a-f]{24}$/),
        indicator: 'malicious.com',
        results: scanResults,
        scanDate: expect.any(Date),
        ttl: 86400,
        expiresAt: expect.any(Date),
      },
    ]);
    const [record] = highThreats as unknown as Array<{ scanDate: Date; expiresAt: Date }>;
    expect(record?.expiresAt.getTime()).toBe((record?.scanDate.getTime() ?? 0) + 86_400_000);
  });

  it('takes ISO 8601 strings for dates, in the record and in the filter, and compares them as dates', async () => {
    const { storage } = makeStorage('iso');
    await storage.store('threats', {
      indicator: 'a.example',
      results: { confidence: 85 },
      scanDate: '2099-03-01T10:00:00.000Z',
      ttl: 3600,
    });
    await storage.store('threats', {
      indicator: 'b.example',
      results: { confidence: 85 },
      scanDate: '2099-02-27T10:00:00+02:00',
      ttl: 3600,
    });
    const found = await storage.query('threats', { scanDate: { $gte: '2099-03-01T00:00:00Z' } });
    expect(found.map((r) => r.indicator)).toEqual(['a.example']);
    expect(found[0]?.scanDate).toEqual(new Date('2099-03-01T10:00:00.000Z'));
    const between = await storage.query(
      'threats',
      { $and: [{ scanDate: { $lt: '2099-03-01T00:00:00Z' } }, { scanDate: { $gte: '2099-02-27' } }] },
      { sort: { scanDate: -1 } },
    );
    expect(between.map((r) => r.indicator)).toEqual(['b.example']);
  });

  it('answers every allowed operator as MongoDB would', async () => {
    const { storage } = makeStorage('operators');
    for (const [indicator, confidence, verdict] of [
      ['a.example', 10, 'clean'],
      ['b.example', 50, 'suspicious'],
      ['c.example', 90, 'malicious'],
    ] as const) {
      await storage.store('threats', {
        indicator,
        results: { confidence, verdict, ...(verdict === 'malicious' ? { campaign: 'x' } : {}) },
        scanDate: new Date(),
        ttl: 3600,
      });
    }
    const names = async (filter: object) =>
      (await storage.query('threats', filter, { sort: { indicator: 1 } })).map((r) => r.indicator);
    expect(await names({ 'results.confidence': { $gt: 10, $lte: 90 } })).toEqual(['b.example', 'c.example']);
    expect(await names({ 'results.confidence': { $lt: 50 } })).toEqual(['a.example']);
    expect(await names({ 'results.verdict': { $ne: 'clean' } })).toEqual(['b.example', 'c.example']);
    expect(await names({ 'results.verdict': { $eq: 'clean' } })).toEqual(['a.example']);
    expect(await names({ indicator: { $in: ['a.example', 'c.example'] } })).toEqual(['a.example', 'c.example']);
    expect(await names({ indicator: { $nin: ['a.example', 'c.example'] } })).toEqual(['b.example']);
    expect(await names({ 'results.campaign': { $exists: true } })).toEqual(['c.example']);
    expect(await names({ 'results.confidence': { $not: { $gte: 50 } } })).toEqual(['a.example']);
    expect(await names({ $or: [{ indicator: 'a.example' }, { 'results.confidence': 90 }] })).toEqual([
      'a.example',
      'c.example',
    ]);
    expect(await names({ $nor: [{ indicator: 'a.example' }, { 'results.confidence': 90 }] })).toEqual(['b.example']);
    expect(await storage.query('threats', {}, { limit: 2 })).toHaveLength(2);
  });

  it('refuses $where and $function with an error naming the key and where it is, and sends nothing', async () => {
    const { storage, commands } = makeStorage('refused');
    await storage.start();
    const before = commands.length;

    const where = await storage.query('threats', { $where: 'sleep(100)' }).catch((e: unknown) => e);
    expect(ValidationError.isInstance(where)).toBe(true);
    expect((where as Error).message).toBe(
      'Invalid storage filter: $where: $where is refused: it runs JavaScript on the server',
    );

    const fn = await storage
      .query('threats', {
        'results.confidence': { $function: { body: 'function() { sleep(100); return true }', args: [], lang: 'js' } },
      })
      .catch((e: unknown) => e);
    expect(ValidationError.isInstance(fn)).toBe(true);
    expect((fn as Error).message).toMatch(
      /^Invalid storage filter: results\.confidence\.\$function: \$function is refused/,
    );

    for (const filter of [
      { $expr: { $gt: ['$results.confidence', 50] } },
      { 'results.confidence': { $accumulator: {} } },
      { $or: [{ a: 1 }, { $where: 'true' }] },
      { 'results.confidence': { $regex: '^(a+)+$' } },
    ]) {
      await expect(storage.query('threats', filter)).rejects.toThrow(/Invalid storage filter: .*\$/);
    }
    await expect(storage.query('users', {})).rejects.toThrow(/expected one of threats, campaigns, indicators/);
    await expect(storage.store('threats', { indicator: 'x', results: {}, scanDate: 'soon', ttl: 0 })).rejects.toThrow(
      /Invalid threat record: scanDate: expected a Date or an ISO 8601 date-time; ttl: /,
    );
    expect(commands.slice(before)).toEqual([]);

    // The same store does send an allowed query: the monitor sees commands when there are some.
    await storage.query('threats', { 'results.confidence': { $gte: 80 } });
    expect(commands.slice(before).map((c) => c.commandName)).toContain('find');
  });

  it('never returns an expired record, though the server still holds it until a sweep', async () => {
    const clock = new ManualClock(Date.parse('2026-03-01T12:00:00Z'));
    const { storage, database } = makeStorage('expired', { clock });
    await storage.store('threats', {
      indicator: 'gone.example',
      results: { confidence: 99 },
      scanDate: '2026-03-01T10:00:00Z',
      ttl: 3600,
    });
    await storage.store('threats', {
      indicator: 'live.example',
      results: { confidence: 99 },
      scanDate: '2026-03-01T11:30:00Z',
      ttl: 3600,
    });
    const names = async () =>
      (await storage.query('threats', { 'results.confidence': { $gte: 80 } })).map((r) => r.indicator);
    expect(await names()).toEqual(['live.example']);
    expect(await storage.threatsOf('gone.example')).toEqual([]);
    expect(await rawCount(database, 'threats')).toBe(2);

    // The second one expires at 12:30: from then on it is not returned either.
    await clock.advance(30 * 60_000);
    expect(await names()).toEqual([]);
  });

  it('on FerretDB 1.x finds the TTL index not implemented and sweeps on its interval instead', async () => {
    const clock = new ManualClock(Date.parse('2026-03-01T12:00:00Z'));
    const { storage, database } = makeStorage('sweeper', { clock }, { sweepIntervalMs: 60_000 });
    await storage.start();
    expect(storage.expiry).toEqual({
      mode: 'sweeper',
      reason: 'the server answered NotImplemented (238) to a TTL index',
    });
    await storage.store('threats', {
      indicator: 'soon.example',
      results: { confidence: 70 },
      scanDate: '2026-03-01T11:59:00Z',
      ttl: 90,
    });
    await storage.store('threats', {
      indicator: 'later.example',
      results: { confidence: 70 },
      scanDate: '2026-03-01T12:00:00Z',
      ttl: 86_400,
    });
    await storage.store('campaigns', { name: 'c1', scanDate: '2026-03-01T11:00:00Z', ttl: 60 });
    expect(await rawCount(database, 'threats')).toBe(2);
    expect(await rawCount(database, 'campaigns')).toBe(1);

    // One sweep interval later, 12:01: soon.example expired at 12:00:30, and the campaign at 11:01.
    await clock.advance(60_000);
    await eventually(async () => (await rawCount(database, 'threats')) === 1, 'the sweep to delete the expired threat');
    await eventually(async () => (await rawCount(database, 'campaigns')) === 0, 'the sweep to delete the campaign');
    expect((await storage.query('threats', {})).map((r) => r.indicator)).toEqual(['later.example']);

    await storage.stop();
    expect(clock.pending).toBe(0);
  });

  it('resolves with the stored record; a record given an id is kept under it', async () => {
    const { storage } = makeStorage('ids');
    const stored = await storage.store('threats', {
      id: 'scan-1',
      indicator: 'a.example',
      results: { confidence: 1 },
      scanDate: '2030-01-01T00:00:00Z',
      ttl: 60,
    });
    expect(stored).toEqual({
      id: 'scan-1',
      indicator: 'a.example',
      results: { confidence: 1 },
      scanDate: new Date('2030-01-01T00:00:00Z'),
      ttl: 60,
      expiresAt: new Date('2030-01-01T00:01:00Z'),
    });
    await expect(
      storage.store('threats', { indicator: 'x', results: {}, scanDate: new Date(), ttl: 1, expiresAt: new Date() }),
    ).rejects.toThrow(/expiresAt: is set by the store/);
    await expect(
      storage.store('threats', { indicator: 'x', results: { $where: 'x' }, scanDate: new Date(), ttl: 1 }),
    ).rejects.toThrow(/results\.\$where: a field name may not start with "\$"/);
  });

  it('fails a command the server took and never answers after operationTimeoutMs, retryable, and goes on after', async () => {
    // A relay to FerretDB that swallows every insert while `swallow` is set: the server never sees it, never answers.
    const relay = await swallowingRelay(27018);
    try {
      const { storage } = makeStorage('stalled', {}, { uri: relay.uri, operationTimeoutMs: 500 });
      const record = { indicator: 'x.example', results: { confidence: 1 }, scanDate: new Date(), ttl: 60 };
      await storage.store('threats', record);
      relay.swallow = true;
      const started = Date.now();
      const error = await storage.store('threats', record).catch((e: unknown) => e);
      expect(error).toMatchObject({ name: 'StorageError', operation: 'store', isRetryable: true });
      expect(Date.now() - started).toBeLessThan(5_000);
      relay.swallow = false;
      await expect(storage.store('threats', record)).resolves.toMatchObject({ id: expect.any(String) });
    } finally {
      await relay.close();
    }
  }, 20_000);

  it('reports a server it cannot reach as a StorageError naming the operation, without the credentials', async () => {
    const storage = new DocumentStoreStorage({
      uri: 'mongodb://user:s3cret@127.0.0.1:1/?authSource=admin',
      database: 'nowhere',
      collections: { threats: 't', campaigns: 'c', indicators: 'i' },
      timeoutMs: 300,
    });
    open.push(storage);
    const error = await storage.query('threats', {}).catch((e: unknown) => e);
    expect(error).toMatchObject({ name: 'StorageError', backend: 'mongodb', operation: 'connect', isRetryable: true });
    expect((error as Error).message).toMatch(/^Document store: connect on database nowhere failed: /);
    expect((error as Error).message).not.toContain('s3cret');
    expect(await storage.health()).toMatchObject({ healthy: false });
  });
});

it('refuses invalid options, naming each, without echoing the connection string', () => {
  const error = (() => {
    try {
      new DocumentStoreStorage({
        uri: 'http://user:s3cret@host',
        database: 'a.b',
        collections: { threats: '$x' },
      } as never);
    } catch (e) {
      return e;
    }
  })();
  expect(ConfigurationError.isInstance(error)).toBe(true);
  expect((error as ConfigurationError).issues.map((i) => i.path)).toEqual(['uri', 'database', 'collections.threats']);
  expect((error as Error).message).not.toContain('s3cret');
});

/** A loopback relay to FerretDB on `port` that, while `swallow` is set, drops every `insert` command it is sent. */
async function swallowingRelay(port: number): Promise<{ uri: string; swallow: boolean; close(): Promise<void> }> {
  const sockets = new Set<Socket>();
  const relay = { uri: '', swallow: false, close: async () => {} };
  const server = createServer((client) => {
    const upstream = connect({ host: '127.0.0.1', port });
    sockets.add(client).add(upstream);
    const destroy = () => {
      client.destroy();
      upstream.destroy();
    };
    for (const socket of [client, upstream]) socket.on('error', destroy);
    let pending = Buffer.alloc(0);
    client.on('data', (chunk: Buffer) => {
      pending = Buffer.concat([pending, chunk]);
      while (pending.length >= 4 && pending.length >= pending.readInt32LE(0)) {
        const message = pending.subarray(0, pending.readInt32LE(0));
        pending = pending.subarray(message.length);
        if (!(relay.swallow && commandOf(message) === 'insert')) upstream.write(message);
      }
    });
    upstream.pipe(client);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  relay.uri = `mongodb://127.0.0.1:${(server.address() as { port: number }).port}/?directConnection=true`;
  relay.close = async () => {
    for (const socket of sockets) socket.destroy();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  };
  return relay;
}

/** The command name of an OP_MSG (its body section's first key), or undefined for another opcode. */
function commandOf(message: Buffer): string | undefined {
  // Header (16 bytes), flag bits (4), then section kind 0: the body document.
  if (message.readInt32LE(12) !== 2013 || message[20] !== 0) return undefined;
  const length = message.readInt32LE(21);
  return Object.keys(BSON.deserialize(message.subarray(21, 21 + length)))[0];
}
