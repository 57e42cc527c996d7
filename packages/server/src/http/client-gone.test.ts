// A client that goes away mid-lookup stops the lookup: the request's abort reaches client.correlate as its signal,
// so the feed request is aborted and no timer is left, instead of both running to the lookup's time limit (127 s by
// default) for an answer nobody will read.
import { connect } from 'node:net';
import { silentLogger, ThreatClient } from '@threatlib/core';
import { ManualClock } from '@threatlib/core/testing';
import { type FeedEmulator, startFeedEmulator } from '@threatlib/feed-emulator';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { json, post, serveForTest, TEST_TOKEN } from '../test-support/serve.js';

let emulator: FeedEmulator;
const clients: ThreatClient[] = [];

beforeAll(async () => {
  emulator = await startFeedEmulator();
});
afterEach(async () => {
  await Promise.all(clients.splice(0).map((client) => client.stop()));
  emulator.reset();
});
afterAll(async () => {
  await emulator.close();
});

/**
 * A client asking AbuseIPDB on the emulator, on a manual clock: its timers (the lookup's time limit, the request's
 * timeout) never fire by themselves, so only the client's going away can end the lookup, and `clock.pending` counts
 * what is left.
 */
function slowFeedClient(clock: ManualClock): ThreatClient {
  const client = new ThreatClient(
    {
      sources: ['feed_abuse'],
      apiKeys: { feed_abuse: { key: 'key-feed_abuse', endpoint: emulator.endpoints.feed_abuse } },
      security: { enforceHttps: false },
      caching: { enabled: false },
      warninglists: { builtin: false },
    },
    { env: false, logger: silentLogger, clock },
  );
  clients.push(client);
  return client;
}

/** Sends `body` to `path` on a raw socket, which the test destroys while the answer is awaited. */
function rawPost(base: string, path: string, body: unknown) {
  const { port } = new URL(base);
  const socket = connect(Number(port), '127.0.0.1');
  const text = JSON.stringify(body);
  socket.write(
    `POST ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${TEST_TOKEN}\r\n` +
      `Content-Type: application/json\r\nContent-Length: ${Buffer.byteLength(text)}\r\n\r\n${text}`,
  );
  let received = '';
  socket.on('data', (chunk) => {
    received += chunk.toString();
  });
  socket.on('error', () => {});
  return { socket, received: () => received };
}

describe('a request whose client goes away mid-lookup', () => {
  it.each([
    ['/api/v1/threats/scan', (ip: string) => ({ indicator: ip })],
    ['/api/v1/correlate', (ip: string) => ({ indicator: ip, type: 'ip' })],
    ['/api/v1/threats/batch', (ip: string) => ({ indicators: [ip] })],
  ])('%s: leaves no feed request and no timer pending', { timeout: 30_000 }, async (path, body) => {
    const ip = `198.51.100.${100 + clients.length}`;
    emulator.script(ip, 'hang');
    const clock = new ManualClock(Date.now());
    const client = slowFeedClient(clock);
    const { base } = await serveForTest({}, client);
    const abuse = () => client.feedStatus().find((status) => status.feed === 'feed_abuse');

    const request = rawPost(base, path, body(ip));
    // The lookup is under way: the feed has the request, and holds it.
    await vi.waitFor(() => expect(emulator.hanging()).toBe(1), { timeout: 20_000, interval: 20 });
    expect(abuse()?.inFlight).toBe(1);
    expect(clock.pending).toBeGreaterThan(0);

    request.socket.destroy();
    await vi.waitFor(
      () => {
        expect(emulator.hanging()).toBe(0);
        expect(abuse()).toMatchObject({ inFlight: 0, queued: 0 });
        expect(clock.pending).toBe(0);
      },
      { timeout: 20_000, interval: 20 },
    );
    expect(request.received()).toBe('');
    expect(emulator.count('feed_abuse', ip)).toBe(1);
  });

  it('a client that stays gets its answer, with the same signal in place', { timeout: 30_000 }, async () => {
    const clock = new ManualClock(Date.now());
    const { call } = await serveForTest({}, slowFeedClient(clock));
    const response = await call('/api/v1/threats/scan', post({ indicator: '198.51.100.99' }));
    expect(response.status).toBe(200);
    expect((await json(response)).results).toEqual([
      expect.objectContaining({ feed: 'feed_abuse', status: 'not_found' }),
    ]);
    expect(clock.pending).toBe(0);
  });
});
