import { Worker } from 'node:worker_threads';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Alert } from '../alerts/alert.js';
import type { Integration, IntegrationContext } from '../integration/integration.js';
import { silentLogger } from '../logging/logger.js';
import { extraResources as extra, activeResources as resources, settle } from './active-resources.test-suite.js';
import { ThreatClient } from './threat-client.js';

// The receiving HTTP server runs in a worker thread: its sockets live on the worker's event loop, so this thread's
// active resources are the client's alone.
const serverSource = `
const { createServer } = require('node:http');
const { parentPort } = require('node:worker_threads');
let open = 0;
const server = createServer((req, res) => {
  req.resume();
  req.on('end', () => res.writeHead(200, { 'content-type': 'application/json' }).end('{"ok":true}'));
});
server.on('connection', (socket) => {
  open += 1;
  parentPort.postMessage({ open });
  socket.on('close', () => {
    open -= 1;
    parentPort.postMessage({ open });
  });
});
server.listen(0, '127.0.0.1', () => parentPort.postMessage({ port: server.address().port }));
`;

let worker: Worker;
let endpoint: string;
let openConnections = 0;
const connectionWaiters: Array<() => void> = [];

beforeAll(async () => {
  worker = new Worker(serverSource, { eval: true });
  const port = await new Promise<number>((resolve) => {
    worker.on('message', (message: { port?: number; open?: number }) => {
      if (message.port !== undefined) resolve(message.port);
      if (message.open !== undefined) {
        openConnections = message.open;
        if (openConnections === 0) for (const wake of connectionWaiters.splice(0)) wake();
      }
    });
  });
  endpoint = `http://127.0.0.1:${port}`;
});

/**
 * Resolves when the server has seen every client connection close. Idle keep-alive sockets are unref'd, so they
 * do not show in this thread's active resources; the server's side of them is the only reliable witness.
 */
function allConnectionsClosed(): Promise<'closed' | 'still open'> {
  if (openConnections === 0) return Promise.resolve('closed');
  return new Promise((resolve) => {
    const timer = setTimeout(() => resolve('still open'), 2000);
    connectionWaiters.push(() => {
      clearTimeout(timer);
      resolve('closed');
    });
  });
}

afterAll(async () => {
  await worker.terminate();
});

/** An integration holding what real ones hold: a timer, and keep-alive sockets through the client's pool. */
class Heartbeat implements Integration {
  #timer: ReturnType<typeof setInterval> | undefined;
  readonly #context: IntegrationContext;
  constructor(_options: unknown, context: IntegrationContext) {
    this.#context = context;
  }
  start() {
    this.#timer = setInterval(() => {}, 60_000);
  }
  stop() {
    clearInterval(this.#timer);
  }
  async sendAlert(alert: Alert) {
    const response = await this.#context.http.request(`${endpoint}/alerts`, {
      method: 'POST',
      body: JSON.stringify(alert),
      headers: { 'content-type': 'application/json' },
    });
    return JSON.parse(response.body);
  }
  async enrichIndicator() {
    return undefined;
  }
}

describe('client.stop()', () => {
  it('leaves no timer or socket behind after integrations ran', async () => {
    await settle();
    const baseline = resources();

    const client = new ThreatClient(
      { sources: ['feed_urls'], security: { enforceHttps: false } },
      { env: false, logger: silentLogger },
    );
    client.registerIntegration('heartbeat', Heartbeat);
    client.registerIntegration('second', Heartbeat);
    await client.start();
    const alert = await client.alerts.add({ title: 'x', severity: 'medium' });
    await expect(client.integration('heartbeat')?.sendAlert(alert)).resolves.toEqual({ ok: true });
    await expect(client.integration('second')?.sendAlert(alert)).resolves.toEqual({ ok: true });

    // Proves the check can see what an integration leaves open: sockets and timers are live now.
    expect(extra(baseline)).toEqual(expect.arrayContaining(['Timeout']));
    expect(openConnections).toBeGreaterThan(0);

    await client.stop();
    expect(await allConnectionsClosed()).toBe('closed');
    await settle();
    expect(extra(baseline)).toEqual([]);
  });
});
