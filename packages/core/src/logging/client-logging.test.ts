import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { createServer as createHttpServer, type Server as HttpServer } from 'node:http';
import { type AddressInfo, createServer as createTcpServer, type Server as TcpServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { extraResources as extra, activeResources as resources } from '../client/active-resources.test-suite.js';
import { ThreatClient } from '../client/threat-client.js';
import { logTransportStats } from './create-logger.js';

let dir: string;
let http: HttpServer;
let tcp: TcpServer;
const batches: unknown[][] = [];
let syslogBytes = '';

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'threatlib-client-logging-'));
  http = createHttpServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      batches.push(JSON.parse(Buffer.concat(chunks).toString('utf8')));
      res.writeHead(204).end();
    });
  });
  tcp = createTcpServer((socket) => socket.on('data', (chunk: Buffer) => (syslogBytes += chunk.toString('utf8'))));
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  await new Promise<void>((resolve) => tcp.listen(0, '127.0.0.1', resolve));
});

afterAll(async () => {
  await new Promise((resolve) => http.close(resolve));
  await new Promise((resolve) => tcp.close(resolve));
  await rm(dir, { recursive: true, force: true });
});

/** Lets I/O callbacks run until `done()`, up to a deadline. */
async function until(done: () => boolean | Promise<boolean>, ms = 5_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await done())) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

const openConnections = (server: HttpServer | TcpServer) =>
  new Promise<number>((resolve) => server.getConnections((_error, count) => resolve(count)));

describe('a client configured with logging transports', () => {
  it('writes to all of them, and stop() flushes and closes every socket, timer and file', async () => {
    await new Promise((resolve) => setImmediate(resolve));
    const baseline = resources();
    const filename = join(dir, 'client.log');
    const client = new ThreatClient(
      {
        sources: ['feed_urls'],
        // One source: aggressive, so that the one configuration warning is the enforceHttps one.
        strategy: 'aggressive',
        logging: {
          level: 'debug',
          stderr: false,
          transports: {
            file: { filename, maxSize: '1MB', maxFiles: 2, compress: true },
            webhook: { url: `http://127.0.0.1:${(http.address() as AddressInfo).port}/logs`, flushInterval: 60_000 },
            syslog: { port: (tcp.address() as AddressInfo).port, protocol: 'tcp' },
          },
        },
        security: { enforceHttps: false },
      },
      { env: false },
    );
    await client.start();
    client.updateConcurrency(3);
    client.logger.warn({ marker: 'by-hand' }, 'written through client.logger');
    // The webhook holds its partial batch behind a timer, and syslog keeps a connection.
    await until(() => syslogBytes.includes('by-hand'));
    // Four lines: the configuration warning about enforceHttps being off, then the three above.
    expect(logTransportStats(client.logger)).toMatchObject({ webhook: { buffered: 4 }, syslog: { connected: 1 } });
    expect(batches).toEqual([]);

    await client.stop();
    const stats = logTransportStats(client.logger);
    expect(stats.webhook).toMatchObject({ buffered: 0, dropped: 0 });
    expect(stats.syslog).toMatchObject({ dropped: 0, connected: 0 });
    const sent = batches.flat() as Array<{ msg: string; category?: string }>;
    expect(sent.map((r) => r.msg)).toEqual(
      expect.arrayContaining(['threatlib client started', 'concurrency updated', 'written through client.logger']),
    );
    expect(sent.map((r) => r.category)).toEqual(['config', 'client', 'client', 'client']);
    expect(await readFile(filename, 'utf8')).toContain('"written through client.logger"');

    await until(async () => (await openConnections(http)) === 0 && (await openConnections(tcp)) === 0);
    await new Promise((resolve) => setImmediate(resolve));
    expect(extra(baseline)).toEqual([]);

    // The same client starts again, and its transports open again.
    await client.start();
    client.logger.info({ marker: 'second-run' }, 'again');
    await client.stop();
    expect((batches.flat() as Array<{ marker?: string }>).some((r) => r.marker === 'second-run')).toBe(true);
    expect(await readFile(filename, 'utf8')).toContain('second-run');
  });

  it('refuses an http:// webhook while security.enforceHttps is on, naming the option', () => {
    expect(
      () =>
        new ThreatClient(
          {
            sources: ['feed_urls'],
            logging: {
              transports: [
                { type: 'webhook', url: 'https://logs.example.com/in' },
                { type: 'webhook', url: 'http://logs.example.com/in' },
              ],
            },
          },
          { env: false },
        ),
    ).toThrow(/logging\.transports\[1\]\.url/);
  });

  it('with the log webhook dead, scans go on at full speed and stop() returns', async () => {
    // A port that was just free: nothing listens there, every delivery fails at once.
    const dead = createTcpServer();
    await new Promise<void>((resolve) => dead.listen(0, '127.0.0.1', resolve));
    const port = (dead.address() as AddressInfo).port;
    await new Promise((resolve) => dead.close(resolve));
    const list = join(dir, 'dead-webhook-list.txt');
    await writeFile(list, '203.0.113.7\n');
    const client = new ThreatClient(
      {
        sources: [],
        strategy: 'aggressive',
        lists: [{ name: 'local', file: list }],
        logging: {
          level: 'debug',
          stderr: false,
          transports: {
            webhook: { url: `http://127.0.0.1:${port}/logs`, batchSize: 5, flushInterval: 10, maxBuffer: 50 },
          },
        },
        security: { enforceHttps: false },
      },
      { env: false },
    );
    await client.start();
    const started = performance.now();
    for (let i = 0; i < 200; i++) {
      client.logger.info({ i }, 'a line nobody receives');
      const result = await client.correlate('203.0.113.7');
      expect(result.verdict).toBe('malicious');
    }
    // 200 scans and 200 lines never wait for the endpoint (its failures are retried in the background).
    expect(performance.now() - started).toBeLessThan(5_000);
    await until(() => (logTransportStats(client.logger).webhook?.dropped ?? 0) > 0);
    const stopping = performance.now();
    await client.stop();
    expect(performance.now() - stopping).toBeLessThan(5_000);
    expect(logTransportStats(client.logger).webhook?.buffered).toBe(0);
  });
});
