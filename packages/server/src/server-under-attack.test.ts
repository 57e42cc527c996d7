// The acceptance point of the connection and authentication hardening (issue 12): with 600 connections held open
// (slowloris) from one address and 1,000 wrong-token requests from another, a client with a valid token on a third
// address is still answered at once. Loopback only; every loop is bounded; every socket is closed at the end.
//
// This is the one timed assertion of the server's tests: 100 ms (the median of five) for a request on a fresh
// connection.
import { Agent } from 'node:http';
import { performance } from 'node:perf_hooks';
import { afterEach, expect, it } from 'vitest';
import type { APIServer } from './api-server.js';
import { heldConnection, requestFrom, startServer, TOKEN } from './http/raw-http.test-suite.js';

const HELD = 600;
const WRONG = 1_000;
const SLOWLORIS = '127.0.0.2';
const GUESSER = '127.0.0.3';
const USER = '127.0.0.1';

const running: APIServer[] = [];
const cleanups: Array<() => void> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0)) cleanup();
  await Promise.all(running.splice(0).map((server) => server.stop()));
});

it('answers a valid token from another address within 100 ms (median of 5) under 600 held connections and 1,000 wrong tokens', async () => {
  // Documented defaults throughout: 64 connections per address, 10 failed authentications per minute.
  const { server, port, base } = await startServer();
  running.push(server);

  const held = Array.from({ length: HELD }, () => heldConnection(port, SLOWLORIS));
  cleanups.push(() => {
    for (const { socket } of held) socket.destroy();
  });
  await Promise.all(held.map((h) => h.connected));

  // The guesser: 1,000 wrong tokens over 10 keep-alive connections, 10 in flight at a time.
  const agent = new Agent({ keepAlive: true, maxSockets: 10 });
  cleanups.push(() => agent.destroy());
  const statuses = new Map<number, number>();
  const checkpoints = [200, 350, 500, 650, 800];
  const reached = new Map(
    checkpoints.map((n) => {
      let resolve = () => {};
      const promise = new Promise<void>((r) => {
        resolve = r;
      });
      return [n, { promise, resolve }];
    }),
  );
  let sent = 0;
  const guess = async () => {
    while (sent < WRONG) {
      const n = sent++;
      reached.get(n)?.resolve();
      const { status } = await requestFrom(GUESSER, `${base}/api/v1/feeds/status`, {
        headers: { authorization: `Bearer wrong-token-${n}` },
        agent,
      });
      statuses.set(status, (statuses.get(status) ?? 0) + 1);
    }
  };
  const guessing = Promise.all(Array.from({ length: 10 }, guess));

  // While the guessing goes on, the user asks five times, each on a fresh connection. The median is held to 100 ms:
  // the machine running the tests is shared, and one request can be descheduled for longer than the server takes.
  const answers: Array<{ status: number; ms: number }> = [];
  for (const checkpoint of checkpoints) {
    await reached.get(checkpoint)?.promise;
    const started = performance.now();
    const { status } = await requestFrom(USER, `${base}/api/v1/feeds/status`, {
      headers: { authorization: `Bearer ${TOKEN}` },
    });
    answers.push({ status, ms: performance.now() - started });
  }
  await guessing;

  expect(answers.map((a) => a.status)).toEqual([200, 200, 200, 200, 200]);
  const times = answers.map((a) => a.ms).sort((x, y) => x - y);
  expect(times[2], `answered in ${times.map((ms) => ms.toFixed(1)).join(', ')} ms`).toBeLessThan(100);

  // The guesser was told 401 ten times, then 429 for the rest.
  expect(Object.fromEntries(statuses)).toEqual({ 401: 10, 429: WRONG - 10 });
  // Of the held connections, the server kept 64 (answered once their headers end) and closed the rest.
  const outcomes = await Promise.all(held.map((h) => h.finish()));
  expect(outcomes.filter((o) => o === 'answered')).toHaveLength(64);
}, 30_000);
