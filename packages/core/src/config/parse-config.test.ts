import { describe, expect, it } from 'vitest';
import { ConfigurationError } from '../errors/configuration-error.js';
import { mergeConfig } from './merge-config.js';
import { parseConfig } from './parse-config.js';

function errorOf(input: unknown): ConfigurationError {
  try {
    parseConfig(input);
  } catch (error) {
    expect(ConfigurationError.isInstance(error)).toBe(true);
    return error as ConfigurationError;
  }
  throw new Error('expected parseConfig to throw');
}

describe('parseConfig', () => {
  it('requires sources, naming the path', () => {
    const error = errorOf({});
    expect(error.message).toMatch(/^Configuration invalid: sources: required/);
    expect(error.issues).toEqual([{ path: 'sources', message: expect.stringContaining('feed_urls') }]);
  });

  it('refuses maxConcurrency 51 with the path in the message', () => {
    const error = errorOf({ sources: ['feed_urls'], performance: { maxConcurrency: 51 } });
    expect(error.message).toMatch(/^Configuration invalid: performance\.maxConcurrency: .*50/);
  });

  it('fills every documented default', () => {
    const config = parseConfig({ sources: ['feed_urls'] });
    expect(config.strategy).toBe('defensive');
    expect(config.performance).toMatchObject({
      maxConcurrency: 10,
      requestTimeout: 30_000,
      retryAttempts: 3,
      retryDelay: 1000,
      backoffMultiplier: 2,
      circuitBreaker: { failureThreshold: 5, resetTimeout: 60_000, monitoringWindow: 300_000 },
      rateLimit: { enabled: true, perFeed: {} },
    });
    expect(config.security).toMatchObject({
      enforceHttps: true,
      validateCertificates: true,
      autoLock: true,
      lockTimeout: 300_000,
      encryption: { algorithm: 'aes-256-gcm', keyDerivation: 'argon2id', saltSize: 32, tagSize: 16 },
    });
    expect(config.caching).toMatchObject({ enabled: true, type: 'memory', kvserver: { port: 6379 } });
    expect(config.logging).toMatchObject({ enabled: true, level: 'info', format: 'json' });
    // The service-worker module's own defaults (@threatlib/pwa).
    expect(config.pwa).toEqual({
      enabled: true,
      cacheStrategy: 'network-first',
      offlineData: true,
      syncOnReconnect: true,
    });
  });

  it('reports every problem at once, each with its path', () => {
    const error = errorOf({
      sources: ['feed_urls', 'feed_nope'],
      strategy: 'reckless',
      performance: { retryAttempts: 11, circuitBreaker: { resetTimeout: -1 } },
      caching: { type: 'redis' },
    });
    const paths = error.issues.map((i) => i.path);
    expect(paths).toEqual(
      expect.arrayContaining([
        'sources[1]',
        'strategy',
        'performance.retryAttempts',
        'performance.circuitBreaker.resetTimeout',
        'caching.type',
      ]),
    );
    expect(error.message.startsWith('Configuration invalid: ')).toBe(true);
  });

  it('names a misspelt option instead of ignoring it', () => {
    const error = errorOf({ sources: ['feed_urls'], performence: {}, security: { enforceHTTPS: false } });
    expect(error.issues).toEqual(
      expect.arrayContaining([
        { path: 'performence', message: 'unknown option; did you mean performance?' },
        { path: 'security.enforceHTTPS', message: 'unknown option; did you mean security.enforceHttps?' },
      ]),
    );
  });

  it.each([
    [{ sources: [] }, 'sources', /at least one/],
    [{ sources: ['feed_urls', 'feed_urls'] }, 'sources', /twice/],
    [{ sources: 'feed_urls' }, 'sources', /array/],
    [{ sources: ['feed_urls'], strategy: 'custom' }, 'thresholds', /required when strategy is "custom"/],
    [
      { sources: ['feed_urls'], thresholds: { confidence: 0.5, consensus: 2, riskScore: 5 } },
      'thresholds',
      /only used with strategy "custom"/,
    ],
    [
      { sources: ['feed_urls'], strategy: 'custom', thresholds: { confidence: 1.5, consensus: 2, riskScore: 5 } },
      'thresholds.confidence',
      /1/,
    ],
    [
      { sources: ['feed_urls'], strategy: 'custom', thresholds: { confidence: 0.5, consensus: 0, riskScore: 5 } },
      'thresholds.consensus',
      /1/,
    ],
    [
      { sources: ['feed_urls'], strategy: 'custom', thresholds: { confidence: 0.5, consensus: 1, riskScore: 11 } },
      'thresholds.riskScore',
      /10/,
    ],
    [{ sources: ['feed_otx'], apiKeys: { feed_otx: '' } }, 'apiKeys.feed_otx', /./],
    [
      { sources: ['feed_otx'], apiKeys: { feed_otx: { key: '', endpoint: 'https://x.test' } } },
      'apiKeys.feed_otx.key',
      /must not be empty/,
    ],
    [
      { sources: ['feed_otx'], apiKeys: { feed_otx: { key: 'k', endpoint: 'not a url' } } },
      'apiKeys.feed_otx.endpoint',
      /absolute URL/,
    ],
    [{ sources: ['feed_otx'], apiKeys: { feed_otx: { key: 'k', rateLimit: 0 } } }, 'apiKeys.feed_otx.rateLimit', />0/],
    [
      { sources: ['feed_abuse'], apiKeys: { feed_abuse: { key: 'k', categories: [1.5] } } },
      'apiKeys.feed_abuse.categories[0]',
      /expected int, got 1\.5/,
    ],
    [
      { sources: ['feed_urls'], security: { encryption: { algorithm: 'des' } } },
      'security.encryption.algorithm',
      /aes-256-gcm/,
    ],
    [
      { sources: ['feed_urls'], security: { encryption: { keyDerivation: 'md5' } } },
      'security.encryption.keyDerivation',
      /argon2id/,
    ],
    [
      { sources: ['feed_urls'], security: { authentication: { type: 'kerberos' } } },
      'security.authentication.type',
      /basic/,
    ],
    [
      { sources: ['feed_urls'], security: { authentication: { type: 'oauth2', clientId: 'c' } } },
      'security.authentication.tokenEndpoint',
      /token endpoint/,
    ],
    [
      {
        sources: ['feed_urls'],
        security: {
          authentication: { type: 'oauth2', tokenEndpoint: 'https://idp.test/token', clientId: 'c', scopes: 'read' },
        },
      },
      'security.authentication.scopes',
      /array/,
    ],
    [{ sources: ['feed_urls'], performance: { maxConcurrency: 0 } }, 'performance.maxConcurrency', /1/],
    [{ sources: ['feed_urls'], performance: { maxConcurrency: 2.5 } }, 'performance.maxConcurrency', /int/],
    [
      { sources: ['feed_urls'], performance: { rateLimit: { perFeed: { feed_scan: { requestsPerMinute: -4 } } } } },
      'performance.rateLimit.perFeed.feed_scan.requestsPerMinute',
      /0/,
    ],
    [{ sources: ['feed_urls'], caching: { type: 'memory', maxSize: '100MB' } }, 'caching.maxSize', /counts items/],
    [{ sources: ['feed_urls'], caching: { type: 'file', maxSize: 100 } }, 'caching.maxSize', /size string/],
    [{ sources: ['feed_urls'], caching: { filesystem: { maxSize: 'huge' } } }, 'caching.filesystem.maxSize', /100MB/],
    [{ sources: ['feed_urls'], events: { threatFound: 'not a function' } }, 'events.threatFound', /function/],
    [{ sources: ['feed_urls'], events: { onThreat: () => {} } }, 'events.onThreat', /unknown option/],
    [{ sources: ['feed_urls'], browser: { fallbackMode: 'panic' } }, 'browser.fallbackMode', /demo/],
    [{ sources: ['feed_urls'], storage: { type: 'sqlite' } }, 'storage.type', /indexeddb/],
    [{ sources: ['feed_urls'], storage: { version: 1.5 } }, 'storage.version', /int/],
    [{ sources: ['feed_urls'], pwa: { cacheStrategy: 'stale' } }, 'pwa.cacheStrategy', /cache-first/],
    [{ sources: ['feed_urls'], pwa: { offlineData: -1 } }, 'pwa.offlineData', /0 to 100000/],
    [{ sources: ['feed_urls'], pwa: { offlineData: 100_001 } }, 'pwa.offlineData', /0 to 100000/],
    [{ sources: ['feed_urls'], pwa: { enabled: 'yes' } }, 'pwa.enabled', /true or false/],
    [{ sources: ['feed_urls'], pwa: { syncOnReconnect: 1 } }, 'pwa.syncOnReconnect', /true or false/],
    [{ sources: ['feed_urls'], pwa: { sync: true } }, 'pwa.sync', /unknown option/],
    [{ sources: ['feed_urls'], logging: { level: 'verbose' } }, 'logging.level', /debug/],
    [
      { sources: ['feed_urls'], logging: { transports: { syslog: { protocol: 'http' } } } },
      'logging.transports.syslog.protocol',
      /udp/,
    ],
    [{ sources: ['feed_urls'], logging: { transports: { file: {} } } }, 'logging.transports.file.filename', /required/],
    [
      { sources: ['feed_urls'], logging: { transports: [{ type: 'file', filename: 'a.log' }, { type: 'file' }] } },
      'logging.transports[1].filename',
      /required/,
    ],
    [
      { sources: ['feed_urls'], logging: { transports: [{ type: 'kafka' }] } },
      'logging.transports[0].type',
      /"file" \| "webhook" \| "syslog"/,
    ],
    [
      {
        sources: ['feed_urls'],
        logging: {
          transports: [
            { type: 'file', filename: 'a.log' },
            { type: 'file', filename: 'a.log' },
          ],
        },
      },
      'logging.transports[1].filename',
      /transports\[0\] writes this file already/,
    ],
    [
      { sources: ['feed_urls'], enterprise: { siemIntegration: { format: 'xml' } } },
      'enterprise.siemIntegration.format',
      /cef/,
    ],
    [
      { sources: ['feed_urls'], integrations: { messageQueue: { type: 'sqs' } } },
      'integrations.messageQueue.type',
      /rabbitmq/,
    ],
    [{ sources: ['feed_urls'], integrations: { myPlugin: 'yes' } }, 'integrations.myPlugin', /object/],
  ])('refuses %j at %s', (input, path, reason) => {
    const error = errorOf(input);
    const issue = error.issues.find((i) => i.path === path);
    expect(issue, `issues were ${JSON.stringify(error.issues)}`).toBeDefined();
    expect(issue?.message).toMatch(reason);
    expect(error.message).toContain(`${path}: `);
  });

  it('accepts a full configuration using every section', () => {
    const config = parseConfig({
      sources: ['feed_urls', 'feed_otx', 'feed_abuse', 'feed_cti', 'feed_scan'],
      strategy: 'custom',
      thresholds: { confidence: 0.6, consensus: 3, riskScore: 4, correlationWeight: 1.5 },
      apiKeys: {
        feed_otx: 'otx-key',
        feed_abuse: {
          key: 'abuse-key',
          endpoint: 'https://abuse.example/api/v2',
          rateLimit: 10,
          timeout: 5000,
          categories: [14, 18],
        },
        feed_cti: { key: 'cti' },
        feed_scan: 'vt',
      },
      security: {
        enforceHttps: true,
        enableAuditLog: true,
        encryption: { keyDerivation: 'pbkdf2', iterations: 100_000 },
        memoryProtection: { obfuscateKeys: true },
        authentication: {
          type: 'oauth2',
          tokenEndpoint: 'https://idp.example/token',
          clientId: 'threatlib',
          scopes: ['threat-intel:read'],
        },
      },
      performance: {
        maxConcurrency: 20,
        rateLimit: {
          requestsPerSecond: 5,
          burstSize: 10,
          perFeed: { feed_scan: { requestsPerMinute: 4, requestsPerDay: 500 } },
        },
      },
      caching: {
        type: 'file',
        maxSize: '50MB',
        compression: true,
        filesystem: { directory: '/tmp/tl', cleanupInterval: 60_000 },
      },
      events: { threatFound: () => {} },
      // Their defaults, the only values accepted until the browser build lands.
      browser: { fallbackMode: 'error', secureContext: true },
      storage: { type: 'memory', dbName: 'threatlib', version: 1 },
      pwa: { enabled: true, cacheStrategy: 'cache-first', offlineData: 200, syncOnReconnect: false },
      logging: {
        level: 'debug',
        format: 'structured',
        transports: { file: { filename: '/tmp/tl.log', compress: true }, syslog: { protocol: 'tcp' } },
      },
      enterprise: {
        siemIntegration: { enabled: true, endpoint: 'syslog+tls://siem.example:6514', format: 'leef' },
        streamProcessing: { enabled: true, batchSize: 50 },
      },
      integrations: {
        messageQueue: { type: 'kafka', connection: { brokers: ['127.0.0.1:9092'] } },
        myPlugin: { endpoint: 'https://x.example' },
      },
    });
    expect(config.thresholds).toEqual({ confidence: 0.6, consensus: 3, riskScore: 4, correlationWeight: 1.5 });
    expect(config.security.encryption).toMatchObject({ keyDerivation: 'pbkdf2', iterations: 100_000 });
    expect(config.caching.filesystem).toEqual({ directory: '/tmp/tl', maxSize: '100MB', cleanupInterval: 60_000 });
    expect(config.logging.transports).toMatchObject([
      { type: 'file', maxSize: '10MB', maxFiles: 5, compress: true },
      { type: 'syslog', protocol: 'tcp', port: 514 },
    ]);
    expect(config.integrations.myPlugin).toEqual({ endpoint: 'https://x.example' });
    expect(config.enterprise.siemIntegration).toEqual({
      enabled: true,
      endpoint: 'syslog+tls://siem.example:6514',
      format: 'leef',
    });
    expect(config.pwa).toEqual({
      enabled: true,
      cacheStrategy: 'cache-first',
      offlineData: 200,
      syncOnReconnect: false,
    });
  });

  it.each([
    [{ browser: { corsProxy: 'https://proxy.example/', fallbackMode: 'offline', secureContext: false } }],
    [{ storage: { type: 'indexeddb', dbName: 'page', version: 2, encryptionKey: 'k' } }],
  ])('accepts the browser options %j', (extra) => {
    expect(() => parseConfig({ sources: ['feed_urls'], ...extra })).not.toThrow();
  });

  it('refuses something that is not an object', () => {
    expect(errorOf(null).message).toBe('Configuration invalid: (root): expected a configuration object, got null');
    expect(errorOf(['feed_urls']).message).toBe(
      'Configuration invalid: (root): expected a configuration object, got an array',
    );
  });

  // Issue 21, finding 4: a configuration read from JSON can hold these as ordinary keys.
  it.each([
    [
      'apiKeys',
      '{"sources":["feed_otx"],"apiKeys":{"__proto__":{"feed_otx":"key-from-the-prototype"}}}',
      'apiKeys.__proto__',
    ],
    [
      'a section',
      '{"sources":["feed_urls"],"performance":{"__proto__":{"maxConcurrency":51}}}',
      'performance.__proto__',
    ],
    ['the root', '{"__proto__":{"sources":["feed_urls"]}}', '__proto__'],
    [
      'headers',
      '{"sources":["feed_urls"],"logging":{"transports":[{"type":"webhook","url":"https://logs.example.com","headers":{"constructor":"x"}}]}}',
      'logging.transports[0].headers.constructor',
    ],
    [
      'integration options',
      '{"sources":["feed_urls"],"integrations":{"storage":{"type":"mongodb","prototype":{}}}}',
      'integrations.storage.prototype',
    ],
  ])('refuses a __proto__, constructor or prototype key in %s, naming where', (_where, json, path) => {
    const error = errorOf(JSON.parse(json));
    expect(error.issues).toEqual([{ path, message: expect.stringContaining('is not an option') }]);
  });
});

describe('mergeConfig', () => {
  it('refuses a layer with a prototype key instead of merging it into a prototype', () => {
    expect(() => mergeConfig({ sources: ['feed_urls'] }, JSON.parse('{"performance":{"__proto__":{"x":1}}}'))).toThrow(
      'Configuration invalid: performance.__proto__: "__proto__" is not an option',
    );
    expect(() => mergeConfig(JSON.parse('{"constructor":{"prototype":{"polluted":true}}}'))).toThrow(
      ConfigurationError,
    );
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });
});
