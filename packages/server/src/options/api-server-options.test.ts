import { ConfigurationError } from '@threatlib/core';
import { describe, expect, it } from 'vitest';
import { APIServer, type APIServerOptions } from '../api-server.js';

/** The ConfigurationError the constructor throws for `options`. */
function refusal(options: unknown): ConfigurationError {
  try {
    new APIServer(options as APIServerOptions);
  } catch (error) {
    expect(ConfigurationError.isInstance(error), String(error)).toBe(true);
    return error as ConfigurationError;
  }
  throw new Error('expected the options to be refused');
}

describe("APIServer's options are checked like the client's configuration", () => {
  it("refuses rateLimit.windowMs: '15m' (it ran another window), saying what it stands for in milliseconds", () => {
    expect(refusal({ rateLimit: { windowMs: '15m', max: 100 } }).message).toBe(
      'Configuration invalid: rateLimit.windowMs: windowMs is a number of milliseconds, not a text; got "15m" (did you mean 900000?)',
    );
    expect(refusal({ rateLimit: { windowMs: 900 } }).message).toBe(
      'Configuration invalid: rateLimit.windowMs: windowMs is in milliseconds, at least 1000; got 900 (did you mean 900000?)',
    );
    // The documented form: 15 minutes and 100 requests.
    expect(() => new APIServer({ port: 0, rateLimit: { windowMs: 15 * 60 * 1000, max: 100 } })).not.toThrow();
  });

  it('refuses an unknown option, suggesting the one meant when it is close', () => {
    expect(refusal({ ratelimit: { max: 100 } }).issues).toEqual([
      { path: 'ratelimit', message: 'unknown option (did you mean rateLimit?)' },
    ]);
    expect(refusal({ rateLimit: { windowMS: 60_000 } }).issues).toEqual([
      { path: 'rateLimit.windowMS', message: 'unknown option (did you mean windowMs?)' },
    ]);
    expect(refusal({ authentication: { type: 'bearer', token: ['t'] } }).issues).toEqual([
      { path: 'authentication.tokens', message: 'required: the list of accepted tokens' },
      { path: 'authentication.token', message: 'unknown option (did you mean tokens?)' },
    ]);
    expect(refusal({ cors: true }).issues).toEqual([{ path: 'cors', message: 'unknown option' }]);
  });

  it("suggests as the client's configuration does: across separators, and an option one level down", () => {
    expect(refusal({ max_connections_per_address: 4 }).issues).toEqual([
      { path: 'max_connections_per_address', message: 'unknown option (did you mean maxConnectionsPerAddress?)' },
    ]);
    expect(refusal({ rateLimit: { window_ms: 60_000 } }).issues).toEqual([
      { path: 'rateLimit.window_ms', message: 'unknown option (did you mean windowMs?)' },
    ]);
    // The one place the schema has an option of that name.
    expect(refusal({ blockMs: 60_000 }).issues).toEqual([
      { path: 'blockMs', message: 'unknown option (did you mean authFailureLimit.blockMs?)' },
    ]);
  });

  it('names every option that is wrong and what it got, reading what a text was meant to be', () => {
    const error = refusal({
      port: '8080',
      host: '',
      bodyLimit: '1MB',
      requestTimeout: 30,
      keepAliveTimeout: 0,
      logRequests: 'yes',
      authFailureLimit: { blockMs: 300 },
      webhooks: {},
    });
    expect(error.issues).toEqual([
      { path: 'port', message: 'port is a whole number, from 0 to 65535; got "8080" (did you mean 8080?)' },
      { path: 'host', message: 'host is an address or host name to listen on, got ""' },
      {
        path: 'authFailureLimit.blockMs',
        message: 'blockMs is in milliseconds, at least 1000; got 300 (did you mean 300000?)',
      },
      {
        path: 'bodyLimit',
        message: 'bodyLimit is a whole number of bytes, 1 or more; got "1MB" (did you mean 1000000?)',
      },
      { path: 'logRequests', message: 'logRequests is true or false; got "yes"' },
      {
        path: 'webhooks',
        message: 'expected a WebhookManager of @threatlib/webhooks (with a fastify plugin), got an object',
      },
      {
        path: 'requestTimeout',
        message: 'requestTimeout is in milliseconds, at least 100 (or 0 to turn it off); got 30 (did you mean 30000?)',
      },
      { path: 'keepAliveTimeout', message: 'keepAliveTimeout is in milliseconds, at least 100; got 0' },
    ]);
    expect(error.message).toMatch(/^Configuration invalid: port: /);
  });

  it('checks the shape of authentication without ever quoting a token', () => {
    expect(refusal({ authentication: { type: 'bearer', tokens: [undefined] } }).issues).toEqual([
      {
        path: 'authentication.tokens[0]',
        message: 'expected a token string, got undefined (is its environment variable set?)',
      },
    ]);
    const numeric = refusal({ authentication: { type: 'bearer', tokens: [31_415_926_535] } });
    expect(numeric.message).toBe(
      'Configuration invalid: authentication.tokens[0]: expected a token (a string), got a number',
    );
    expect(refusal({ authentication: { type: 'jwt', secret: 's3cr3t-value' } }).message).toBe(
      'Configuration invalid: authentication.type: expected type "bearer" (with tokens) or "none", got "jwt"',
    );
    expect(refusal({ authentication: 'bearer s3cr3t' }).message).toBe(
      'Configuration invalid: authentication: expected {type: "bearer", tokens: [...]} or {type: "none"}, got a string',
    );
  });

  it('refuses what is not an options object', () => {
    expect(refusal(42).message).toBe(
      "Configuration invalid: (root): expected APIServer's options (an object), got a number",
    );
  });
});
