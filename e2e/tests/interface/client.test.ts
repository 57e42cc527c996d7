// The client as ../shared/INTERFACE.md documents it (sections 1, 6.1, 7 and 8.1), written as a user porting from that
// document writes it: `<ThreatClient>` is `ThreatClient` from `@threatlib/core`, and the feeds' addresses and keys are
// the feed emulator's (plain HTTP on loopback, hence `security: {enforceHttps: false}` wherever a lookup is made).
// `logging: {enabled: false}` keeps the examples that are not about logging quiet.
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ConfigurationError, ThreatClient, type ThreatConfig } from '@threatlib/core';
import { createClient } from 'redis';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  describeWith,
  type EmulatedFeeds,
  eventually,
  FEEDS,
  type Receiver,
  RSYSLOG_MESSAGES,
  servicePort,
  startEmulatedFeeds,
  startReceiver,
  uniqueName,
} from './support.js';

let feeds: EmulatedFeeds;
const clients: ThreatClient[] = [];
/** Every client an example makes is stopped after it, whatever the example did. */
const track = (client: ThreatClient) => {
  clients.push(client);
  return client;
};

beforeAll(async () => {
  feeds = await startEmulatedFeeds();
  // Every feed says malicious about this address, on evidence two years old; two of them about the second.
  feeds.emulator.script('198.51.100.23', { behaviour: 'malicious', ageDays: 730 });
  feeds.emulator.script('198.51.100.24', { behaviour: 'malicious', feeds: ['feed_abuse', 'feed_cti'] });
  feeds.emulator.script('malicious-site.com', 'malicious');
});

afterEach(async () => {
  await Promise.all(clients.splice(0).map((client) => client.stop()));
});

afterAll(async () => {
  await feeds?.emulator.close();
});

describe('1. core operations: scout(indicator) and correlate(indicator)', () => {
  it('scouts an indicator with every source and correlates it into a numeric confidence', async () => {
    const trojan = track(
      new ThreatClient({
        sources: ['feed_urls', 'feed_otx', 'feed_abuse', 'feed_cti', 'feed_scan'],
        apiKeys: feeds.apiKeys,
        security: { enforceHttps: false },
        logging: { enabled: false },
      }),
    );

    const threats = await trojan.scout('malicious-site.com');
    expect(threats.results.map((result) => result.feed)).toEqual([...FEEDS]);
    expect(threats.results.find((result) => result.feed === 'feed_otx')).toMatchObject({
      status: 'ok',
      verdict: 'malicious',
    });

    const correlation = await trojan.correlate('198.51.100.23');
    expect(typeof correlation.confidence).toBe('number');
    expect(correlation.confidence).toBeGreaterThan(0);
    expect(correlation.confidence).toBeLessThanOrEqual(100);
    const clean = await trojan.correlate('8.8.8.8');
    expect(clean.confidence).toBeLessThan(correlation.confidence);
  });
});

describe('8.1 strategy and thresholds', () => {
  it('defaults to defensive', () => {
    const trojan = track(new ThreatClient({ sources: ['feed_urls'], logging: { enabled: false } }));
    expect(trojan.config.strategy).toBe('defensive');
  });

  it('custom thresholds override the strategy defaults: confidence, consensus, riskScore, correlationWeight', async () => {
    const defensive = track(
      new ThreatClient({
        sources: ['feed_urls', 'feed_otx', 'feed_abuse', 'feed_cti', 'feed_scan'],
        strategy: 'defensive',
        apiKeys: feeds.apiKeys,
        security: { enforceHttps: false },
        logging: { enabled: false },
      }),
    );
    const custom = track(
      new ThreatClient({
        sources: ['feed_urls', 'feed_otx', 'feed_abuse', 'feed_cti', 'feed_scan'],
        strategy: 'custom',
        thresholds: { confidence: 0.2, consensus: 3, riskScore: 5, correlationWeight: 1 },
        apiKeys: feeds.apiKeys,
        security: { enforceHttps: false },
        logging: { enabled: false },
      }),
    );

    // The evidence is old, so its confidence stays low: too low for defensive, enough for these thresholds.
    expect((await defensive.correlate('198.51.100.23')).isThreat).toBe(false);
    const flagged = await custom.correlate('198.51.100.23');
    expect(flagged).toMatchObject({ isThreat: true, strategy: 'custom' });
    // consensus: two agreeing sources are fewer than the three required.
    const two = await custom.correlate('198.51.100.24');
    expect(two.consensus).toBe(2);
    expect(two.isThreat).toBe(false);

    const heavier = track(
      new ThreatClient({
        sources: ['feed_urls', 'feed_otx', 'feed_abuse', 'feed_cti', 'feed_scan'],
        strategy: 'custom',
        thresholds: { confidence: 0.2, consensus: 2, riskScore: 1, correlationWeight: 3 },
        apiKeys: feeds.apiKeys,
        security: { enforceHttps: false },
        logging: { enabled: false },
      }),
    );
    // correlationWeight scales how much agreeing sources raise the risk score.
    expect((await heavier.correlate('198.51.100.24')).riskScore).toBeGreaterThan(two.riskScore);
  });
});

