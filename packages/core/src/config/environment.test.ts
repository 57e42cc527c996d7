import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { configWithSecrets, ThreatClient } from '../client/threat-client.js';
import { ConfigurationError } from '../errors/configuration-error.js';
import { silentLogger } from '../logging/logger.js';
import { configFromEnvironment } from './environment.js';
import { loadConfig } from './load-config.js';

function configDir(source: string): string {
  const dir = mkdtempSync(join(tmpdir(), 'threatlib-config-'));
  writeFileSync(join(dir, 'threatlib.config.js'), source);
  return dir;
}

const profiles = `export default {
  development: {
    sources: ['feed_urls'],
    strategy: 'balanced',
    performance: { maxConcurrency: 4, requestTimeout: 15000 },
    security: { lockTimeout: 1000 },
    apiKeys: { feed_otx: { key: 'file-otx', endpoint: 'https://otx.mirror.example/api/v1', timeout: 5000 } },
  },
  production: { sources: ['feed_urls', 'feed_otx'], apiKeys: { feed_otx: 'prod-otx' } },
  broken: { sources: ['feed_urls'], performance: { maxConcurrency: 99 } },
};`;

function thrown(fn: () => unknown): ConfigurationError {
  try {
    fn();
  } catch (error) {
    if (ConfigurationError.isInstance(error)) return error;
    throw error;
  }
  throw new Error('expected a ConfigurationError');
}

async function rejected(promise: Promise<unknown>): Promise<ConfigurationError> {
  try {
    await promise;
  } catch (error) {
    if (ConfigurationError.isInstance(error)) return error;
    throw error;
  }
  throw new Error('expected a ConfigurationError');
}

describe('loadConfig: the profile named', () => {
  it.each(['__proto__', 'constructor', 'toString'])(
    "%s is not a profile: only the file's own profiles are",
    async (name) => {
      const error = await loadConfig({ cwd: configDir(profiles), profile: name, env: {} }).catch((e: unknown) => e);
      expect(ConfigurationError.isInstance(error)).toBe(true);
      expect((error as Error).message).toContain(
        `profile "${name}": profile option names a profile the file does not have`,
      );
    },
  );
});

describe('environment variables', () => {
  it('reads every documented variable', () => {
    expect(
      configFromEnvironment({
        THREATLIB_STRATEGY: 'aggressive',
        THREATLIB_MAX_CONCURRENCY: '7',
        THREATLIB_AUTO_LOCK: 'true',
        THREATLIB_LOCK_TIMEOUT: '60000',
        THREATLIB_FEED_URLS_API_KEY: 'u',
        THREATLIB_FEED_OTX_API_KEY: 'o',
        THREATLIB_FEED_ABUSE_API_KEY: 'a',
        THREATLIB_FEED_CTI_API_KEY: 'c',
        THREATLIB_FEED_SCAN_API_KEY: 's',
        UNRELATED: 'x',
      }),
    ).toEqual({
      strategy: 'aggressive',
      performance: { maxConcurrency: 7 },
      security: { autoLock: true, lockTimeout: 60_000 },
      apiKeys: { feed_urls: 'u', feed_otx: 'o', feed_abuse: 'a', feed_cti: 'c', feed_scan: 's' },
    });
  });

  it.each(['false', 'TRUE', 'True', 'yes', '1', 'on'])('THREATLIB_AUTO_LOCK=%s turns auto-lock off', (value) => {
    expect(configFromEnvironment({ THREATLIB_AUTO_LOCK: value })).toEqual({ security: { autoLock: false } });
  });

  it('treats empty variables as unset', () => {
    expect(configFromEnvironment({ THREATLIB_MAX_CONCURRENCY: '', THREATLIB_FEED_OTX_API_KEY: ' ' })).toEqual({});
  });

  it.each([
    ['THREATLIB_MAX_CONCURRENCY', 'abc', /THREATLIB_MAX_CONCURRENCY: expected a whole number, got "abc"/],
    ['THREATLIB_MAX_CONCURRENCY', '2.5', /THREATLIB_MAX_CONCURRENCY: expected a whole number/],
    ['THREATLIB_MAX_CONCURRENCY', '0', /THREATLIB_MAX_CONCURRENCY: must be between 1 and 50, got 0/],
    ['THREATLIB_MAX_CONCURRENCY', '51', /THREATLIB_MAX_CONCURRENCY: must be between 1 and 50, got 51/],
    ['THREATLIB_LOCK_TIMEOUT', '5m', /THREATLIB_LOCK_TIMEOUT: expected a whole number of milliseconds/],
    ['THREATLIB_LOCK_TIMEOUT', '-1', /THREATLIB_LOCK_TIMEOUT: expected a whole number of milliseconds/],
    ['THREATLIB_STRATEGY', 'yolo', /THREATLIB_STRATEGY: expected one of defensive, balanced, aggressive, custom/],
  ])('%s=%s is refused naming the variable', (name, value, message) => {
    const error = thrown(
      () => new ThreatClient({ sources: ['feed_urls'] }, { env: { [name]: value }, logger: silentLogger }),
    );
    expect(error.message).toMatch(/^Configuration invalid: /);
    expect(error.message).toMatch(message);
  });

  it('reports every malformed variable at once', () => {
    const error = thrown(() => configFromEnvironment({ THREATLIB_MAX_CONCURRENCY: 'x', THREATLIB_LOCK_TIMEOUT: 'y' }));
    expect(error.issues.map((i) => i.path)).toEqual(['THREATLIB_MAX_CONCURRENCY', 'THREATLIB_LOCK_TIMEOUT']);
  });

  it('keeps the rest of an object apiKeys entry when only the key comes from the environment', () => {
    const layer = configFromEnvironment(
      { THREATLIB_FEED_OTX_API_KEY: 'env-otx' },
      { apiKeys: { feed_otx: { key: 'file-otx', endpoint: 'https://mirror.example', timeout: 5 } } },
    );
    expect(layer.apiKeys).toEqual({ feed_otx: { key: 'env-otx', endpoint: 'https://mirror.example', timeout: 5 } });
  });
});

