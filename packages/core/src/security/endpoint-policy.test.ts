import { describe, expect, it } from 'vitest';
import type { Alert } from '../alerts/alert.js';
import { ThreatClient } from '../client/threat-client.js';
import { ConfigurationError } from '../errors/configuration-error.js';
import { InsecureEndpointError } from '../errors/insecure-endpoint-error.js';
import type { Feed } from '../feeds/feed.js';
import { answer } from '../feeds/feed-response.js';
import type { IntegrationContext } from '../integration/integration.js';
import type { Logger } from '../logging/logger.js';
import { silentLogger } from '../logging/logger.js';
import { checkEndpoint } from './endpoint-policy.js';

function recordingLogger() {
  const lines: Array<{ level: string; obj: Record<string, unknown>; msg?: string }> = [];
  const at = (level: string) => (obj: object, msg?: string) => {
    lines.push({ level, obj: obj as Record<string, unknown>, ...(msg === undefined ? {} : { msg }) });
  };
  const logger: Logger = { debug: at('debug'), info: at('info'), warn: at('warn'), error: at('error') };
  return { logger, lines };
}

function caught(fn: () => unknown): unknown {
  try {
    fn();
  } catch (error) {
    return error;
  }
  throw new Error('expected a throw');
}

describe('checkEndpoint', () => {
  it('refuses plain HTTP while enforceHttps is on, naming the endpoint without its credentials or query', () => {
    const error = caught(() =>
      checkEndpoint('http://user:secret@siem.example:8080/ingest?token=abc', 'siem endpoint', { enforceHttps: true }),
    );
    expect(InsecureEndpointError.isInstance(error)).toBe(true);
    expect((error as InsecureEndpointError).url).toBe('http://siem.example:8080/ingest');
    expect((error as Error).message).toBe(
      'siem endpoint http://siem.example:8080/ingest is not HTTPS; security.enforceHttps refuses it (use https:// or set security.enforceHttps: false)',
    );
    expect((error as Error).message).not.toMatch(/secret|token/);
  });

  it('accepts https always, and http only with enforceHttps off', () => {
    expect(checkEndpoint('https://feed.example/api', 'feed', { enforceHttps: true }).host).toBe('feed.example');
    expect(checkEndpoint('http://127.0.0.1:8080', 'feed', { enforceHttps: false }).port).toBe('8080');
    expect(() => checkEndpoint('ftp://feed.example', 'feed', { enforceHttps: true })).toThrow(/not HTTPS/);
  });

  it('refuses what is not an absolute URL with a ConfigurationError', () => {
    expect(
      ConfigurationError.isInstance(caught(() => checkEndpoint('feed.example', 'feed', { enforceHttps: true }))),
    ).toBe(true);
  });
});

describe('enforceHttps in the client', () => {
  it('refuses a plain-HTTP feed endpoint when the client is made', () => {
    const error = caught(
      () =>
        new ThreatClient(
          { sources: ['feed_otx'], apiKeys: { feed_otx: { key: 'k', endpoint: 'http://otx.mirror.example/' } } },
          { env: false, logger: silentLogger },
        ),
    );
    expect(InsecureEndpointError.isInstance(error)).toBe(true);
    expect((error as Error).message).toMatch(
      /^apiKeys\.feed_otx\.endpoint http:\/\/otx\.mirror\.example\/ is not HTTPS/,
    );
  });

  it('refuses a vault client whose feed endpoint is plain HTTP', async () => {
    await expect(
      ThreatClient.createVault(
        'pw',
        { feed_otx: { key: 'k', endpoint: 'http://otx.mirror.example/' } },
        { keyDerivation: 'pbkdf2', iterations: 1000, clientOptions: { env: false, logger: silentLogger } },
      ),
    ).rejects.toSatisfy((error) => InsecureEndpointError.isInstance(error));
  });

  it('answers a third-party feed with a plain-HTTP default endpoint as an error and never asks it', async () => {
    let asked = 0;
    const feed: Feed = {
      specificationVersion: 'v1',
      id: 'feed_plain',
      name: 'Plain HTTP feed',
      supportedTypes: ['ipv4'],
      requiresKey: false,
      defaultEndpoint: 'http://plain.example/api',
      async lookup() {
        asked++;
        return answer({ status: 'ok', verdict: 'clean', score: 0 });
      },
    };
    // feed_otx without a key is never asked: the only feed that could be is the plain-HTTP one.
    const client = new ThreatClient({ sources: ['feed_otx'] }, { env: false, logger: silentLogger });
    client.registerFeed(feed);
    const result = await client.scout('198.51.100.9', { type: 'ipv4' });
    const plain = result.results.find((r) => r.feed === 'feed_plain');
    expect(plain).toMatchObject({ status: 'error', verdict: 'unknown' });
    expect(plain?.error?.message).toMatch(/feed_plain endpoint http:\/\/plain\.example\/api is not HTTPS/);
    expect(asked).toBe(0);
    await client.stop();
  });

  it('gives integrations the same check for their own endpoints (SIEM, webhooks)', () => {
    let context: IntegrationContext | undefined;
    const client = new ThreatClient({ sources: ['feed_urls'] }, { env: false, logger: silentLogger });
    client.registerIntegration(
      'webhook',
      class {
        constructor(_options: unknown, ctx: IntegrationContext) {
          context = ctx;
        }
        async sendAlert(alert: Alert) {
          return alert.id;
        }
        async enrichIndicator() {
          return undefined;
        }
      },
    );
    expect(() => context?.checkEndpoint('http://hooks.example/in', 'webhook "ops" url')).toThrow(
      /webhook "ops" url http:\/\/hooks\.example\/in is not HTTPS/,
    );
    expect(context?.checkEndpoint('https://hooks.example/in', 'webhook "ops" url').protocol).toBe('https:');
  });
});

describe('validateCertificates: false', () => {
  it('logs a warning naming the option when the client opens its connections', async () => {
    const { logger, lines } = recordingLogger();
    const client = new ThreatClient(
      { sources: ['feed_urls'], security: { validateCertificates: false } },
      { env: false, logger },
    );
    expect(lines.filter((l) => l.obj.path === 'security.validateCertificates')).toEqual([]);
    void client.http;
    const warnings = lines.filter((l) => l.level === 'warn' && l.obj.path === 'security.validateCertificates');
    expect(warnings).toHaveLength(1);
    expect(warnings[0]?.msg).toMatch(/TLS certificate verification is off/);
    await client.stop();
  });

  it('logs nothing of the kind while certificates are verified', async () => {
    const { logger, lines } = recordingLogger();
    const client = new ThreatClient({ sources: ['feed_urls'] }, { env: false, logger });
    void client.http;
    expect(lines.some((l) => l.obj.path === 'security.validateCertificates')).toBe(false);
    await client.stop();
  });
});