describe('8.1 pwa', () => {
  it('takes enabled, cacheStrategy cache-first or network-first, offlineData and syncOnReconnect', () => {
    for (const cacheStrategy of ['cache-first', 'network-first'] as const) {
      const client = track(
        new ThreatClient({
          sources: ['feed_urls'],
          pwa: { enabled: true, cacheStrategy, offlineData: true, syncOnReconnect: true },
          logging: { enabled: false },
        }),
      );
      expect(client.config.pwa).toEqual({ enabled: true, cacheStrategy, offlineData: true, syncOnReconnect: true });
    }
    expect(
      () => new ThreatClient({ sources: ['feed_urls'], pwa: { cacheStrategy: 'cache-only' as 'cache-first' } }),
    ).toThrow(ConfigurationError);
  });
});

describe('5 and 8.1 apiKeys', () => {
  it('takes a key as a string', () => {
    const trojan = track(
      new ThreatClient({
        sources: ['feed_urls', 'feed_otx'],
        apiKeys: { feed_otx: 'otx-api-key' },
        logging: { enabled: false },
      }),
    );
    // feed_urls needs no key, feed_otx has one: nothing is missing.
    expect(trojan.warnings.map((warning) => warning.code)).not.toContain('MISSING_API_KEY');
    expect(trojan.feedStatus().map(({ feed, configured }) => ({ feed, configured }))).toEqual([
      { feed: 'feed_urls', configured: true },
      { feed: 'feed_otx', configured: true },
    ]);
  });

  it('takes a key as an object {key, endpoint, rateLimit, timeout} and, for feed_abuse, categories', async () => {
    const trojan = track(
      new ThreatClient({
        sources: ['feed_otx', 'feed_abuse'],
        apiKeys: {
          feed_otx: { key: 'otx-object-key', endpoint: feeds.emulator.endpoints.feed_otx, rateLimit: 30, timeout: 500 },
          feed_abuse: { key: 'abuse-object-key', endpoint: feeds.emulator.endpoints.feed_abuse, categories: [14, 18] },
        },
        performance: { retryAttempts: 0 },
        security: { enforceHttps: false },
        logging: { enabled: false },
      }),
    );
    feeds.emulator.script('198.51.100.31', { behaviour: 'hang', feeds: ['feed_otx'] });

    const threats = await trojan.scout('198.51.100.31');
    // timeout: the hanging feed gives up after 500 ms; endpoint and key: the other went to the emulator with its key.
    expect(threats.results.map(({ feed, status }) => ({ feed, status }))).toEqual([
      { feed: 'feed_otx', status: 'timeout' },
      { feed: 'feed_abuse', status: 'not_found' },
    ]);
    const sent = feeds.emulator.requests.filter((request) => request.indicator === '198.51.100.31');
    expect(sent.find((r) => r.feed === 'feed_otx')?.headers['x-otx-api-key']).toBe('otx-object-key');
    expect(sent.find((r) => r.feed === 'feed_abuse')?.headers.key).toBe('abuse-object-key');
    // rateLimit: requests per minute for this key.
    const otx = trojan.feedStatus().find((status) => status.feed === 'feed_otx');
    expect(otx?.quota).toContainEqual(expect.objectContaining({ window: 'minute', limit: 30 }));
  });
});

