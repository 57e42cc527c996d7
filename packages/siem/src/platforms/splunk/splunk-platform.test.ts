import { ConfigurationError, InsecureEndpointError } from '@threatlib/core';
import type { Clock } from '@threatlib/core/integration';
import { type RunningSiemEmulator, SPLUNK_DEFAULTS, startSiemEmulator, TEST_CA } from '@threatlib/siem-emulator';
import { afterEach, describe, expect, it } from 'vitest';
import type { SiemConnectorOptions } from '../../connector/connector-options.js';
import { SiemAuthenticationError } from '../../connector/siem-authentication-error.js';
import { SIEMConnector, type SiemConnectorRuntime } from '../../connector/siem-connector.js';
import { SiemRequestError } from '../../connector/siem-request-error.js';
import { SiemUnreachableError } from '../../connector/siem-unreachable-error.js';

let emulator: RunningSiemEmulator | undefined;
const connectors: SIEMConnector[] = [];
afterEach(async () => {
  await Promise.all(connectors.splice(0).map((c) => c.stop()));
  await emulator?.close();
  emulator = undefined;
});

async function start(options: Parameters<typeof startSiemEmulator>[0] = {}): Promise<RunningSiemEmulator> {
  emulator = await startSiemEmulator(options);
  return emulator;
}

function connector(overrides: Partial<SiemConnectorOptions> = {}, runtime: SiemConnectorRuntime = {}): SIEMConnector {
  if (!emulator) throw new Error('start the emulator first');
  const made = new SIEMConnector(
    {
      platform: 'siem_a',
      host: emulator.host,
      port: emulator.port,
      credentials: { username: SPLUNK_DEFAULTS.username, password: SPLUNK_DEFAULTS.password },
      hec: { token: SPLUNK_DEFAULTS.hecToken, port: emulator.port, ackInterval: 1 },
      tls: { ca: TEST_CA },
      retryDelay: 1,
      ...overrides,
    } as SiemConnectorOptions,
    runtime,
  );
  connectors.push(made);
  return made;
}

const alert = (title: string) => ({
  title,
  severity: 'high',
  indicators: [{ type: 'ip' as const, value: '198.51.100.9', confidence: 80 }],
});

