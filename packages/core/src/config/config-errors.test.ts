// What a user meets when a configuration is wrong, or merely incomplete (issue 22, points 3 and 8): an unset key
// variable is a feed without a key, every error says what it got (never a secret's value), a malformed environment
// variable the constructor overrides is a warning, an unknown option names the one meant, and the address form of
// e-mail alerts is taken.
import { describe, expect, it } from 'vitest';
import { configWithSecrets, ThreatClient } from '../client/threat-client.js';
import { ConfigurationError } from '../errors/configuration-error.js';
import { silentLogger } from '../logging/logger.js';
import { parseConfig } from './parse-config.js';
import type { ThreatConfig } from './schema.js';

function errorOf(make: () => unknown): ConfigurationError {
  try {
    make();
  } catch (error) {
    expect(ConfigurationError.isInstance(error)).toBe(true);
    return error as ConfigurationError;
  }
  throw new Error('expected a ConfigurationError');
}

const refused = (input: unknown) => errorOf(() => parseConfig(input));
const client = (config: ThreatConfig, env: Record<string, string> = {}) =>
  new ThreatClient(config, { env, logger: silentLogger });

describe('an API key that is undefined (the README example with OTX_KEY unset)', () => {
  it('is a feed without a key: the client is made, with the documented MISSING_API_KEY warning', async () => {
    const made = client({ sources: ['feed_otx'], strategy: 'aggressive', apiKeys: { feed_otx: undefined } });
    expect(made.config.apiKeys).toEqual({});
    // With no key, no source is left to answer: the strategy warning says so beside the missing key.
    expect(made.warnings.map((w) => [w.code, w.path])).toEqual([
      ['MISSING_API_KEY', 'apiKeys.feed_otx'],
      ['STRATEGY_CANNOT_CONCLUDE', 'strategy'],
    ]);
    const otx = made.feedStatus().find((s) => s.feed === 'feed_otx');
    expect(otx?.configured).toBe(false);
    // Asked, it answers not_configured without a request.
    const scout = await made.scout('198.51.100.7');
    expect(scout.results.find((r) => r.feed === 'feed_otx')?.status).toBe('not_configured');
    await made.stop();
  });

  it('lets the key variable fill it', () => {
    const made = client(
      { sources: ['feed_otx'], strategy: 'aggressive', apiKeys: { feed_otx: undefined } },
      { THREATLIB_FEED_OTX_API_KEY: 'from-the-environment' },
    );
    expect(configWithSecrets(made).apiKeys).toEqual({ feed_otx: 'from-the-environment' });
    // client.config shows it redacted.
    expect(made.config.apiKeys).toEqual({ feed_otx: '[redacted]' });
    expect(made.warnings).toEqual([]);
  });

  it('is skipped by createVault as well', async () => {
    const { client: made, vault } = await ThreatClient.createVault(
      'a vault password',
      { feed_otx: undefined, feed_abuse: 'abuse-key' },
      { keyDerivation: 'pbkdf2', iterations: 1000, clientOptions: { env: false, logger: silentLogger } },
    );
    expect(vault.keys()).toEqual(['feed_abuse']);
    expect(made.config.sources).toEqual(['feed_abuse']);
    await made.stop();
  });
});

describe('every configuration error says what it got', () => {
  it.each<[string, unknown, string]>([
    [
      'a required option left out',
      {},
      'sources: required: list the feeds to ask, from feed_urls, feed_otx, feed_abuse, feed_cti, feed_scan, got undefined',
    ],
    [
      'a number over its bound',
      { sources: ['feed_urls'], performance: { maxConcurrency: 51 } },
      'performance.maxConcurrency: Too big: expected number to be <=50, got 51',
    ],
    [
      'a string where a number goes',
      { sources: ['feed_urls'], performance: { requestTimeout: '30s' } },
      'performance.requestTimeout: Invalid input: expected number, got "30s"',
    ],
    [
      'a value outside an enum',
      { sources: ['feed_urls'], strategy: 'yolo' },
      'strategy: Invalid option: expected one of "defensive"|"balanced"|"aggressive"|"custom", got "yolo"',
    ],
    ['a list where a string goes', { sources: 'feed_urls' }, 'sources: expected an array of feed ids, got "feed_urls"'],
    [
      'an option our own refinement refuses',
      { sources: ['feed_urls'], caching: { maxSize: '100MB' } },
      'caching.maxSize: the memory cache counts items: expected a whole number, not a size string, got "100MB"',
    ],
    [
      'a URL that is not one',
      { sources: ['feed_otx'], apiKeys: { feed_otx: { key: 'k', endpoint: 'mirror' } } },
      'apiKeys.feed_otx.endpoint: expected an absolute URL, got "mirror"',
    ],
    ['the root', null, '(root): expected a configuration object, got null'],
  ])('%s', (_name, input, message) => {
    expect(refused(input).message).toBe(`Configuration invalid: ${message}`);
  });

  it('shows a secret by its kind and length only, never its value', () => {
    const secret = 'header-secret-do-not-print';
    const error = refused({
      sources: ['feed_otx'],
      apiKeys: { feed_otx: 12345, feed_scan: '' },
      caching: { kvserver: { password: 987654 } },
      logging: {
        transports: [
          { type: 'webhook', url: 'https://logs.example', headers: { 'x-token': 31337 } },
          { type: 'webhook', url: 'https://logs.example', headers: { 'x-secret': `${secret}\r\n` } },
        ],
      },
    });
    expect(error.issues).toEqual(
      expect.arrayContaining([
        { path: 'apiKeys.feed_otx', message: expect.stringMatching(/, got a number$/) },
        { path: 'apiKeys.feed_scan', message: 'must not be empty, got an empty string' },
        {
          path: 'logging.transports[1].headers.x-secret',
          message: expect.stringMatching(/, got a string of 28 characters \(not shown\)$/),
        },
        { path: 'caching.kvserver.password', message: 'Invalid input: expected string, got a number' },
        { path: 'logging.transports[0].headers.x-token', message: 'Invalid input: expected string, got a number' },
      ]),
    );
    for (const value of [secret, '12345', '987654', '31337']) expect(error.message).not.toContain(value);
  });

  it('scrubs credentials from a quoted URL', () => {
    const error = refused({ sources: ['feed_urls'], browser: { corsProxy: 'https://user:hunter2@proxy.example' } });
    expect(error.message).toContain('got "https://user:[redacted]@proxy.example"');
    expect(error.message).not.toContain('hunter2');
  });

  it('names the form of a union the value is of, with its own path', () => {
    const error = refused({
      sources: ['feed_urls'],
      enterprise: { monitoring: { alerts: { email: { from: 'a@example.com', to: 'soc@example.com' } } } },
    });
    expect(error.issues).toEqual([
      {
        path: 'enterprise.monitoring.alerts.email.to',
        message: 'Invalid input: expected array, got "soc@example.com"',
      },
      { path: 'enterprise.monitoring.alerts.email.smtp', message: 'Invalid input: expected object, got undefined' },
    ]);
  });
});