describe('8.1 security', () => {
  it('takes every documented security option', () => {
    const security: ThreatConfig['security'] = {
      enforceHttps: true,
      validateCertificates: true,
      autoLock: true,
      lockTimeout: 300000,
      enableAuditLog: true,
      encryption: {
        algorithm: 'aes-256-gcm',
        keyDerivation: 'pbkdf2',
        iterations: 100000,
        saltSize: 32,
        tagSize: 16,
      },
      memoryProtection: { secureErase: true, preventDumps: true, obfuscateKeys: true },
      authentication: {
        type: 'oauth2',
        tokenEndpoint: 'https://auth.example.com/oauth2/token',
        clientId: 'threatlib',
        scopes: ['threat-intel:read'],
      },
    };
    const trojan = track(new ThreatClient({ sources: ['feed_urls'], security, logging: { enabled: false } }));
    expect(trojan.config.security).toMatchObject(security);
    // argon2id is the other key derivation.
    const argon = track(
      new ThreatClient({
        sources: ['feed_urls'],
        security: { encryption: { keyDerivation: 'argon2id' } },
        logging: { enabled: false },
      }),
    );
    expect(argon.config.security.encryption.keyDerivation).toBe('argon2id');
  });

  it('enforceHttps is on by default and refuses a plain-HTTP feed endpoint', () => {
    expect(
      () =>
        new ThreatClient({
          sources: ['feed_otx'],
          apiKeys: { feed_otx: { key: 'otx-api-key', endpoint: feeds.emulator.endpoints.feed_otx } },
          logging: { enabled: false },
        }),
    ).toThrow(/apiKeys\.feed_otx\.endpoint/);
  });
});

describe('8 and 8.1 performance', () => {
  it('takes every documented performance option with the example values', () => {
    const performance = {
      maxConcurrency: 10,
      requestTimeout: 30000,
      retryAttempts: 3,
      retryDelay: 1000,
      backoffMultiplier: 2,
      circuitBreaker: { failureThreshold: 5, resetTimeout: 60000, monitoringWindow: 300000 },
      rateLimit: {
        enabled: true,
        requestsPerSecond: 10,
        burstSize: 20,
        requestsPerMinute: 100,
        requestsPerHour: 1000,
        requestsPerDay: 10000,
      },
    };
    const trojan = track(
      new ThreatClient({ sources: ['feed_urls', 'feed_otx'], performance, logging: { enabled: false } }),
    );
    expect(trojan.config.performance).toMatchObject(performance);
    // The windows apply to every feed.
    for (const { quota } of trojan.feedStatus()) {
      expect(quota).toEqual(
        expect.arrayContaining([
          expect.objectContaining({ window: 'minute', limit: 100 }),
          expect.objectContaining({ window: 'hour', limit: 1000 }),
          expect.objectContaining({ window: 'day', limit: 10000 }),
        ]),
      );
    }
  });

  it('retries a failing feed retryAttempts times, backing off from retryDelay by backoffMultiplier', async () => {
    const trojan = track(
      new ThreatClient({
        sources: ['feed_otx'],
        apiKeys: { feed_otx: feeds.apiKeys.feed_otx },
        performance: { retryAttempts: 2, retryDelay: 20, backoffMultiplier: 2 },
        security: { enforceHttps: false },
        logging: { enabled: false },
      }),
    );
    feeds.emulator.script('198.51.100.41', 'server_error');
    const threats = await trojan.scout('198.51.100.41');
    expect(threats.results[0]?.status).toBe('error');
    expect(feeds.emulator.count('feed_otx', '198.51.100.41')).toBe(3);
  });

  it('requestTimeout bounds a request', async () => {
    const trojan = track(
      new ThreatClient({
        sources: ['feed_otx'],
        apiKeys: { feed_otx: feeds.apiKeys.feed_otx },
        performance: { requestTimeout: 300, retryAttempts: 0 },
        security: { enforceHttps: false },
        logging: { enabled: false },
      }),
    );
    feeds.emulator.script('198.51.100.42', 'hang');
    expect((await trojan.scout('198.51.100.42')).results[0]?.status).toBe('timeout');
  });

  it('opens the circuit breaker after failureThreshold failures', async () => {
    const trojan = track(
      new ThreatClient({
        sources: ['feed_otx'],
        apiKeys: { feed_otx: feeds.apiKeys.feed_otx },
        performance: {
          retryAttempts: 0,
          circuitBreaker: { failureThreshold: 2, resetTimeout: 60000, monitoringWindow: 300000 },
        },
        security: { enforceHttps: false },
        logging: { enabled: false },
      }),
    );
    feeds.emulator.script('198.51.100.43', 'server_error');
    feeds.emulator.script('198.51.100.44', 'server_error');
    await trojan.scout('198.51.100.43');
    await trojan.scout('198.51.100.44');
    const third = await trojan.scout('198.51.100.45');
    expect(third.results[0]?.status).toBe('circuit_open');
    expect(feeds.emulator.count('feed_otx', '198.51.100.45')).toBe(0);
  });
});