describe('siem_a alerts through the HTTP Event Collector', () => {
  it('sends a batch as one request of concatenated events (not an array) with Authorization: Splunk <token>', async () => {
    const siem = await start().then(() => connector());
    await siem.sendAlerts([alert('one'), alert('two'), alert('three')]);
    const posts = emulator?.requests.filter((r) => r.path === '/services/collector/event') ?? [];
    expect(posts).toHaveLength(1);
    const [post] = posts;
    expect(post?.headers.authorization).toBe(`Splunk ${SPLUNK_DEFAULTS.hecToken}`);
    expect(post?.headers['content-type']).toBe('application/json');
    expect(post?.body.startsWith('{')).toBe(true);
    const events = post?.body.split(/(?<=\})(?=\{"time")/).map((part) => JSON.parse(part));
    expect(events?.map((e) => [e.sourcetype, e.source, e.event.title])).toEqual([
      ['threatlib:alert', 'threatlib', 'one'],
      ['threatlib:alert', 'threatlib', 'two'],
      ['threatlib:alert', 'threatlib', 'three'],
    ]);
    expect(events?.[0].event).not.toHaveProperty('deliveries');
    expect(typeof events?.[0].time).toBe('number');
  });

  it('splits a large volume into requests within the platform limit (500 events)', async () => {
    const siem = await start().then(() => connector());
    const receipt = await siem.sendAlerts(Array.from({ length: 1201 }, (_, i) => alert(`bulk ${i}`)));
    expect(receipt).toEqual({ platform: 'siem_a', accepted: 1201, batches: 3 });
    expect(emulator?.splunk.acceptedRequests).toBe(3);
    expect(emulator?.splunk.events).toHaveLength(1201);
  });

  it('uses the indexer-acknowledgement channel when the token asks for it, and waits for the ack', async () => {
    await start({ splunk: { hecTokens: { [SPLUNK_DEFAULTS.hecToken]: { ack: true } } } });
    if (emulator) emulator.splunk.pendingAckPolls = 3;
    const channel = '0d6a6b1e-2f3c-4d5e-8f90-a1b2c3d4e5f6';
    const siem = connector({ hec: { token: SPLUNK_DEFAULTS.hecToken, port: emulator?.port, channel, ackInterval: 1 } });
    expect(await siem.sendAlert(alert('acked'))).toEqual({ platform: 'siem_a', accepted: 1, ackId: 0, indexed: true });
    const paths = emulator?.requests.map((r) => [r.path, r.status, r.headers['x-splunk-request-channel']]);
    expect(paths).toEqual([
      ['/services/collector/event', 400, undefined],
      ['/services/collector/event', 200, channel],
      ['/services/collector/ack', 200, channel],
      ['/services/collector/ack', 200, channel],
      ['/services/collector/ack', 200, channel],
      ['/services/collector/ack', 200, channel],
    ]);
    expect(emulator?.splunk.events).toHaveLength(1);
  });

  it('names the alert HEC refused and the index when the token may not write to it; not retried', async () => {
    await start({ splunk: { hecTokens: { [SPLUNK_DEFAULTS.hecToken]: { indexes: ['main'] } } } });
    const error = await connector({ index: 'threats' })
      .sendAlert({ ...alert('x'), id: 'alert-42' })
      .catch((e: unknown) => e);
    expect(SiemRequestError.isInstance(error)).toBe(true);
    expect((error as Error).message).toBe(
      "Splunk sendAlert: HEC: Incorrect index at event 0 (alert alert-42): the HEC token may not write to index threats; add it to the token's allowed indexes or change the index option",
    );
    expect((error as SiemRequestError).attempts).toBe(1);
  });

  it('waits for Retry-After (when longer than the backoff) before retrying a busy HEC', async () => {
    await start();
    const waits: number[] = [];
    // Timers of the attempt timeout run for real; the waits between retries are recorded and pass at once.
    const clock: Clock = {
      now: () => Date.now(),
      setTimeout(callback, ms) {
        if (ms !== 30_000) waits.push(ms);
        return setTimeout(callback, ms === 30_000 ? ms : 0);
      },
      clearTimeout: (handle) => clearTimeout(handle as NodeJS.Timeout),
    };
    const siem = connector({ retries: 3, retryDelay: 10 }, { clock, random: () => 0.5 });
    emulator?.failNext(1, 'busy');
    await siem.sendAlert(alert('after busy'));
    // No Retry-After: the backoff (10 ms, jittered to 7.5 → 8).
    expect(waits).toEqual([8]);
    waits.length = 0;
    // HEC behind a proxy answering 429 with Retry-After: 2 → 2000 ms, longer than the backoff.
    const proxied = connector({ retries: 3, retryDelay: 10 }, { clock, random: () => 0.5 });
    const original = emulator?.splunk.busy;
    if (emulator && original) {
      emulator.splunk.busy = () => ({
        status: 429,
        headers: { 'retry-after': '2' },
        body: { text: 'Too many requests', code: 9 },
      });
    }
    emulator?.failNext(1, 'busy');
    await proxied.sendAlert(alert('after 429'));
    expect(waits).toEqual([2000]);
  });

  it('gives up at once when Retry-After is longer than maxRetryAfter', async () => {
    await start();
    if (emulator) {
      emulator.splunk.busy = () => ({
        status: 503,
        headers: { 'retry-after': '3600' },
        body: { text: 'Server is busy', code: 9 },
      });
    }
    emulator?.failNext(1, 'busy');
    const error = await connector({ retries: 3, maxRetryAfter: 5_000 })
      .sendAlert(alert('x'))
      .catch((e: unknown) => e);
    expect((error as SiemRequestError).attempts).toBe(1);
    expect((error as Error).message).toContain('Server is busy');
  });
});

describe('siem_a cases as notable events', () => {
  it('writes the case to index=notable as Enterprise Security reads it, and returns its id', async () => {
    const siem = await start().then(() => connector());
    const id = await siem.createCase({
      title: 'Phishing campaign',
      description: 'Credential harvesting',
      priority: 'Critical',
      assignee: 'analyst@example.com',
      indicators: [{ type: 'domain', value: 'login-example.com', source: 'feed_urls' }],
    });
    const [notable] = emulator?.splunk.events ?? [];
    expect(notable).toMatchObject({ index: 'notable', sourcetype: 'stash' });
    expect(notable?.event).toMatchObject({
      case_id: id,
      rule_title: 'Phishing campaign',
      rule_description: 'Credential harvesting',
      urgency: 'critical',
      owner: 'analyst@example.com',
      status: '1',
      security_domain: 'threat',
    });
  });

  it('keeps the same id across retries, so a retried case is one case', async () => {
    const siem = await start().then(() => connector({ retries: 2 }));
    emulator?.failNext(1, 'reset');
    const id = await siem.createCase({ title: 'once', priority: 'low' });
    const ids = emulator?.splunk.events.map((e) => (e.event as { case_id: string }).case_id);
    expect(ids).toEqual([id]);
  });
});

