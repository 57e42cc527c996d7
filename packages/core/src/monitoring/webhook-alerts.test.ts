import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { Socket } from 'node:net';
import { type FeedEmulator, INVALID_KEY, startFeedEmulator } from '@threatlib/feed-emulator';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ThreatClient } from '../client/threat-client.js';
import { InsecureEndpointError } from '../errors/insecure-endpoint-error.js';
import type { Logger } from '../logging/logger.js';
import { createClientMetrics } from '../metrics/index.js';
import { ManualClock } from '../scheduler/clock.js';

const START = Date.parse('2026-12-01T00:00:00Z');
const TOKEN = 'whk-Bearer-9f8e7d6c5b4a3f2e1d0c';
const SECRET_PATH = 'T000-B000-secretpath0123456789';
const OTX_KEY = 'otx-live-key-0a1b2c3d4e5f60718293';

/** A local webhook receiver: keeps every request, answers `status()`, and counts open connections. */
async function startReceiver(status: () => number) {
  const requests: Array<{ method: string; url: string; headers: IncomingHttpHeaders; body: string }> = [];
  const waiters: Array<{ count: number; wake: () => void }> = [];
  const sockets = new Set<Socket>();
  const closedWaiters: Array<() => void> = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      requests.push({
        method: req.method ?? '',
        url: req.url ?? '',
        headers: req.headers,
        body: Buffer.concat(chunks).toString('utf8'),
      });
      res.writeHead(status()).end();
      for (const waiter of [...waiters]) {
        if (requests.length >= waiter.count) {
          waiters.splice(waiters.indexOf(waiter), 1);
          waiter.wake();
        }
      }
    });
  });
  server.on('connection', (socket: Socket) => {
    sockets.add(socket);
    socket.on('close', () => {
      sockets.delete(socket);
      if (sockets.size === 0) for (const wake of closedWaiters.splice(0)) wake();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as { port: number }).port}`,
    requests,
    received: (count: number) =>
      requests.length >= count
        ? Promise.resolve()
        : new Promise<void>((resolve) => waiters.push({ count, wake: resolve })),
    allClosed: () =>
      sockets.size === 0 ? Promise.resolve() : new Promise<void>((resolve) => closedWaiters.push(resolve)),
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

let emulator: FeedEmulator;
beforeAll(async () => {
  emulator = await startFeedEmulator();
});
afterAll(async () => {
  await emulator.close();
});

function collectingLogger() {
  const lines: string[] = [];
  const push = (level: string) => (obj: object, msg?: string) => lines.push(JSON.stringify({ level, ...obj, msg }));
  const logger: Logger = { debug: push('debug'), info: push('info'), warn: push('warn'), error: push('error') };
  return { logger, lines };
}

function clientFor(webhookUrl: string, logger: Logger, clock: ManualClock) {
  return new ThreatClient(
    {
      sources: ['feed_otx', 'feed_cti'],
      apiKeys: {
        feed_otx: { key: OTX_KEY, endpoint: emulator.endpoints.feed_otx, timeout: 2000 },
        feed_cti: { key: INVALID_KEY, endpoint: emulator.endpoints.feed_cti, timeout: 2000 },
      },
      caching: { enabled: false },
      security: { enforceHttps: false },
      performance: {
        retryAttempts: 0,
        rateLimit: { enabled: false },
        circuitBreaker: { failureThreshold: 1, resetTimeout: 60_000 },
      },
      enterprise: {
        monitoring: {
          alerts: { webhook: { url: webhookUrl, headers: { authorization: `Bearer ${TOKEN}`, 'x-team': 'soc' } } },
        },
      },
    },
    { env: false, logger, clock },
  );
}

describe('webhook alerts', () => {
  it('POSTs each alert as JSON with the configured headers; nothing secret in the body', async () => {
    const receiver = await startReceiver(() => 204);
    const { logger, lines } = collectingLogger();
    const client = clientFor(`${receiver.url}/hooks/${SECRET_PATH}`, logger, new ManualClock(START));
    try {
      const result = await client.scout('198.51.100.50');
      expect(result.results.find((r) => r.feed === 'feed_cti')?.status).toBe('auth_error');
      // feed_cti's key refused, and (threshold 1) its breaker opened.
      await receiver.received(2);
      const bodies = receiver.requests.map((r) => JSON.parse(r.body));
      expect(bodies.map((b) => b.condition).sort()).toEqual(['breaker_open', 'key_rejected']);
      expect(bodies.find((b) => b.condition === 'key_rejected')).toMatchObject({
        type: 'threatlib.monitoring.alert',
        version: 1,
        feed: 'feed_cti',
        at: '2026-12-01T00:00:00.000Z',
        summary: expect.stringMatching(/^feed_cti: API key rejected \(HTTP 40[13]\)$/),
        details: { feedName: 'CrowdSec CTI', statusCode: expect.any(Number) },
      });
      for (const request of receiver.requests) {
        expect(request.method).toBe('POST');
        expect(request.url).toBe(`/hooks/${SECRET_PATH}`);
        expect(request.headers.authorization).toBe(`Bearer ${TOKEN}`);
        expect(request.headers['x-team']).toBe('soc');
        expect(request.headers['content-type']).toBe('application/json');
        for (const secret of [TOKEN, OTX_KEY, INVALID_KEY]) expect(request.body).not.toContain(secret);
      }
      await client.stop();
      expect(client.monitoringAlertStats().channels).toEqual({ webhook: { sent: 2, failed: 0 } });
      expect(await createClientMetrics(client).metrics()).toContain(
        'threatlib_monitoring_alerts_total{channel="webhook",outcome="sent"} 2',
      );
      // stop() closed the keep-alive connection to the receiver.
      await receiver.allClosed();
      for (const secret of [TOKEN, OTX_KEY, INVALID_KEY, SECRET_PATH]) expect(lines.join('\n')).not.toContain(secret);
    } finally {
      await client.stop();
      await receiver.close();
    }
  });

  it('a receiver answering 500 is a failed delivery, logged by origin only and counted', async () => {
    const receiver = await startReceiver(() => 500);
    const { logger, lines } = collectingLogger();
    const client = clientFor(`${receiver.url}/hooks/${SECRET_PATH}`, logger, new ManualClock(START));
    try {
      emulator.script('198.51.100.60', { behaviour: 'server_error', feeds: ['feed_otx'] });
      const result = await client.scout('198.51.100.60');
      expect(result.results.map((r) => r.status).sort()).toEqual(['auth_error', 'error']);
      await client.stop();
      expect(client.monitoringAlertStats().channels).toEqual({ webhook: { sent: 0, failed: 3 } });
      const metrics = await createClientMetrics(client).metrics();
      expect(metrics).toContain('threatlib_monitoring_alerts_total{channel="webhook",outcome="failed"} 3');
      expect(metrics).toContain('threatlib_monitoring_alerts_total{channel="webhook",outcome="sent"} 0');
      const failures = lines.filter((l) => l.includes('monitoring alert by webhook failed'));
      expect(failures).toHaveLength(3);
      expect(failures[0]).toContain(`webhook ${receiver.url} answered HTTP 500`);
      for (const secret of [TOKEN, OTX_KEY, INVALID_KEY, SECRET_PATH]) expect(lines.join('\n')).not.toContain(secret);
    } finally {
      emulator.reset();
      await client.stop();
      await receiver.close();
    }
  });

  it('a plain-HTTP webhook is refused while security.enforceHttps is on', () => {
    expect(
      () =>
        new ThreatClient(
          {
            sources: ['feed_urls'],
            enterprise: { monitoring: { alerts: { webhook: { url: 'http://hooks.example.com/alerts' } } } },
          },
          { env: false },
        ),
    ).toThrow(InsecureEndpointError);
  });
});
