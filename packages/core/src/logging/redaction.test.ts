import { describe, expect, it } from 'vitest';
import { isSecretField, mayHoldSecrets, REDACTED, redactLogLine, redactSecrets, redactText } from './redaction.js';

describe('isSecretField', () => {
  it.each([
    'key',
    'keys',
    'apiKey',
    'api_key',
    'X-API-Key',
    'x-otx-api-key',
    'x-apikey',
    'auth-key',
    'password',
    'vaultPassword',
    'passphrase',
    'token',
    'refresh_token',
    'secret',
    'clientSecret',
    'Authorization',
    'proxy-authorization',
    'cookie',
    'Set-Cookie',
    'apiKeys',
    'encryptionKey',
  ])('%s is secret', (name) => {
    expect(isSecretField(name)).toBe(true);
  });

  it.each(['feed', 'tokens', 'cacheKey', 'keyDerivation', 'indicator', 'hostname', 'status'])('%s is not', (name) => {
    expect(isSecretField(name)).toBe(false);
  });
});

describe('redactText', () => {
  it.each([
    ['GET https://api.example/v1/ip?apikey=abc123&ip=1.2.3.4 failed', 'apikey=[redacted]&ip=1.2.3.4'],
    ['https://x.example/?key=s3cr3t', '?key=[redacted]'],
    ['https://x.example/cb?access_token=tok-1&x=1', 'access_token=[redacted]&x=1'],
    ['redis://admin:hunter2@cache.local:6379/0', 'redis://admin:[redacted]@cache.local'],
    ['Authorization: Bearer eyJhbGciOiJIUzI1NiJ9.e30.sig', 'Authorization: [redacted]'],
    ['sent header authorization=Basic dXNlcjpwYXNz', 'authorization=[redacted]'],
    ['x-otx-api-key: 0123456789abcdef', 'x-otx-api-key: [redacted]'],
    ['login with password="pw with spaces" refused', 'password=[redacted] refused'],
    ['token bearer abcdef123456', 'bearer [redacted]'],
  ])('scrubs %s', (text, expected) => {
    expect(redactText(text)).toContain(expected);
  });

  it('leaves ordinary text alone (the same string, not a copy)', () => {
    const text = 'feed_otx failed: timeout after 10000 ms for 198.51.100.7';
    expect(redactText(text)).toBe(text);
    expect(redactText('wrong password; the vault stays locked')).toBe('wrong password; the vault stays locked');
  });
});

describe('redactSecrets', () => {
  it('redacts secret-named fields at any depth, in arrays, and keeps the rest', () => {
    const input = {
      feed: 'feed_otx',
      config: { apiKeys: { feed_otx: 'k1' }, nested: [{ deeper: { password: 'p1', ok: 1 } }] },
      request: { headers: { Authorization: 'Bearer t1', 'X-OTX-API-KEY': 'k2', accept: 'json' } },
      list: [{ token: 't2' }, 'plain'],
    };
    expect(redactSecrets(input)).toEqual({
      feed: 'feed_otx',
      config: { apiKeys: REDACTED, nested: [{ deeper: { password: REDACTED, ok: 1 } }] },
      request: { headers: { Authorization: REDACTED, 'X-OTX-API-KEY': REDACTED, accept: 'json' } },
      list: [{ token: REDACTED }, 'plain'],
    });
    // The input is untouched.
    expect(input.list[0]).toEqual({ token: 't2' });
  });

  it('shares parts with nothing to redact instead of copying them', () => {
    const clean = { a: { b: [1, 2, { c: 'x' }] } };
    expect(redactSecrets(clean)).toBe(clean);
    const mixed = { clean: clean.a, secret: { password: 'p' } };
    expect(redactSecrets(mixed).clean).toBe(clean.a);
  });

  it('turns errors into plain objects, redacting their fields, message, stack and cause', () => {
    const cause = Object.assign(new Error('upstream said api_key=abc'), {
      config: { headers: { authorization: 'x' } },
    });
    const error = Object.assign(new TypeError('GET https://h/?apikey=k3 failed', { cause }), { token: 't3' });
    const out = redactSecrets({ err: error }) as unknown as { err: Record<string, unknown> };
    expect(out.err).toMatchObject({ type: 'TypeError', message: 'GET https://h/?apikey=[redacted] failed' });
    expect(out.err.token).toBe(REDACTED);
    expect(out.err.stack).toContain('apikey=[redacted]');
    expect(out.err.cause).toMatchObject({
      message: 'upstream said api_key=[redacted]',
      config: { headers: { authorization: REDACTED } },
    });
  });

  it('stops at cycles and at a depth cap', () => {
    const cyclic: Record<string, unknown> = { name: 'a' };
    cyclic.self = cyclic;
    expect(redactSecrets(cyclic)).toEqual({ name: 'a', self: '[Circular]' });
    let deep: Record<string, unknown> = { password: 'p' };
    for (let i = 0; i < 40; i++) deep = { next: deep };
    expect(JSON.stringify(redactSecrets(deep))).not.toContain('"p"');
  });

  it('redacts URLs in the form JSON would write them', () => {
    expect(redactSecrets({ endpoint: new URL('https://u:pw@h.example/p?api_key=k4') })).toEqual({
      endpoint: 'https://u:[redacted]@h.example/p?api_key=[redacted]',
    });
  });
});

describe('redactLogLine', () => {
  it('returns a line without candidates as it is', () => {
    const line = '{"level":30,"time":1,"msg":"started","feeds":3}';
    expect(redactLogLine(line)).toBe(line);
  });

  it('rewrites a line holding a secret', () => {
    const line = JSON.stringify({ level: 30, msg: 'calling https://h/?key=k5', headers: { 'x-apikey': 'k6' } });
    const out = redactLogLine(line);
    expect(out).not.toContain('k5');
    expect(out).not.toContain('k6');
    expect(JSON.parse(out)).toEqual({
      level: 30,
      msg: 'calling https://h/?key=[redacted]',
      headers: { 'x-apikey': REDACTED },
    });
  });
});

describe('mayHoldSecrets', () => {
  const clean = [
    { feed: 'feed_otx', status: 'timeout', n: 3, ok: true, list: [1, 'two', { three: null }] },
    'feed_otx failed: timeout after 10000 ms',
    42,
    undefined,
    { tokens: 4, cacheKey: 'ip:198.51.100.7' },
  ];
  const secret = [
    { apiKey: 'k' },
    { deep: [{ headers: { authorization: 'x' } }] },
    'GET https://h/?apikey=k',
    'Authorization: Bearer t',
    { err: new Error('boom') },
    { endpoint: new URL('https://h.example/') },
  ];

  it.each(clean)('is false only where redaction would change nothing: %j', (value) => {
    expect(mayHoldSecrets(value)).toBe(false);
    expect(redactSecrets(value)).toBe(value);
  });

  it.each(secret)('is true for %s', (value) => {
    expect(mayHoldSecrets(value)).toBe(true);
  });

  it('says "may" for values nested deeper than it looks', () => {
    let deep: Record<string, unknown> = { n: 1 };
    for (let i = 0; i < 12; i++) deep = { next: deep };
    expect(mayHoldSecrets(deep)).toBe(true);
  });
});