describe('siem_a enrichment through the search API', () => {
  it('searches the configured indexes over the configured time range, with basic authentication', async () => {
    const siem = await start().then(() => connector({ searchIndexes: ['main', 'firewall'], earliest: '-30d' }));
    await siem.enrichIndicator({ type: 'ip', value: '192.0.2.5' });
    const [search] = emulator?.splunk.searches ?? [];
    expect(search?.endpoint).toBe('/services/search/v2/jobs/export');
    expect(search?.earliest).toBe('-30d');
    expect(search?.search).toMatch(/^search \(index="main" OR index="firewall"\) "192\.0\.2\.5" \| /);
    const request = emulator?.requests.find((r) => r.path === '/services/search/v2/jobs/export');
    expect(request?.headers.authorization).toBe(
      `Basic ${Buffer.from(`${SPLUNK_DEFAULTS.username}:${SPLUNK_DEFAULTS.password}`).toString('base64')}`,
    );
  });

  it('matches a value with SPL wildcards and quotes exactly', async () => {
    const siem = await start().then(() => connector());
    const value = 'http://evil-site.com/a*b?q=x\\y';
    const now = Date.now() / 1000;
    emulator?.splunk.index({ raw: `GET ${value} 200`, time: now - 60 });
    emulator?.splunk.index({ raw: 'GET http://evil-site.com/aZZZb?q=x\\y 200', time: now - 30 });
    const enriched = await siem.enrichIndicator({ type: 'url', value });
    expect(enriched.associatedEvents).toBe(1);
  });

  it('authenticates the search with an authentication token as Bearer', async () => {
    await start();
    const siem = connector({ credentials: { token: SPLUNK_DEFAULTS.authToken } });
    await siem.enrichIndicator({ type: 'ip', value: '192.0.2.5' });
    const request = emulator?.requests.find((r) => r.path.startsWith('/services/search'));
    expect(request?.headers.authorization).toBe(`Bearer ${SPLUNK_DEFAULTS.authToken}`);
  });

  it('reports a search Splunk refused with its own message', async () => {
    const siem = await start().then(() => connector());
    if (emulator) {
      const original = emulator.splunk.handle.bind(emulator.splunk);
      emulator.splunk.handle = (request) =>
        request.path.includes('/search/')
          ? { status: 400, body: { messages: [{ type: 'FATAL', text: "Error in 'search' command: boom" }] } }
          : original(request);
    }
    await expect(siem.enrichIndicator({ type: 'ip', value: '192.0.2.5' })).rejects.toThrow(
      "Splunk enrichIndicator: HTTP 400: search: Error in 'search' command: boom",
    );
  });
});