describe('a malformed environment variable the constructor overrides', () => {
  it.each([
    ['THREATLIB_MAX_CONCURRENCY', 'abc', { performance: { maxConcurrency: 5 } }, 'performance.maxConcurrency'],
    ['THREATLIB_STRATEGY', 'yolo', { strategy: 'balanced' as const }, 'strategy'],
    ['THREATLIB_LOCK_TIMEOUT', '5m', { security: { lockTimeout: 60_000 } }, 'security.lockTimeout'],
  ])(
    '%s=%s is a warning when the constructor sets the option, and fatal when it does not',
    (name, value, over, option) => {
      const made = client({ sources: ['feed_urls'], ...over }, { [name]: value });
      expect(made.warnings).toEqual(
        expect.arrayContaining([
          {
            code: 'ENV_VARIABLE_IGNORED',
            path: name,
            message: expect.stringMatching(
              new RegExp(
                `^${name}: .*got .*${value}.*; not used, since the configuration given to the constructor sets ${option.replace('.', '\\.')}$`,
              ),
            ),
          },
        ]),
      );
      const error = errorOf(() => client({ sources: ['feed_urls'] }, { [name]: value }));
      expect(error.issues).toEqual([{ path: name, message: expect.stringContaining(value) }]);
    },
  );

  it('runs the INTERFACE 8.2 way: the environment read with a fallback and passed to the constructor', () => {
    const env = { THREATLIB_MAX_CONCURRENCY: 'abc' };
    const maxConcurrency = Number.parseInt(env.THREATLIB_MAX_CONCURRENCY, 10) || 5;
    const made = client({ sources: ['feed_urls'], performance: { maxConcurrency } }, env);
    expect(made.concurrency).toBe(5);
  });
});

describe('an unknown option names the one meant', () => {
  it.each([
    [
      { performance: { rateLimit: { feed_otx: { requestsPerHour: 100 } } } },
      'performance.rateLimit.feed_otx',
      'performance.rateLimit.perFeed.feed_otx',
    ],
    [{ performence: {} }, 'performence', 'performance'],
    [{ security: { enforceHTTPS: false } }, 'security.enforceHTTPS', 'security.enforceHttps'],
    [{ performance: { max_concurrency: 4 } }, 'performance.max_concurrency', 'performance.maxConcurrency'],
    [{ lockTimeout: 60_000 }, 'lockTimeout', 'security.lockTimeout'],
    [{ caching: { kvserver: { hots: 'redis' } } }, 'caching.kvserver.hots', 'caching.kvserver.host'],
  ])('%j', (fragment, path, meant) => {
    const error = refused({ sources: ['feed_urls'], ...fragment });
    expect(error.issues).toEqual([{ path, message: `unknown option; did you mean ${meant}?` }]);
    expect(error.message).toMatch(/^Configuration invalid: /);
  });

  it('says only "unknown option" when nothing is close', () => {
    expect(refused({ sources: ['feed_urls'], frobnicate: true }).issues).toEqual([
      { path: 'frobnicate', message: 'unknown option' },
    ]);
  });
});

describe('enterprise.monitoring.alerts.email as an address', () => {
  it('is taken: alerts go to it, from it, through the local mail relay', () => {
    const config = parseConfig({
      sources: ['feed_urls'],
      enterprise: { monitoring: { alerts: { email: 'soc@example.com' } } },
    });
    expect(config.enterprise.monitoring.alerts.email).toEqual({
      from: 'soc@example.com',
      to: ['soc@example.com'],
      smtp: { host: 'localhost', port: 25, secure: false },
    });
  });

  it('is validated as an e-mail address', () => {
    expect(
      refused({ sources: ['feed_urls'], enterprise: { monitoring: { alerts: { email: 'soc at example' } } } }).issues,
    ).toEqual([
      {
        path: 'enterprise.monitoring.alerts.email',
        message: 'expected an e-mail address, or an object {from, to, smtp}, got "soc at example"',
      },
    ]);
  });

  it('keeps the object form', () => {
    const email = {
      from: 'threatlib@example.com',
      to: ['soc@example.com'],
      smtp: { host: 'smtp.example.com', port: 587, secure: false, user: 'u', password: 'p' },
    };
    const config = parseConfig({ sources: ['feed_urls'], enterprise: { monitoring: { alerts: { email } } } });
    expect(config.enterprise.monitoring.alerts.email).toEqual(email);
  });
});
