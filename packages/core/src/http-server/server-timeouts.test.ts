import { describe, expect, it } from 'vitest';
import { SERVER_TIMEOUT_DEFAULTS, serverTimeoutOptions } from './server-timeouts.js';

describe('serverTimeoutOptions', () => {
  it('passes every timeout to fastify and to Node, and checks deadlines every second', () => {
    expect(serverTimeoutOptions(SERVER_TIMEOUT_DEFAULTS)).toEqual({
      requestTimeout: 30_000,
      connectionTimeout: 120_000,
      keepAliveTimeout: 5_000,
      http: {
        headersTimeout: 10_000,
        requestTimeout: 30_000,
        keepAliveTimeout: 5_000,
        connectionsCheckingInterval: 1_000,
      },
    });
  });

  it('checks a short deadline four times within it, and ignores deadlines turned off', () => {
    const short = serverTimeoutOptions({ ...SERVER_TIMEOUT_DEFAULTS, headersTimeout: 200, requestTimeout: 0 });
    expect(short.http.connectionsCheckingInterval).toBe(50);
    const tiny = serverTimeoutOptions({ ...SERVER_TIMEOUT_DEFAULTS, headersTimeout: 8, requestTimeout: 8 });
    expect(tiny.http.connectionsCheckingInterval).toBe(10);
  });
});