describe('4.2 updateConcurrency(n)', () => {
  it('changes the maximum concurrency at run time, for work already queued', async () => {
    const trojan = track(
      new ThreatClient({
        sources: ['feed_otx'],
        apiKeys: { feed_otx: feeds.apiKeys.feed_otx },
        performance: { maxConcurrency: 1 },
        security: { enforceHttps: false },
        logging: { enabled: false },
      }),
    );
    // Lookups the feed never answers hold their slots until they are aborted: no timing is involved.
    const indicators = ['198.51.100.51', '198.51.100.52', '198.51.100.53', '198.51.100.54'];
    for (const indicator of indicators) feeds.emulator.script(indicator, 'hang');
    const otx = () => trojan.feedStatus()[0] ?? { inFlight: 0, queued: 0 };
    const arrived = () => indicators.filter((indicator) => feeds.emulator.count('feed_otx', indicator) > 0).length;
    const abort = new AbortController();
    const scouts = Promise.allSettled(indicators.map((i) => trojan.scout(i, { signal: abort.signal })));

    await eventually(() => otx().inFlight + otx().queued === 4 && arrived() === 1, 'one lookup sent, three queued');
    expect(otx()).toMatchObject({ inFlight: 1, queued: 3 });

    trojan.updateConcurrency(4);
    await eventually(() => arrived() === 4, 'the queued lookups to be sent under the new limit');
    expect(otx()).toMatchObject({ inFlight: 4, queued: 0 });
    abort.abort();
    await scouts;
    expect(() => trojan.updateConcurrency(51)).toThrow(/^Configuration invalid: performance\.maxConcurrency/);
  });
});

