import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { type FeedEmulator, INVALID_KEY, startFeedEmulator } from '@threatlib/feed-emulator';
import { describeWithRsyslog, E2E_RSYSLOG, rsyslogLines } from '@threatlib/test-utils/rsyslog';
import { afterAll, beforeAll, expect, it, vi } from 'vitest';
import { ThreatClient } from '../client/threat-client.js';
import type { ThreatConfig } from '../config/schema.js';
import { ManualClock } from '../scheduler/clock.js';
import { expectNoSecretIn } from '../security/secret-leaks.test-suite.js';
import { withCategory } from './categories.js';
import { logTransportStats } from './create-logger.js';

const START = Date.parse('2026-01-01T00:00:00Z');
const PASSWORD = 'pw-Tr0ub4dor&3-transport-run';
const WRONG_PASSWORD = 'pw-wrong-guess-40417';
const KEYS = {
  feed_otx: 'otx-live-key-9c8b7a6f5e4d3c2b1a09',
  feed_abuse: 'abuse-live-key-1f2e3d4c5b6a7988',
  feed_scan: 'vt-live-key-abcdef0123456789fedcba9876543210',
  feed_urls: 'urlhaus-live-key-77dd88ee99ff',
  feed_cti: INVALID_KEY,
};
const ROTATED = { feed_otx: 'otx-rotated-key-0a1b2c3d4e5f', feed_scan: 'vt-rotated-key-66778899aabbccdd' };
const BEARER = 'eyJhbGciOiJIUzI1NiJ9.bearer-token-5566.c2lnbmF0dXJl';
const WEBHOOK_TOKEN = 'hec-token-0f0e0d0c0b0a';
const SESSION_TOKEN = 'sess-token-a1a2a3a4a5';
const SECRETS = [
  PASSWORD,
  WRONG_PASSWORD,
  ...Object.values(KEYS).filter((key) => key !== INVALID_KEY),
  ...Object.values(ROTATED),
  BEARER,
  WEBHOOK_TOKEN,
  SESSION_TOKEN,
];
/** Names every syslog message of this run, so the shared rsyslog file's other lines are left out. */
const APP_NAME = `nosecret-${process.pid}-${Date.now().toString(36)}`;

let emulator: FeedEmulator;
let dir: string;
let receiver: Server;
const bodies: string[] = [];

beforeAll(async () => {
  emulator = await startFeedEmulator();
  dir = await mkdtemp(join(tmpdir(), 'threatlib-no-secrets-transports-'));
  receiver = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      bodies.push(Buffer.concat(chunks).toString('utf8'));
      res.writeHead(200).end();
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
});

afterAll(async () => {
  await emulator?.close();
  receiver?.closeAllConnections();
  await new Promise((resolve) => receiver?.close(resolve));
  await rm(dir, { recursive: true, force: true });
});

/** Logging through every transport, in one format, the file named after the client. */
function logging(
  format: 'json' | 'text' | 'structured',
  name: string,
  protocol: 'udp' | 'tcp',
): ThreatConfig['logging'] {
  return {
    level: 'debug',
    format,
    transports: {
      file: { filename: join(dir, `${name}.log`), maxSize: '8KB', maxFiles: 3, compress: true },
      webhook: {
        url: `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/logs`,
        headers: { authorization: `Bearer ${WEBHOOK_TOKEN}` },
        batchSize: 20,
        flushInterval: 60_000,
      },
      syslog: { ...E2E_RSYSLOG, protocol, facility: 'local4', appName: APP_NAME },
    },
  };
}

/** Logs every shape a secret can take: fields, nested arrays, errors and their causes, URLs, messages, bindings. */
function logSecretsByHand(client: ThreatClient): void {
  const log = client.logger;
  log.info({ apiKeys: KEYS, rotation: { keys: ROTATED } }, 'configured keys');
  log.warn(
    {
      request: {
        url: `https://otx.example/api/v1/indicators?apikey=${KEYS.feed_otx}&limit=5`,
        headers: { Authorization: `Bearer ${BEARER}`, 'X-OTX-API-KEY': KEYS.feed_otx, Key: KEYS.feed_abuse },
      },
    },
    'outgoing request',
  );
  const cause = Object.assign(new Error(`upstream said: x-apikey: ${KEYS.feed_scan}`), { password: PASSWORD });
  log.error(
    {
      err: Object.assign(new Error(`refused https://h.example/?token=${SESSION_TOKEN}`, { cause }), {
        config: { headers: { authorization: `Bearer ${BEARER}` } },
      }),
    },
    'request failed',
  );
  log.child?.({ token: SESSION_TOKEN, nested: [{ secret: PASSWORD }] }).info({ step: 1 }, 'child with secret bindings');
  log.info({ dsn: `redis://admin:${PASSWORD}@cache.example:6379/0` }, 'cache configured');
  log.warn({}, `retrying with Authorization: Bearer ${BEARER}`);
  withCategory(log, 'vault').debug(
    { vault: { password: WRONG_PASSWORD, keys: [{ apiKey: ROTATED.feed_otx }] } },
    'vault',
  );
  // Enough lines to rotate the 8 KB files several times.
  for (let i = 0; i < 120; i++) log.debug({ i, padding: 'p'.repeat(80), password: PASSWORD }, 'filler');
}