describe('siem_a testConnection', () => {
  it('reports the collector, the token and the server version', async () => {
    const siem = await start().then(() => connector());
    expect(await siem.testConnection()).toEqual({
      platform: 'siem_a',
      version: '9.4.1',
      checks: { collector: 'HEC is healthy', token: 'accepted', management: 'Splunk 9.4.1' },
    });
  });

  it('says which credential was refused, in Splunk’s words', async () => {
    await start();
    const badToken = await connector({ hec: { token: 'bad-hec-token-0000', port: emulator?.port } })
      .testConnection()
      .catch((e: unknown) => e);
    expect(SiemAuthenticationError.isInstance(badToken)).toBe(true);
    expect((badToken as Error).message).toBe('authentication failed: Invalid token (HEC code 4)');
    const badPassword = await connector({ credentials: { username: 'admin', password: 'wrong-password-1' } })
      .testConnection()
      .catch((e: unknown) => e);
    expect((badPassword as Error).message).toBe(
      'authentication failed: call not properly authenticated (management port, server info)',
    );
  });

  it('says unreachable, not authentication, when nothing answers; and an untrusted certificate is not retried', async () => {
    await start();
    const port = emulator?.port;
    await emulator?.close();
    emulator = undefined;
    emulator = await startSiemEmulator();
    const stale = new SIEMConnector({
      platform: 'siem_a',
      host: '127.0.0.1',
      port: port ?? 1,
      credentials: { token: 'a-token-1234' },
      retries: 1,
      retryDelay: 1,
    });
    connectors.push(stale);
    const down = await stale.testConnection().catch((e: unknown) => e);
    expect(SiemUnreachableError.isInstance(down)).toBe(true);
    expect((down as Error).message).toMatch(
      /^Splunk at 127\.0\.0\.1:\d+ unreachable: connection refused \(ECONNREFUSED\) \(after 2 attempts\)$/,
    );
    const untrusted = connector({ tls: { rejectUnauthorized: true } });
    const tlsError = await untrusted.testConnection().catch((e: unknown) => e);
    expect(SiemUnreachableError.isInstance(tlsError)).toBe(true);
    expect((tlsError as Error).message).toMatch(/TLS certificate not trusted .*tls\.ca/);
    expect((tlsError as SiemUnreachableError).attempts).toBe(1);
  });

  it('reports an unhealthy collector as a retryable failure, not an authentication one', async () => {
    await start();
    if (emulator) emulator.splunk.healthy = false;
    const error = await connector({ retries: 0 })
      .testConnection()
      .catch((e: unknown) => e);
    expect(SiemRequestError.isInstance(error)).toBe(true);
    expect((error as SiemRequestError).isRetryable).toBe(true);
    expect((error as Error).message).toContain('HEC is unhealthy, queues are full');
  });
});

describe('siem_a options', () => {
  it('with only a user and password (the documented form), reads the HEC token of the input named threatlib', async () => {
    await start();
    const siem = connector({ hec: { port: emulator?.port, ackInterval: 1 } });
    await siem.sendAlert(alert('first'));
    await siem.sendAlert(alert('second'));
    const paths = emulator?.requests.map((r) => r.path);
    expect(paths).toEqual(['/services/data/inputs/http', '/services/collector/event', '/services/collector/event']);
    expect(emulator?.requests[1]?.headers.authorization).toBe(`Splunk ${SPLUNK_DEFAULTS.hecToken}`);
    expect((await siem.testConnection()).checks.token).toBe('accepted');
  });

  it('learns from the input that its token uses indexer acknowledgement, so sends on a channel at once', async () => {
    await start({ splunk: { hecTokens: { [SPLUNK_DEFAULTS.hecToken]: { name: 'alerts', ack: true } } } });
    const siem = connector({ hec: { port: emulator?.port, tokenName: 'alerts', ackInterval: 1 } });
    expect(await siem.sendAlert(alert('acked'))).toMatchObject({ indexed: true });
    expect(emulator?.requests.map((r) => [r.path, r.status])).toEqual([
      ['/services/data/inputs/http', 200],
      ['/services/collector/event', 200],
      ['/services/collector/ack', 200],
    ]);
  });

  it('says what to do when there is no HEC token to use, without retrying', async () => {
    await start();
    const error = await connector({ hec: { port: emulator?.port, tokenName: 'missing' } })
      .sendAlert(alert('x'))
      .catch((e: unknown) => e);
    expect((error as Error).message).toBe(
      'Splunk sendAlert: no HEC token: set hec.token, or create an HTTP Event Collector input named "missing" (hec.tokenName) that these credentials may read',
    );
    expect((error as SiemRequestError).attempts).toBe(1);
  });

  it('uses the management port 8089 and HEC port 8088 by default, and the credentials token for HEC', async () => {
    const siem = new SIEMConnector({
      platform: 'siem_a',
      host: 'splunk.example.com',
      credentials: { token: 't-12345' },
    });
    expect(siem.address).toBe('splunk.example.com:8089');
  });

  it('refuses plain HTTP unless enforceHttps is false, and then speaks it', async () => {
    await start({ tls: false });
    expect(() => connector({ protocol: 'http', tls: undefined })).toThrow(InsecureEndpointError);
    const plain = connector({ protocol: 'http', enforceHttps: false, tls: undefined });
    await plain.sendAlert(alert('over http'));
    expect(emulator?.splunk.events).toHaveLength(1);
  });

  it('names unknown options', () => {
    expect(
      () =>
        new SIEMConnector({
          platform: 'siem_a',
          host: 'h.example.com',
          credentials: { token: 't-12345' },
          sourceType: 'x',
        } as SiemConnectorOptions),
    ).toThrow(ConfigurationError);
  });
});