describe('8 and 8.1 caching', () => {
  it('memory: answers a repeated lookup from the cache, within maxSize items', async () => {
    const trojan = track(
      new ThreatClient({
        sources: ['feed_otx'],
        apiKeys: { feed_otx: feeds.apiKeys.feed_otx },
        caching: { enabled: true, type: 'memory', ttl: 3600000, maxSize: 1000 },
        security: { enforceHttps: false },
        logging: { enabled: false },
      }),
    );
    await trojan.start();
    await trojan.scout('198.51.100.61');
    const again = await trojan.scout('198.51.100.61');
    expect(again.results[0]?.cached).toBe(true);
    expect(feeds.emulator.count('feed_otx', '198.51.100.61')).toBe(1);
  });

  it('enabled: false asks the feed every time', async () => {
    const trojan = track(
      new ThreatClient({
        sources: ['feed_otx'],
        apiKeys: { feed_otx: feeds.apiKeys.feed_otx },
        caching: { enabled: false },
        security: { enforceHttps: false },
        logging: { enabled: false },
      }),
    );
    await trojan.scout('198.51.100.62');
    expect((await trojan.scout('198.51.100.62')).results[0]?.cached).toBe(false);
    expect(feeds.emulator.count('feed_otx', '198.51.100.62')).toBe(2);
  });

  it('file: keeps answers in filesystem.directory, across clients', async () => {
    const directory = await mkdtemp(join(tmpdir(), 'threatlib-interface-cache-'));
    try {
      const config: ThreatConfig = {
        sources: ['feed_otx'],
        apiKeys: { feed_otx: feeds.apiKeys.feed_otx },
        caching: {
          enabled: true,
          type: 'file',
          ttl: 3600000,
          compression: true,
          maxSize: '100MB',
          filesystem: { directory, maxSize: '100MB', cleanupInterval: 3600000 },
        },
        security: { enforceHttps: false },
        logging: { enabled: false },
      };
      const first = track(new ThreatClient(config));
      await first.start();
      await first.scout('198.51.100.63');
      await first.stop();
      expect((await readdir(directory, { recursive: true })).length).toBeGreaterThan(0);

      const second = track(new ThreatClient(config));
      await second.start();
      expect((await second.scout('198.51.100.63')).results[0]?.cached).toBe(true);
      expect(feeds.emulator.count('feed_otx', '198.51.100.63')).toBe(1);
    } finally {
      await rm(directory, { recursive: true, force: true });
    }
  });

  describeWith(['redis'], 'kvserver', () => {
    it('keeps answers in the key-value server under keyPrefix, across clients', async () => {
      const keyPrefix = `${uniqueName('cache')}:`;
      const port = servicePort('redis');
      const config: ThreatConfig = {
        sources: ['feed_otx'],
        apiKeys: { feed_otx: feeds.apiKeys.feed_otx },
        caching: {
          enabled: true,
          type: 'kvserver',
          ttl: 3600000,
          compression: true,
          kvserver: { host: '127.0.0.1', port, db: 0, keyPrefix },
        },
        security: { enforceHttps: false },
        logging: { enabled: false },
      };
      const admin = createClient({ socket: { host: '127.0.0.1', port, reconnectStrategy: false } });
      await admin.connect();
      try {
        const first = track(new ThreatClient(config));
        await first.start();
        await first.scout('198.51.100.64');
        await first.stop();
        expect(await admin.keys(`${keyPrefix}*`)).not.toEqual([]);

        const second = track(new ThreatClient(config));
        await second.start();
        expect((await second.scout('198.51.100.64')).results[0]?.cached).toBe(true);
        expect(feeds.emulator.count('feed_otx', '198.51.100.64')).toBe(1);
      } finally {
        const keys = await admin.keys(`${keyPrefix}*`);
        if (keys.length > 0) await admin.del(keys);
        await admin.close();
      }
    });
  });
});

describe('6.1 events', () => {
  it('calls each handler of the events option when its event happens', async () => {
    const seen = {
      threatFound: [] as { indicator: string; severity: number }[],
      feedError: [] as { message: string; context: unknown; feed: string }[],
      requestComplete: [] as { duration: number; feed: string }[],
      rateLimited: [] as string[],
      cacheEvicted: 0,
    };
    const trojan = track(
      new ThreatClient({
        sources: ['feed_urls', 'feed_otx', 'feed_abuse', 'feed_cti', 'feed_scan'],
        strategy: 'custom',
        thresholds: { confidence: 0.2, consensus: 3, riskScore: 5 },
        apiKeys: feeds.apiKeys,
        performance: { retryAttempts: 0 },
        caching: { enabled: true, type: 'memory', maxSize: 2 },
        security: { enforceHttps: false },
        logging: { enabled: false },
        events: {
          threatFound: async (threat) => {
            seen.threatFound.push({ indicator: threat.indicator, severity: threat.severity });
          },
          feedError: (error, feed) => {
            seen.feedError.push({ message: error.message, context: error.context, feed });
          },
          requestComplete: (duration, feed) => {
            seen.requestComplete.push({ duration, feed });
          },
          rateLimited: (feed) => {
            seen.rateLimited.push(feed);
          },
          cacheEvicted: () => {
            seen.cacheEvicted += 1;
          },
        },
      }),
    );

    await trojan.correlate('198.51.100.23');
    expect(seen.threatFound).toEqual([{ indicator: '198.51.100.23', severity: expect.any(Number) }]);
    expect(seen.requestComplete.map((event) => event.feed).sort()).toEqual([...FEEDS].sort());
    expect(seen.requestComplete.every((event) => typeof event.duration === 'number')).toBe(true);
    // Five answers into a cache of two items.
    expect(seen.cacheEvicted).toBeGreaterThan(0);

    // Section 7.3: an error that mentions 401 is an invalid API key for that feed.
    feeds.emulator.script('198.51.100.71', { behaviour: 'unauthorized', feeds: ['feed_abuse'] });
    await trojan.scout('198.51.100.71');
    expect(seen.feedError).toEqual([
      { message: expect.stringContaining('401'), context: expect.anything(), feed: 'feed_abuse' },
    ]);

    // Section 7.4: a feed's rate limit raises rateLimited(feed).
    feeds.emulator.script('198.51.100.72', { behaviour: 'rate_limited', feeds: ['feed_scan'] });
    await trojan.scout('198.51.100.72');
    expect(seen.rateLimited).toContain('feed_scan');
  });
});

