import { normalizeIP } from '@fastify/rate-limit';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { clientKey, requestClientKey } from './client-address.js';

vi.mock('@fastify/rate-limit', async (importOriginal) => {
  const original = await importOriginal<typeof import('@fastify/rate-limit')>();
  return { ...original, normalizeIP: vi.fn(original.normalizeIP) };
});

const parsed = vi.mocked(normalizeIP);

describe('requestClientKey (issue 27: an address parsed once per connection, not per request)', () => {
  beforeEach(() => {
    parsed.mockClear();
  });

  it('parses a connection’s address on its first request only', () => {
    const socket = {};
    const request = { ip: '2001:db8:1:2:3:4:5:6', raw: { socket } };
    expect(requestClientKey(request)).toBe(clientKey('2001:db8:1:2:3:4:5:6'));
    parsed.mockClear();
    for (let i = 0; i < 5; i += 1) expect(requestClientKey({ ...request })).toBe('2001:db8:1:2::');
    expect(parsed).not.toHaveBeenCalled();
  });

  it('gives each connection, and a request whose address is not its socket’s, a key of its own', () => {
    const socket = {};
    expect(requestClientKey({ ip: '198.51.100.7', raw: { socket } })).toBe('198.51.100.7');
    expect(requestClientKey({ ip: '::ffff:198.51.100.8', raw: { socket } })).toBe('198.51.100.8');
    expect(requestClientKey({ ip: '198.51.100.9', raw: { socket: {} } })).toBe('198.51.100.9');
    expect(requestClientKey({ ip: '198.51.100.10', raw: {} })).toBe('198.51.100.10');
    expect(parsed).toHaveBeenCalledTimes(4);
  });
});

describe('the server parses a connection’s address once, not on every request', () => {
  it('twenty requests on keep-alive connections: the address parsed per connection, not per request', async () => {
    const { serveForTest } = await import('../test-support/serve.js');
    const { call } = await serveForTest();
    await call('/api/v1/feeds/status');
    parsed.mockClear();
    for (let i = 0; i < 20; i += 1) expect((await call('/api/v1/feeds/status')).status).toBe(200);
    // Before: once per request in the authentication hook (20; the rate limiter parses with its own copy). Now once
    // for the connection guard and once for the first request of each connection the fetch pool opened.
    expect(parsed.mock.calls.length).toBeLessThanOrEqual(4);
  });
});
