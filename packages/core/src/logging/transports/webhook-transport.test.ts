import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { ManualClock } from '../../scheduler/clock.js';
import { entryOf } from './test-entry.test-suite.js';
import { WebhookTransport } from './webhook-transport.js';

interface Receiver {
  url: string;
  batches: Array<Array<Record<string, unknown>>>;
  headers: IncomingHttpHeaders[];
  /** Status to answer the next requests with, first to last; 200 once it is empty. */
  failWith: number[];
  requests: number;
  close(): Promise<void>;
}

const servers: Server[] = [];
afterEach(async () => {
  for (const server of servers.splice(0)) {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
});

/** A real HTTP endpoint that counts the batches it receives. */
async function receiver(): Promise<Receiver> {
  const state: Receiver = {
    url: '',
    batches: [],
    headers: [],
    failWith: [],
    requests: 0,
    close: async () => {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      state.requests += 1;
      const status = state.failWith.shift() ?? 200;
      if (status === 200) {
        state.batches.push(JSON.parse(Buffer.concat(chunks).toString('utf8')));
        state.headers.push(req.headers);
      }
      res.writeHead(status).end();
    });
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  state.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/logs`;
  return state;
}

/** A port nothing listens on. */
async function deadPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** Lets the event loop run (real I/O) until `done()` or a deadline passes. */
async function until(done: () => boolean, ms = 5_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!done()) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

describe('WebhookTransport', () => {
  it('sends full batches at once and the rest after flushInterval, with the configured headers', async () => {
    const endpoint = await receiver();
    const clock = new ManualClock(0);
    const transport = new WebhookTransport({
      url: endpoint.url,
      headers: { authorization: 'Splunk hec-token' },
      batchSize: 100,
      flushInterval: 5_000,
      clock,
    });
    for (let seq = 0; seq < 250; seq++) transport.write(entryOf({ seq }));
    await until(() => endpoint.batches.length === 2);
    expect(endpoint.batches.map((b) => b.length)).toEqual([100, 100]);

    await clock.advance(4_999);
    expect(endpoint.batches).toHaveLength(2);
    await clock.advance(1);
    await until(() => endpoint.batches.length === 3);
    expect(endpoint.batches[2]).toHaveLength(50);
    expect(endpoint.batches.flat().map((r) => r.seq)).toEqual(Array.from({ length: 250 }, (_, i) => i));
    expect(endpoint.headers[0]).toMatchObject({
      authorization: 'Splunk hec-token',
      'content-type': 'application/json',
    });
    expect(transport.stats()).toMatchObject({ sent: 250, batches: 3, dropped: 0, buffered: 0 });
    await transport.close();
  });

  it('retries a batch after 5xx with growing delays, and delivers it once', async () => {
    const endpoint = await receiver();
    endpoint.failWith = [503, 500];
    const clock = new ManualClock(0);
    const transport = new WebhookTransport({ url: endpoint.url, batchSize: 2, retries: 3, clock });
    transport.write(entryOf({ seq: 1 }));
    transport.write(entryOf({ seq: 2 }));
    await until(() => endpoint.requests === 1);
    await clock.advance(250);
    await until(() => endpoint.requests === 2);
    await clock.advance(499);
    expect(endpoint.requests).toBe(2);
    await clock.advance(1);
    await until(() => endpoint.batches.length === 1);
    expect(endpoint.batches[0]?.map((r) => r.seq)).toEqual([1, 2]);
    expect(transport.stats()).toMatchObject({ sent: 2, batches: 1, failedBatches: 0 });
    await transport.close();
  });

  it('gives up a batch the endpoint refuses (4xx) without retrying', async () => {
    const endpoint = await receiver();
    endpoint.failWith = [400];
    const transport = new WebhookTransport({ url: endpoint.url, batchSize: 1, clock: new ManualClock(0) });
    transport.write(entryOf({ seq: 1 }));
    await transport.flush();
    expect(endpoint.requests).toBe(1);
    expect(transport.stats()).toMatchObject({ failedBatches: 1, dropped: 1 });
    await transport.close();
  });

  it('sends the partial batch on close', async () => {
    const endpoint = await receiver();
    const transport = new WebhookTransport({ url: endpoint.url, batchSize: 100, flushInterval: 60_000 });
    transport.write(entryOf({ seq: 1 }));
    transport.write(entryOf({ seq: 2 }));
    await transport.close();
    expect(endpoint.batches).toEqual([[expect.objectContaining({ seq: 1 }), expect.objectContaining({ seq: 2 })]]);
  });

  it('with the endpoint dead: never blocks, keeps a bounded buffer, counts and reports drops once, closes', async () => {
    const reports: Array<[string, Record<string, unknown>]> = [];
    const clock = new ManualClock(0);
    const transport = new WebhookTransport({
      url: `http://127.0.0.1:${await deadPort()}/logs`,
      batchSize: 10,
      maxBuffer: 100,
      retries: 2,
      clock,
      report: (level, fields) => reports.push([level, fields]),
    });
    for (let seq = 0; seq < 5_000; seq++) transport.write(entryOf({ seq }));
    // The first batch left the buffer for its first attempt; everything past the bound was dropped at once.
    expect(transport.stats().buffered).toBe(100);
    expect(transport.stats().dropped).toBe(5_000 - 100 - 10);
    expect(reports).toEqual([['warn', expect.objectContaining({ transport: 'webhook', maxBuffer: 100 })]]);

    await transport.close();
    expect(transport.stats()).toMatchObject({ sent: 0, buffered: 0, dropped: 5_000 });
    expect(clock.pending).toBe(0);
    expect(reports).toHaveLength(1);
  });

  it('reports once when the endpoint takes lines again, with how many were dropped', async () => {
    const endpoint = await receiver();
    endpoint.failWith = [503];
    const reports: Array<[string, Record<string, unknown>]> = [];
    const clock = new ManualClock(0);
    const transport = new WebhookTransport({
      url: endpoint.url,
      batchSize: 5,
      maxBuffer: 5,
      retries: 1,
      clock,
      report: (level, fields) => reports.push([level, fields]),
    });
    for (let seq = 0; seq < 20; seq++) transport.write(entryOf({ seq }));
    await until(() => endpoint.requests === 1);
    await clock.advance(250);
    await until(() => endpoint.batches.length >= 1);
    await transport.flush();
    expect(reports.map(([level]) => level)).toEqual(['warn', 'info']);
    expect(reports[1]?.[1]).toMatchObject({ dropped: 10 });
    await transport.close();
  });
});
