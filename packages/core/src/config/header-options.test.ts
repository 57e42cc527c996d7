// Header maps in the configuration are checked when it is read: a value undici would refuse (a line break, a control
// character) used to be taken, and then every request carrying it failed: a log webhook dropped its lines, an alert
// webhook sent nothing. The error names the option and what is wrong, never the value (a header is often a secret).
import { describe, expect, it } from 'vitest';
import { ThreatClient } from '../client/threat-client.js';
import { ConfigurationError } from '../errors/configuration-error.js';
import { silentLogger } from '../logging/logger.js';
import { parseConfig } from './parse-config.js';
import type { ThreatConfig } from './schema.js';

function refused(config: unknown): ConfigurationError {
  try {
    parseConfig(config);
  } catch (error) {
    expect(ConfigurationError.isInstance(error)).toBe(true);
    return error as ConfigurationError;
  }
  throw new Error('expected a ConfigurationError');
}

const logWebhook = (headers: Record<string, string>) => ({
  sources: ['feed_urls'],
  logging: { transports: [{ type: 'webhook', url: 'https://logs.example.com/in', headers }] },
});
const alertWebhook = (headers: Record<string, string>) => ({
  sources: ['feed_urls'],
  enterprise: { monitoring: { alerts: { webhook: { url: 'https://alerts.example.com/in', headers } } } },
});
const siemForwarder = (headers: Record<string, string>) => ({
  sources: ['feed_urls'],
  enterprise: { siemIntegration: { enabled: false, endpoint: 'https://siem.example.com/in', headers } },
});

describe('header values', () => {
  it.each([
    ['logging.transports[0].headers.x-tenant', logWebhook],
    ['enterprise.monitoring.alerts.webhook.headers.x-tenant', alertWebhook],
    ['enterprise.siemIntegration.headers.x-tenant', siemForwarder],
  ])('%s with a line break is refused, naming the option and not the value', (path, config) => {
    const error = refused(config({ 'x-tenant': 'a\r\nInjected: 1' }));
    expect(error.issues).toEqual([
      {
        path,
        message:
          'a header value cannot hold a line break (CR or LF): character 2 is one, got a string of 14 characters (not shown)',
      },
    ]);
    expect(error.message).toMatch(/^Configuration invalid: /);
    expect(error.message).not.toContain('Injected');
  });

  it.each([
    ['a NUL character', 'secret\u0000'],
    ['a control character', 'secret\u0007'],
    ['a character above U+00FF', 'secret\u2028'],
  ])('with %s is refused', (what, value) => {
    const [issue] = refused(logWebhook({ authorization: value })).issues;
    expect(issue?.path).toBe('logging.transports[0].headers.authorization');
    expect(issue?.message).toContain(`cannot hold ${what}`);
    expect(issue?.message).not.toContain('secret');
  });

  it('the client refuses such a log webhook when it is made, instead of dropping its lines', () => {
    expect(
      () =>
        new ThreatClient(logWebhook({ 'x-tenant': 'a\r\nInjected: 1' }) as ThreatConfig, {
          env: false,
          logger: silentLogger,
        }),
    ).toThrow(
      /^Configuration invalid: logging\.transports\[0\]\.headers\.x-tenant: a header value cannot hold a line break/,
    );
  });

  it('takes what undici sends: tab, visible ASCII, Latin-1, an empty value', () => {
    const headers = { authorization: 'Bearer abc.def', 'x-note': 'caf\u00e9\tau lait', 'x-empty': '' };
    expect(parseConfig(logWebhook(headers)).logging.transports[0]).toMatchObject({ headers });
    expect(parseConfig(alertWebhook(headers)).enterprise.monitoring.alerts.webhook?.headers).toEqual(headers);
  });
});

describe('header names', () => {
  it('a name that is no RFC 9110 token is refused at the map, quoted escaped', () => {
    expect(refused(logWebhook({ 'x-tenant\r\nInjected': 'v' })).issues).toEqual([
      {
        path: 'logging.transports[0].headers',
        message:
          'expected a header name (an RFC 9110 token: letters, digits and !#$%&\'*+-.^_`|~), got "x-tenant\\r\\nInjected" (it has a line break)',
      },
    ]);
    expect(refused(alertWebhook({ 'x tenant': 'v' })).issues).toEqual([
      {
        path: 'enterprise.monitoring.alerts.webhook.headers',
        message: expect.stringMatching(/got "x tenant" \(it has a space\)$/),
      },
    ]);
  });
});
