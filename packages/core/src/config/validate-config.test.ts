import { describe, expect, it } from 'vitest';
import { ThreatClient } from '../client/threat-client.js';
import type { Logger } from '../logging/logger.js';
import type { ThreatConfig } from './schema.js';
import { validateConfig } from './validate-config.js';

const quiet: ThreatConfig = { sources: ['feed_urls'] };

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
    expect(validateConfig({ sources: ['feed_urls', 'feed_otx'], apiKeys: { feed_otx: 'k' } })).toEqual([]);
    expect(validateConfig({ ...quiet, performance: { maxConcurrency: 20, requestTimeout: 10_000 } })).toEqual([]);
  });

  it.each([
    [{ sources: ['feed_urls', 'feed_scan'] }, 'MISSING_API_KEY', 'apiKeys.feed_scan'],
    [
      { sources: ['feed_scan'], apiKeys: { feed_scan: { endpoint: 'https://vt.mirror.example' } } },
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
    const warnings = validateConfig({ sources: ['feed_urls', 'feed_otx', 'feed_abuse', 'feed_cti', 'feed_scan'] });
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
      { sources: ['feed_urls', 'feed_cti'], security: { autoLock: false } },
      { env: false, logger },
    );
    expect(client.warnings.map((w) => w.code)).toEqual(['MISSING_API_KEY', 'AUTO_LOCK_DISABLED']);
    const warned = lines.filter((l) => l.level === 'warn');
    expect(warned.map((l) => (l.obj as { code: string }).code)).toEqual(['MISSING_API_KEY', 'AUTO_LOCK_DISABLED']);
    expect(warned[0]?.msg).toContain('feed_cti');
  });

  it('warns about what the environment turned off', () => {
    const client = new ThreatClient(quiet, {
      env: { THREATLIB_AUTO_LOCK: 'false' },
      logger: recordingLogger().logger,
    });
    expect(client.warnings.map((w) => w.code)).toEqual(['AUTO_LOCK_DISABLED']);
  });
});
