// What the alerting tests share: a client whose local blocklist concludes the threats (no feed asked), integrations
// that fail a given number of times, the documented plugin's receiver, and a logger that records its lines.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Alert } from '../alerts/alert.js';
import type { ThreatConfig } from '../config/schema.js';
import type { Integration } from '../integration/integration.js';
import type { Logger } from '../logging/logger.js';
import { silentLogger } from '../logging/logger.js';
import { ThreatClient, type ThreatClientOptions } from './threat-client.js';

const dir = mkdtempSync(join(tmpdir(), 'threatlib-alerting-'));
const listFile = join(dir, 'blocklist.txt');
writeFileSync(listFile, 'evil.threatlib-test.net\nworse.threatlib-test.net\n203.0.113.66\n');
export const watchFile = join(dir, 'watchlist.txt');
writeFileSync(watchFile, 'watched.threatlib-test.net\n');
export const EVIL = 'evil.threatlib-test.net';
export const WATCHED = 'watched.threatlib-test.net';
export const WORSE = 'worse.threatlib-test.net';

/** Asks no feed: the local blocklist concludes the threats. Backoff of a few ms, so retries take no real time. */
const offline = {
  sources: [],
  strategy: 'aggressive',
  lists: [{ name: 'blocklist', file: listFile }],
  security: { enforceHttps: false },
  performance: { retryDelay: 2, backoffMultiplier: 2 },
} satisfies ThreatConfig;

const clients: ThreatClient[] = [];
const servers: Server[] = [];

export function client(config: Partial<ThreatConfig> = {}, options: ThreatClientOptions = {}): ThreatClient {
  const made = new ThreatClient({ ...offline, ...config } as ThreatConfig, {
    env: false,
    logger: silentLogger,
    ...options,
  });
  clients.push(made);
  return made;
}

/** An integration that fails its first `failures` deliveries, then takes them; `retries` is its own. */
export function flaky(failures: number, retries?: number) {
  return class Flaky implements Integration {
    static calls = 0;
    static received: Alert[] = [];
    readonly retries = retries;
    async sendAlert(alert: Alert) {
      Flaky.calls += 1;
      if (Flaky.calls <= failures) throw new Error(`flaky refused delivery ${Flaky.calls}`);
      Flaky.received.push(alert);
      return { ticket: `T-${Flaky.received.length}` };
    }
    async enrichIndicator() {
      return undefined;
    }
  };
}

/** The documented plugin's receiver: takes `POST <endpoint>/alerts` with the bearer token, answers JSON. */
export async function receiver(port = 0) {
  const received: Array<{ url: string; authorization: string | undefined; body: Alert }> = [];
  const server = createServer(async (req, res) => {
    const body = await readBody(req);
    received.push({ url: req.url ?? '', authorization: req.headers.authorization, body: JSON.parse(body) });
    res.writeHead(201, { 'content-type': 'application/json' }).end(JSON.stringify({ accepted: received.length }));
  });
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  servers.push(server);
  return { server, received, endpoint: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
}

async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

export async function closeServer(server: Server): Promise<void> {
  if (!server.listening) return;
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
}

export async function allAlerts(c: ThreatClient): Promise<Alert[]> {
  return (await c.alerts.list({ limit: 500 })).items;
}

export function recordingLogger() {
  const lines: Array<{ level: string; obj: Record<string, unknown>; msg: string }> = [];
  const at = (level: string) => (obj: object, msg?: string) => {
    lines.push({ level, obj: obj as Record<string, unknown>, msg: msg ?? '' });
  };
  const logger: Logger = { debug: at('debug'), info: at('info'), warn: at('warn'), error: at('error') };
  return { logger, lines };
}

/** Stops the clients and closes the servers the last test made (each test file runs it after each test). */
export async function stopClientsAndServers(): Promise<void> {
  await Promise.all(clients.splice(0).map((c) => (c.state === 'idle' ? undefined : c.stop())));
  await Promise.all(servers.splice(0).map(closeServer));
}