describe('THREATLIB_OAUTH2_CLIENT_SECRET', () => {
  const oauth2 = { type: 'oauth2', tokenEndpoint: 'https://idp.example/token', clientId: 'threatlib' } as const;
  const env = { THREATLIB_OAUTH2_CLIENT_SECRET: 'from-the-environment' };

  it('fills the oauth2 clientSecret the configuration leaves out, and yields to one it gives', () => {
    const client = (authentication: object) =>
      new ThreatClient({ sources: ['feed_urls'], security: { authentication } } as never, {
        env,
        logger: silentLogger,
      });
    expect(configWithSecrets(client(oauth2)).security.authentication).toMatchObject({
      clientSecret: 'from-the-environment',
    });
    expect(configWithSecrets(client({ ...oauth2, clientSecret: 'given' })).security.authentication).toMatchObject({
      clientSecret: 'given',
    });
  });

  it('configures nothing on its own, nor under another authentication type', () => {
    expect(configFromEnvironment(env, { sources: ['feed_urls'] })).toEqual({});
    expect(
      configFromEnvironment(env, {
        sources: ['feed_urls'],
        security: { authentication: { type: 'jwt', secret: 'x' } },
      }),
    ).toEqual({});
  });
});

describe('precedence: defaults < file profile < environment < constructor', () => {
  it('uses the file profile over the defaults', async () => {
    const config = await loadConfig({ cwd: configDir(profiles), profile: 'development', env: {} });
    const client = new ThreatClient(config, { env: {}, logger: silentLogger });
    expect(client.config.strategy).toBe('balanced');
    expect(client.config.performance.maxConcurrency).toBe(4);
    expect(client.config.performance.retryAttempts).toBe(3);
  });

  it('lets the environment override the file profile', async () => {
    const env = {
      THREATLIB_MAX_CONCURRENCY: '8',
      THREATLIB_FEED_OTX_API_KEY: 'env-otx',
      THREATLIB_LOCK_TIMEOUT: '2000',
    };
    const config = await loadConfig({ cwd: configDir(profiles), profile: 'development', env });
    const client = new ThreatClient(config, { env, logger: silentLogger });
    expect(client.config.performance.maxConcurrency).toBe(8);
    expect(client.config.performance.requestTimeout).toBe(15_000);
    expect(client.config.security.lockTimeout).toBe(2000);
    expect(configWithSecrets(client).apiKeys.feed_otx).toEqual({
      key: 'env-otx',
      endpoint: 'https://otx.mirror.example/api/v1',
      timeout: 5000,
    });
  });

  it('lets the constructor override the environment and the file', async () => {
    const env = { THREATLIB_MAX_CONCURRENCY: '8', THREATLIB_STRATEGY: 'aggressive' };
    const config = await loadConfig({ cwd: configDir(profiles), profile: 'development', env });
    const client = new ThreatClient(
      { ...config, strategy: 'defensive', performance: { ...config.performance, maxConcurrency: 2 } },
      { env, logger: silentLogger },
    );
    expect(client.config.performance.maxConcurrency).toBe(2);
    expect(client.config.strategy).toBe('defensive');
  });

  it('lets the environment fill what the constructor leaves out', () => {
    const client = new ThreatClient(
      { sources: ['feed_urls', 'feed_abuse'], apiKeys: { feed_urls: 'ctor-urls' }, strategy: 'balanced' },
      {
        env: { THREATLIB_FEED_ABUSE_API_KEY: 'env-abuse', THREATLIB_FEED_URLS_API_KEY: 'env-urls' },
        logger: silentLogger,
      },
    );
    expect(configWithSecrets(client).apiKeys).toEqual({ feed_urls: 'ctor-urls', feed_abuse: 'env-abuse' });
    expect(client.warnings).toEqual([]);
  });

  it('picks the profile from THREATLIB_PROFILE', async () => {
    const config = await loadConfig({ cwd: configDir(profiles), env: { THREATLIB_PROFILE: 'production' } });
    expect(config.sources).toEqual(['feed_urls', 'feed_otx']);
  });

  it('prefers the profile option over THREATLIB_PROFILE', async () => {
    const config = await loadConfig({
      cwd: configDir(profiles),
      profile: 'development',
      env: { THREATLIB_PROFILE: 'production' },
    });
    expect(config.strategy).toBe('balanced');
  });

  it('makes a client straight from the file', async () => {
    const client = await ThreatClient.fromConfigFile(
      { cwd: configDir(profiles), profile: 'production' },
      { env: {}, logger: silentLogger },
    );
    expect(configWithSecrets(client).apiKeys).toEqual({ feed_otx: 'prod-otx' });
  });

  it('names the profile and the available ones when the profile is missing', async () => {
    const error = await rejected(loadConfig({ cwd: configDir(profiles), profile: 'staging', env: {} }));
    expect(error.message).toMatch(/profile "staging"/);
    expect(error.message).toMatch(/development, production, broken/);
  });

  it('says no profile was chosen when neither option nor variable names one', async () => {
    const error = await rejected(loadConfig({ cwd: configDir(profiles), env: {} }));
    expect(error.message).toMatch(/no profile chosen/);
  });

  it('names the path and profile of an invalid profile', async () => {
    const error = await rejected(loadConfig({ cwd: configDir(profiles), profile: 'broken', env: {} }));
    expect(error.message).toMatch(/^Configuration invalid: performance\.maxConcurrency \(profile "broken"\): /);
  });

  it('names a malformed variable even when the file is fine', async () => {
    const error = await rejected(
      loadConfig({ cwd: configDir(profiles), profile: 'production', env: { THREATLIB_MAX_CONCURRENCY: 'abc' } }),
    );
    expect(error.message).toMatch(/THREATLIB_MAX_CONCURRENCY: expected a whole number, got "abc"/);
  });

  it('says where it looked when there is no config file', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'threatlib-empty-'));
    const error = await rejected(loadConfig({ cwd: dir, profile: 'development', env: {} }));
    expect(error.message).toContain(`threatlib.config.js or threatlib.config.mjs in ${dir}`);
  });

  it('refuses a file whose default export is not an object of profiles', async () => {
    const error = await rejected(loadConfig({ cwd: configDir('export default 42;'), profile: 'x', env: {} }));
    expect(error.message).toMatch(/expected a default export: an object keyed by profile name/);
  });

  it('reports a file that does not load, with the reason', async () => {
    const error = await rejected(loadConfig({ cwd: configDir('export default {'), profile: 'x', env: {} }));
    expect(error.message).toMatch(/could not be loaded/);
  });
});
