import { createServer, type Server, type Socket } from 'node:net';
import { type FeedEmulator, INVALID_KEY, startFeedEmulator } from '@threatlib/feed-emulator';
import { SMTPServer } from 'smtp-server';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { extraResources, settle } from '../client/active-resources.test-suite.js';
import { ThreatClient } from '../client/threat-client.js';
import type { ThreatConfig } from '../config/schema.js';
import { ConfigurationError } from '../errors/configuration-error.js';
import type { Logger } from '../logging/logger.js';
import { ManualClock } from '../scheduler/clock.js';
import { EmailAlertChannel } from './email-channel.js';

const START = Date.parse('2026-12-01T00:00:00Z');
const OTX_KEY = 'otx-live-key-7a6b5c4d3e2f1a0b9c8d';
const SMTP_USER = 'alerts@threatlib.test';
const SMTP_PASSWORD = 'smtp-pw-Kq82!xLr-do-not-leak';
const WEBHOOK_TOKEN = 'whk-token-5e4d3c2b1a-never-in-mail';
const SECRETS = [OTX_KEY, INVALID_KEY, SMTP_PASSWORD, WEBHOOK_TOKEN];

interface Received {
  /** Envelope recipients. */
  rcptTo: string[];
  raw: string;
  /** The message with its transfer encoding undone, so a secret split by a soft line break is still found. */
  text: string;
}