describe('7 errors', () => {
  it('1. an invalid configuration throws "Configuration invalid:" followed by the validation message', () => {
    let error: unknown;
    try {
      new ThreatClient({ sources: ['feed_urls'], performance: { maxConcurrency: 51 }, logging: { enabled: false } });
    } catch (e) {
      error = e;
    }
    expect(ConfigurationError.isInstance(error)).toBe(true);
    expect((error as Error).message).toMatch(/^Configuration invalid: performance\.maxConcurrency: /);
  });

  it('5. warns, and does not throw, in the five documented cases (and when no threat can ever be concluded)', () => {
    // One source under the default strategy (defensive: three must agree) can never conclude a threat, which is a
    // warning of its own (STRATEGY_CANNOT_CONCLUDE, shown below); the five documented cases are read without it.
    const all = (config: ConstructorParameters<typeof ThreatClient>[0]) =>
      track(new ThreatClient({ ...config, logging: { enabled: false } })).warnings.map((w) => [w.code, w.path]);
    const warnings = (config: ConstructorParameters<typeof ThreatClient>[0]) =>
      all(config).filter(([code]) => code !== 'STRATEGY_CANNOT_CONCLUDE');

    expect(all({ sources: ['feed_urls'] })).toEqual([['STRATEGY_CANNOT_CONCLUDE', 'strategy']]);
    expect(all({ sources: ['feed_urls'], strategy: 'aggressive' })).toEqual([]);
    expect(warnings({ sources: ['feed_urls'] })).toEqual([]);
    expect(warnings({ sources: ['feed_urls', 'feed_otx'] })).toEqual([['MISSING_API_KEY', 'apiKeys.feed_otx']]);
    expect(warnings({ sources: ['feed_urls'], performance: { maxConcurrency: 21 } })).toEqual([
      ['HIGH_CONCURRENCY', 'performance.maxConcurrency'],
    ]);
    expect(warnings({ sources: ['feed_urls'], performance: { requestTimeout: 9999 } })).toEqual([
      ['LOW_REQUEST_TIMEOUT', 'performance.requestTimeout'],
    ]);
    expect(warnings({ sources: ['feed_urls'], security: { enforceHttps: false } })).toEqual([
      ['HTTPS_NOT_ENFORCED', 'security.enforceHttps'],
    ]);
    expect(warnings({ sources: ['feed_urls'], security: { autoLock: false } })).toEqual([
      ['AUTO_LOCK_DISABLED', 'security.autoLock'],
    ]);
  });
});