describeWithRsyslog('a full run through stderr, file, webhook and syslog', () => {
  it('writes no key, password or token to any of them, in any format', async () => {
    const stderr: string[] = [];
    const spy = vi.spyOn(process.stderr, 'write').mockImplementation((chunk: string | Uint8Array) => {
      stderr.push(String(chunk));
      return true;
    });
    const clients: ThreatClient[] = [];
    try {
      const clock = new ManualClock(START);
      const endpoint = (feed: keyof FeedEmulator['endpoints']) => ({
        endpoint: emulator.endpoints[feed],
        timeout: 2000,
      });
      const apiKeys = Object.fromEntries(Object.keys(KEYS).map((feed) => [feed, endpoint(feed as keyof typeof KEYS)]));
      const path = join(dir, 'keys.vault');

      // The vault's life: create, use, lock, wrong password, unlock, rotate, save, reopen.
      const { client, vault } = await ThreatClient.createVault(PASSWORD, KEYS, {
        keyDerivation: 'pbkdf2',
        iterations: 1000,
        enableAuditLog: true,
        rotationEnabled: true,
        rotationInterval: 30_000,
        onRotate: () => ROTATED,
        path,
        config: {
          sources: ['feed_urls', 'feed_otx', 'feed_abuse', 'feed_cti', 'feed_scan'],
          apiKeys,
          security: { enforceHttps: false, validateCertificates: false },
          performance: { retryAttempts: 0, rateLimit: { enabled: false } },
          logging: logging('json', 'vault-run', 'tcp'),
        },
        clientOptions: { env: false, clock },
      });
      clients.push(client);
      await client.start();
      emulator.script('198.51.100.80', { behaviour: 'malicious', feeds: ['feed_scan', 'feed_abuse'] });
      emulator.script('198.51.100.81', { behaviour: 'server_error', feeds: ['feed_otx'] });
      emulator.script('198.51.100.81', { behaviour: 'unauthorized', feeds: ['feed_scan'] });
      await client.correlate('198.51.100.80');
      await client.correlate('198.51.100.81');
      await vault.save();
      vault.lock();
      await expect(vault.unlock(WRONG_PASSWORD)).rejects.toThrow(/wrong password/);
      await vault.unlock(PASSWORD);
      const rotated = new Promise<void>((resolve) =>
        vault.events.on('audit', (e) => e.action === 'vault_saved' && resolve()),
      );
      await clock.advance(30_000);
      await rotated;
      await client.correlate('198.51.100.80');
      logSecretsByHand(client);
      await client.stop();

      // The same by hand in each format, with keys given in the configuration.
      for (const [format, protocol] of [
        ['json', 'udp'],
        ['text', 'tcp'],
        ['structured', 'udp'],
      ] as const) {
        const plain = new ThreatClient(
          {
            sources: ['feed_otx', 'feed_abuse'],
            apiKeys: {
              feed_otx: { ...endpoint('feed_otx'), key: KEYS.feed_otx },
              feed_abuse: { ...endpoint('feed_abuse'), key: KEYS.feed_abuse },
            },
            security: { enforceHttps: false },
            performance: { retryAttempts: 0, rateLimit: { enabled: false } },
            logging: logging(format, `plain-${format}`, protocol),
          },
          { env: false, clock },
        );
        clients.push(plain);
        await plain.start();
        await plain.correlate('198.51.100.81');
        logSecretsByHand(plain);
        await plain.stop();
      }
    } finally {
      spy.mockRestore();
    }

    // Every destination received the run.
    const files = (await readdir(dir)).filter((name) => name.includes('.log'));
    const fileTexts = await Promise.all(
      files.map(async (name) => {
        const raw = await readFile(join(dir, name));
        return name.endsWith('.gz') ? gunzipSync(raw).toString('utf8') : raw.toString('utf8');
      }),
    );
    expect(files.filter((name) => name.endsWith('.gz')).length).toBeGreaterThanOrEqual(8);
    expect(stderr.join('')).toContain('configured keys');
    expect(bodies.length).toBeGreaterThan(10);
    const syslogSent = clients.reduce((n, c) => n + (logTransportStats(c.logger).syslog?.sent ?? 0), 0);
    for (const c of clients) expect(logTransportStats(c.logger).syslog?.dropped).toBe(0);
    const syslog = await rsyslogLines(APP_NAME, syslogSent);
    expect(syslog.length).toBe(syslogSent);
    const everything = [...stderr, ...fileTexts, ...bodies, ...syslog];
    const all = everything.join('\n');
    expect(all).toContain('[redacted]');
    expect(all).toContain('vault_rotated');
    expect(all).toContain('auth_error');

    expectNoSecretIn(everything, SECRETS);
  }, 60_000);
});