/** A local SMTP server that takes every message (after checking the password) and keeps it. */
async function startSmtpSink() {
  const messages: Received[] = [];
  const waiters: Array<{ count: number; wake: () => void }> = [];
  let open = 0;
  const closedWaiters: Array<() => void> = [];
  const server = new SMTPServer({
    logger: false,
    disabledCommands: ['STARTTLS'],
    allowInsecureAuth: true,
    onConnect(_session, callback) {
      open += 1;
      callback();
    },
    onClose() {
      open -= 1;
      if (open === 0) for (const wake of closedWaiters.splice(0)) wake();
    },
    onAuth(auth, _session, callback) {
      if (auth.username === SMTP_USER && auth.password === SMTP_PASSWORD) callback(null, { user: SMTP_USER });
      else callback(new Error('Invalid username or password'));
    },
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.on('end', () => {
        const raw = Buffer.concat(chunks).toString('utf8');
        messages.push({ rcptTo: session.envelope.rcptTo.map((r) => r.address), raw, text: decode(raw) });
        for (const waiter of [...waiters]) {
          if (messages.length >= waiter.count) {
            waiters.splice(waiters.indexOf(waiter), 1);
            waiter.wake();
          }
        }
        callback();
      });
    },
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.server.address() as { port: number }).port;
  return {
    port,
    messages,
    /** Resolves once `count` messages have arrived. */
    received(count: number): Promise<Received[]> {
      if (messages.length >= count) return Promise.resolve(messages);
      return new Promise((resolve) => waiters.push({ count, wake: () => resolve(messages) }));
    },
    /** Resolves once no client connection is open. */
    allClosed(): Promise<void> {
      if (open === 0) return Promise.resolve();
      return new Promise((resolve) => closedWaiters.push(resolve));
    },
    get open() {
      return open;
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** The message's header and body with quoted-printable or base64 undone. */
function decode(raw: string): string {
  const split = raw.indexOf('\r\n\r\n');
  const head = raw.slice(0, split);
  const body = raw.slice(split + 4);
  const encoding = /^content-transfer-encoding:\s*(\S+)/im.exec(head)?.[1]?.toLowerCase();
  const decoded =
    encoding === 'quoted-printable'
      ? body
          .replace(/=\r\n/g, '')
          .replace(/=([0-9A-F]{2})/g, (_m, hex: string) => String.fromCharCode(Number.parseInt(hex, 16)))
      : encoding === 'base64'
        ? Buffer.from(body.replace(/\s+/g, ''), 'base64').toString('utf8')
        : body;
  return `${head.replace(/\r\n\s+/g, ' ')}\n\n${decoded}`;
}

function collectingLogger() {
  const lines: string[] = [];
  const push = (level: string) => (obj: object, msg?: string) => lines.push(JSON.stringify({ level, ...obj, msg }));
  const logger: Logger = { debug: push('debug'), info: push('info'), warn: push('warn'), error: push('error') };
  return { logger, lines };
}

let emulator: FeedEmulator;
const clients: ThreatClient[] = [];
beforeAll(async () => {
  emulator = await startFeedEmulator();
});
/** Stops the test's clients: before its mail server closes, which waits for their connections to end. */
async function stopClients(): Promise<void> {
  await Promise.all(clients.splice(0).map((c) => c.stop()));
}
afterEach(async () => {
  await stopClients();
  emulator.reset();
});
afterAll(async () => {
  await emulator.close();
});

function clientWith(smtpPort: number, clock: ManualClock, logger: Logger, extra: Partial<ThreatConfig> = {}) {
  const client = new ThreatClient(
    {
      sources: ['feed_otx', 'feed_cti'],
      apiKeys: {
        feed_otx: { key: OTX_KEY, endpoint: emulator.endpoints.feed_otx, timeout: 2000 },
        // The emulator answers this key with CrowdSec's own 403/401 refusal.
        feed_cti: { key: INVALID_KEY, endpoint: emulator.endpoints.feed_cti, timeout: 2000 },
      },
      caching: { enabled: false },
      security: { enforceHttps: false },
      // Time stands still on the manual clock: no quota may make a request wait for it.
      performance: {
        retryAttempts: 0,
        rateLimit: { enabled: false },
        circuitBreaker: { failureThreshold: 2, resetTimeout: 60_000, monitoringWindow: 300_000 },
      },
      enterprise: {
        monitoring: {
          alerts: {
            email: {
              from: 'threatlib@example.com',
              to: ['soc@example.com', 'oncall@example.com'],
              smtp: { host: '127.0.0.1', port: smtpPort, user: SMTP_USER, password: SMTP_PASSWORD },
            },
          },
        },
      },
      ...extra,
    },
    { env: false, logger, clock },
  );
  clients.push(client);
  return client;
}

describe('e-mail alerts reach an SMTP server', () => {
  it('a refused key and an opened breaker each send one e-mail naming the feed and condition, with no secret', async () => {
    const sink = await startSmtpSink();
    try {
      await settle();
      const baseline = process.getActiveResourcesInfo();
      const clock = new ManualClock(START);
      const { logger, lines } = collectingLogger();
      const client = clientWith(sink.port, clock, logger);
      await client.start();
      emulator.script('198.51.100.10', { behaviour: 'server_error', feeds: ['feed_otx'] });
      emulator.script('198.51.100.11', { behaviour: 'server_error', feeds: ['feed_otx'] });

      const first = await client.scout('198.51.100.10');
      expect(first.results.find((r) => r.feed === 'feed_cti')?.status).toBe('auth_error');
      // The second failure of each feed opens both breakers; feed_cti's refused key is not e-mailed twice.
      await client.scout('198.51.100.11');
      const messages = await sink.received(3);

      const subjects = messages.map((m) => /^subject: (.*)$/im.exec(m.text)?.[1]).sort();
      expect(subjects).toEqual([
        expect.stringMatching(/^\[threatlib\] feed_cti: API key rejected \(HTTP 40[13]\)$/),
        '[threatlib] feed_cti: circuit breaker open after auth_error',
        '[threatlib] feed_otx: circuit breaker open after error',
      ]);
      const keyMail = messages.find((m) => m.text.includes('API key rejected'));
      expect(keyMail?.text).toMatch(/Condition: key_rejected/);
      expect(keyMail?.text).toMatch(/Feed: CrowdSec CTI \(feed_cti\)/);
      expect(keyMail?.text).toMatch(/Check or replace the API key for feed_cti/);
      const breakerMail = messages.find((m) => m.text.includes('feed_otx: circuit breaker open'));
      expect(breakerMail?.text).toMatch(/Condition: breaker_open/);
      expect(breakerMail?.text).toMatch(/nextTrialAt: 2026-12-01T00:01:00.000Z/);
      expect(breakerMail?.rcptTo).toEqual(['soc@example.com', 'oncall@example.com']);

      // Nothing secret in any message, raw or decoded, nor in any log line.
      for (const message of messages) {
        for (const secret of SECRETS) {
          expect(message.raw).not.toContain(secret);
          expect(message.text).not.toContain(secret);
        }
      }

      // Proves the check below can see sockets: the SMTP and feed connections are live now.
      expect(extraResources(baseline)).toContain('TCPSocketWrap');
      // stop() lets the last delivery take the server's reply, then closes the pooled connection: no socket is left.
      await client.stop();
      await sink.allClosed();
      expect(sink.open).toBe(0);
      await settle();
      expect(extraResources(baseline)).toEqual([]);
      expect(client.monitoringAlertStats()).toEqual({
        raised: 3,
        suppressed: 1,
        channels: { email: { sent: 3, failed: 0 } },
      });
      for (const secret of SECRETS) expect(lines.join('\n')).not.toContain(secret);
    } finally {
      await stopClients();
      await sink.close();
    }
  });

  it('the cooldown lets the same condition alert again once it has passed', async () => {
    const sink = await startSmtpSink();
    try {
      const clock = new ManualClock(START);
      const client = clientWith(sink.port, clock, collectingLogger().logger, {
        sources: ['feed_cti'],
        enterprise: {
          monitoring: {
            alerts: {
              cooldownMs: 600_000,
              email: {
                from: 'threatlib@example.com',
                to: ['soc@example.com'],
                smtp: { host: '127.0.0.1', port: sink.port, user: SMTP_USER, password: SMTP_PASSWORD },
              },
            },
          },
        },
        performance: { retryAttempts: 0, rateLimit: { enabled: false }, circuitBreaker: { failureThreshold: 50 } },
      });
      await client.scout('198.51.100.20');
      await sink.received(1);
      await client.scout('198.51.100.21');
      await clock.advance(599_999);
      await client.scout('198.51.100.22');
      expect(client.monitoringAlertStats()).toMatchObject({ raised: 1, suppressed: 2 });
      await clock.advance(1);
      await client.scout('198.51.100.23');
      await sink.received(2);
      expect(client.monitoringAlertStats()).toMatchObject({ raised: 2, suppressed: 2 });
    } finally {
      await stopClients();
      await sink.close();
    }
  });
});

describe('an SMTP outage never reaches the scan path', () => {
  it('a refused connection: lookups go on, the failure is logged without secrets and counted', async () => {
    const port = await closedPort();
    const clock = new ManualClock(START);
    const { logger, lines } = collectingLogger();
    const client = clientWith(port, clock, logger);
    const result = await client.scout('198.51.100.30');
    expect(result.results.map((r) => [r.feed, r.status])).toEqual([
      ['feed_otx', 'not_found'],
      ['feed_cti', 'auth_error'],
    ]);
    await client.stop();
    expect(client.monitoringAlertStats().channels.email).toEqual({ sent: 0, failed: 1 });
    const failure = lines.find((l) => l.includes('monitoring alert by email failed'));
    expect(failure).toMatch(/ECONNREFUSED|connect/i);
    for (const secret of SECRETS) expect(lines.join('\n')).not.toContain(secret);
    // Scanning still works after the failure.
    expect((await client.scout('198.51.100.31')).results).toHaveLength(2);
  });

  it('a server that accepts and never answers: the lookup returns at once, stop() ends the delivery', async () => {
    const silent = await startSilentServer();
    try {
      const clock = new ManualClock(START);
      const { logger } = collectingLogger();
      const client = clientWith(silent.port, clock, logger);
      const result = await client.scout('198.51.100.40');
      expect(result.results.find((r) => r.feed === 'feed_cti')?.status).toBe('auth_error');
      await silent.connected;
      // The alert is still on its way while the lookup has returned.
      expect(client.monitoringAlertStats()).toEqual({
        raised: 1,
        suppressed: 0,
        channels: { email: { sent: 0, failed: 0 } },
      });
      // stop() gives the delivery 2 s on the client's clock, then ends it.
      let stopped = false;
      const stopping = client.stop().then(() => {
        stopped = true;
      });
      while (!stopped) await clock.advance(500);
      await stopping;
      expect(client.monitoringAlertStats().channels.email).toEqual({ sent: 0, failed: 1 });
      await silent.allClosed();
    } finally {
      await silent.close();
    }
  });
});

describe('nodemailer is optional', () => {
  it('configuring e-mail alerts without it is a configuration error that says what to install', () => {
    const missing = () => {
      throw Object.assign(new Error("Cannot find module 'nodemailer'"), { code: 'MODULE_NOT_FOUND' });
    };
    const make = () =>
      new EmailAlertChannel({
        from: 'a@example.com',
        to: ['b@example.com'],
        smtp: { host: 'smtp.example.com', port: 587, secure: false },
        requireTLS: true,
        validateCertificates: true,
        loadMailer: missing,
      });
    expect(make).toThrow(ConfigurationError);
    expect(make).toThrow(
      "Configuration invalid: enterprise.monitoring.alerts.email: e-mail alerts need the 'nodemailer' package: npm install nodemailer",
    );
  });

  it('a client without e-mail alerts never loads it', () => {
    const client = new ThreatClient({ sources: ['feed_urls'] }, { env: false });
    expect(client.monitoringAlertStats()).toEqual({ raised: 0, suppressed: 0, channels: {} });
  });
});

/** A port nothing listens on. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/** A TCP server that accepts connections and never says a word (a stalled mail server). */
async function startSilentServer() {
  const sockets = new Set<Socket>();
  let onConnect: () => void = () => {};
  const connected = new Promise<void>((resolve) => {
    onConnect = resolve;
  });
  const closedWaiters: Array<() => void> = [];
  const server: Server = createServer((socket) => {
    sockets.add(socket);
    onConnect();
    socket.on('close', () => {
      sockets.delete(socket);
      if (sockets.size === 0) for (const wake of closedWaiters.splice(0)) wake();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as { port: number }).port,
    connected,
    allClosed: () =>
      sockets.size === 0 ? Promise.resolve() : new Promise<void>((resolve) => closedWaiters.push(resolve)),
    close: async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