describeWith(['rsyslog'], '8.1 logging', () => {
  let dir: string;
  let collector: Receiver;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'threatlib-interface-logs-'));
    collector = await startReceiver();
  });

  afterAll(async () => {
    await collector?.close();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it('writes to the transports array (file, webhook, syslog) what levels and filters let through', async () => {
    // A domain no other run logs, so that rsyslog's file (which keeps every run's lines) is read for this run only.
    const marker = `${uniqueName('log').replaceAll('.', '-')}.example.com`;
    feeds.emulator.script(marker, 'server_error');
    const trojan = track(
      new ThreatClient({
        sources: ['feed_otx', 'feed_scan'],
        apiKeys: { feed_otx: feeds.apiKeys.feed_otx, feed_scan: feeds.apiKeys.feed_scan },
        performance: { retryAttempts: 0 },
        security: { enforceHttps: false },
        logging: {
          enabled: true,
          level: 'info',
          format: 'json',
          filters: { excludeFeeds: ['feed_otx'], includeOnly: ['feed'] },
          transports: [
            {
              type: 'file',
              filename: join(dir, 'threatlib.log'),
              maxSize: '10MB',
              maxFiles: 5,
              compress: true,
              level: 'debug',
              filter: (line) => line.feed === 'feed_scan',
            },
            { type: 'file', filename: join(dir, 'threatlib-errors.log'), level: 'error' },
            {
              type: 'webhook',
              url: `${collector.url}/logs`,
              headers: { Authorization: 'Bearer log-collector-token' },
              batchSize: 1,
              flushInterval: 100,
            },
            { type: 'syslog', host: '127.0.0.1', port: servicePort('rsyslog'), facility: 'local0', protocol: 'udp' },
          ],
        },
      }),
    );
    await trojan.scout(marker);
    await trojan.stop();

    const lines = (await readFile(join(dir, 'threatlib.log'), 'utf8'))
      .split('\n')
      .filter(Boolean)
      .map((line) => JSON.parse(line) as Record<string, unknown>);
    // The feed_scan failure (a warning); no feed_otx line (excludeFeeds), no configuration warning (includeOnly).
    expect(lines).toEqual([expect.objectContaining({ feed: 'feed_scan', indicator: marker, category: 'feed' })]);
    // level: 'error' on the second file lets no warning through.
    expect(await readFile(join(dir, 'threatlib-errors.log'), 'utf8').catch(() => '')).toBe('');

    await collector.until((requests) => requests.some((r) => r.body.includes(marker)), 'the webhook log batch');
    const batch = collector.requests.find((r) => r.body.includes(marker));
    expect(batch).toMatchObject({ method: 'POST', url: '/logs' });
    expect(batch?.headers.authorization).toBe('Bearer log-collector-token');
    expect(JSON.stringify(JSON.parse(batch?.body ?? ''))).not.toContain('feed_otx');

    await eventually(
      async () => (await readFile(RSYSLOG_MESSAGES, 'utf8').catch(() => '')).includes(marker),
      'rsyslog to write the line',
    );
    const syslog = (await readFile(RSYSLOG_MESSAGES, 'utf8')).split('\n').filter((line) => line.includes(marker));
    // PRI = facility local0 (16) x 8 + warning (4).
    expect(syslog).toEqual([expect.stringMatching(/^<132>1 /)]);
  }, 30_000);

  it.each([
    ['json', (line: string) => expect(JSON.parse(line)).toMatchObject({ level: 40, msg: expect.any(String) })],
    ['text', (line: string) => expect(line).toMatch(/^\d{4}-\d\d-\d\dT\S+ WARN +\[feed\] /)],
    [
      'structured',
      (line: string) =>
        expect(JSON.parse(line)).toMatchObject({ 'log.level': 'warn', '@timestamp': expect.any(String) }),
    ],
  ] as const)('format %s', async (format, check) => {
    const filename = join(dir, `${format}.log`);
    feeds.emulator.script('198.51.100.81', 'server_error');
    const trojan = track(
      new ThreatClient({
        sources: ['feed_otx'],
        apiKeys: { feed_otx: feeds.apiKeys.feed_otx },
        performance: { retryAttempts: 0 },
        security: { enforceHttps: false },
        logging: {
          level: 'warn',
          format,
          filters: { includeOnly: ['feed'] },
          transports: [{ type: 'file', filename }],
        },
      }),
    );
    await trojan.scout('198.51.100.81');
    await trojan.stop();
    const lines = (await readFile(filename, 'utf8')).split('\n').filter(Boolean);
    expect(lines).toHaveLength(1);
    check(lines[0] ?? '');
  });
});
