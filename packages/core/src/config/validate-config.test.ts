import { describe, expect, it } from 'vitest';
import { ThreatClient } from '../client/threat-client.js';
import type { Logger } from '../logging/logger.js';
import type { ThreatConfig } from './schema.js';
import { validateConfig } from './validate-config.js';

// One source: only a strategy that needs one agreeing source can conclude a threat with it.
const quiet: ThreatConfig = { sources: ['feed_urls'], strategy: 'aggressive' };

function recordingLogger() {
  const lines: Array<{ level: string; obj: object; msg?: string }> = [];
  const at =
    (level: string) =>
    (obj: object, msg?: string): void => {
      lines.push({ level, obj, ...(msg === undefined ? {} : { msg }) });
    };
  const logger: Logger = { debug: at('debug'), info: at('info'), warn: at('warn'), error: at('error') };
  return { logger, lines };
}

describe('validateConfig', () => {
  it('has nothing to say about a configuration that needs no warning', () => {
    expect(validateConfig(quiet)).toEqual([]);
    expect(
      validateConfig({ sources: ['feed_urls', 'feed_otx'], apiKeys: { feed_otx: 'k' }, strategy: 'balanced' }),
    ).toEqual([]);
    expect(validateConfig({ ...quiet, performance: { maxConcurrency: 20, requestTimeout: 10_000 } })).toEqual([]);
  });

  it.each([
    [{ sources: ['feed_urls', 'feed_scan'], strategy: 'aggressive' }, 'MISSING_API_KEY', 'apiKeys.feed_scan'],
    [
      {
        sources: ['feed_scan'],
        apiKeys: { feed_scan: { endpoint: 'https://vt.mirror.example' } },
        lists: [{ name: 'l', file: 'l.txt' }],
        strategy: 'aggressive',
      },
      'MISSING_API_KEY',
      'apiKeys.feed_scan',
    ],
    [{ ...quiet, performance: { maxConcurrency: 21 } }, 'HIGH_CONCURRENCY', 'performance.maxConcurrency'],
    [{ ...quiet, performance: { requestTimeout: 9999 } }, 'LOW_REQUEST_TIMEOUT', 'performance.requestTimeout'],
    [{ ...quiet, security: { enforceHttps: false } }, 'HTTPS_NOT_ENFORCED', 'security.enforceHttps'],
    [{ ...quiet, security: { autoLock: false } }, 'AUTO_LOCK_DISABLED', 'security.autoLock'],
  ] as Array<[ThreatConfig, string, string]>)('%j yields exactly %s', (config, code, path) => {
    const warnings = validateConfig(config);
    expect(warnings).toEqual([{ code, path, message: expect.any(String) }]);
  });

  it('warns once per keyless feed, and never for feed_urls, which needs no key', () => {
    const warnings = validateConfig({
      sources: ['feed_urls', 'feed_otx', 'feed_abuse', 'feed_cti', 'feed_scan'],
      strategy: 'aggressive',
    });
    expect(warnings.map((w) => w.path)).toEqual([
      'apiKeys.feed_otx',
      'apiKeys.feed_abuse',
      'apiKeys.feed_cti',
      'apiKeys.feed_scan',
    ]);
  });

  it('never throws, even on input the schema refuses', () => {
    expect(() => validateConfig({ sources: 'x', performance: null } as never)).not.toThrow();
    expect(validateConfig(null as never)).toEqual([]);
  });

  it('sends each warning to the logger when a client is made, and keeps them on the client', () => {
    const { logger, lines } = recordingLogger();
    const client = new ThreatClient(
      { sources: ['feed_urls', 'feed_cti'], strategy: 'aggressive', security: { autoLock: false } },
      { env: false, logger },
    );
    expect(client.warnings.map((w) => w.code)).toEqual(['MISSING_API_KEY', 'AUTO_LOCK_DISABLED']);
    const warned = lines.filter((l) => l.level === 'warn');
    expect(warned.map((l) => (l.obj as { code: string }).code)).toEqual(['MISSING_API_KEY', 'AUTO_LOCK_DISABLED']);
    expect(warned[0]?.msg).toContain('feed_cti');
  });

  describe('STRATEGY_CANNOT_CONCLUDE: the consensus is larger than the sources and lists that can answer', () => {
    it('the default strategy (defensive: 3 must agree) with one feed and a list', () => {
      const warnings = validateConfig({ sources: ['feed_urls'], lists: [{ name: 'example', file: 'x.txt' }] });
      expect(warnings).toEqual([
        {
          code: 'STRATEGY_CANNOT_CONCLUDE',
          path: 'strategy',
          message:
            'strategy "defensive" concludes a threat only when 3 sources agree, but only 2 can answer (feed_urls, list:example): no indicator can ever be a threat. Configure keys for more feeds, add lists, or choose a strategy needing fewer (aggressive: 1, balanced: 2; custom thresholds.consensus); defensive is the default. Feeds added with registerFeed count too.',
        },
      ]);
    });

    it('a feed without its key cannot answer; one with a key (in apiKeys, or the vault) can', () => {
      const config = { sources: ['feed_urls', 'feed_otx'], strategy: 'balanced' } as ThreatConfig;
      expect(validateConfig(config).map((w) => w.code)).toEqual(['MISSING_API_KEY', 'STRATEGY_CANNOT_CONCLUDE']);
      expect(validateConfig({ ...config, apiKeys: { feed_otx: 'k' } })).toEqual([]);
      expect(validateConfig(config, { hasKey: (feed) => feed === 'feed_otx' })).toEqual([]);
    });

    it('custom thresholds: named by thresholds.consensus', () => {
      const warnings = validateConfig({
        sources: ['feed_urls'],
        strategy: 'custom',
        thresholds: { confidence: 0.5, consensus: 2, riskScore: 5 },
      });
      expect(warnings).toEqual([
        {
          code: 'STRATEGY_CANNOT_CONCLUDE',
          path: 'thresholds.consensus',
          message: expect.stringMatching(
            /^strategy "custom" concludes a threat only when 2 sources agree, but only 1 can answer \(feed_urls\)/,
          ),
        },
      ]);
    });

    it('the client logs it at construction, counting the keys its vault holds', async () => {
      const { logger, lines } = recordingLogger();
      const client = new ThreatClient({ sources: ['feed_urls'] }, { env: false, logger });
      expect(client.warnings.map((w) => w.code)).toEqual(['STRATEGY_CANNOT_CONCLUDE']);
      expect(lines.filter((l) => l.level === 'warn').map((l) => l.msg)).toEqual([
        expect.stringMatching(/^strategy "defensive" concludes a threat only when 3 sources agree/),
      ]);
      const { client: vaulted } = await ThreatClient.createVault(
        'pw-strategy-warning-8e1d',
        { feed_otx: 'otx-key', feed_cti: 'cti-key' },
        {
          config: { sources: ['feed_urls', 'feed_otx', 'feed_cti'] },
          clientOptions: { env: false, logger: recordingLogger().logger },
          keyDerivation: 'pbkdf2',
          iterations: 1000,
        },
      );
      expect(vaulted.warnings).toEqual([]);
      await vaulted.stop();
    });
  });

  it('warns about what the environment turned off', () => {
    const client = new ThreatClient(quiet, {
      env: { THREATLIB_AUTO_LOCK: 'false' },
      logger: recordingLogger().logger,
    });
    expect(client.warnings.map((w) => w.code)).toEqual(['AUTO_LOCK_DISABLED']);
  });
});
