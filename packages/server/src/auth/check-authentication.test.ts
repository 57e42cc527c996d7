// An authentication that could never accept a request is refused when the server is built (mount) or started, with
// an error that names what is missing; before, each of these started and answered every request 401 or 500.
import { generateKeyPairSync } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { exportJWK, SignJWT } from 'jose';
import { afterEach, describe, expect, it } from 'vitest';
import { APIServer } from '../api-server.js';
import { testClient } from '../test-support/serve.js';
import { Authenticator } from './authenticator.js';
import { hashPassword } from './password-hash.js';

type Auth = Record<string, unknown>;

/** What mounting a client with `authentication` throws (undefined when it is accepted). */
function mountError(authentication: Auth, server?: ConstructorParameters<typeof APIServer>[0]): Error | undefined {
  try {
    new APIServer({ port: 0, ...server }).mount(
      '/api/v1',
      testClient({ security: { enforceHttps: false, authentication } as never }),
    );
    return undefined;
  } catch (error) {
    return error as Error;
  }
}

const running: Array<{ close: () => Promise<unknown> }> = [];
afterEach(async () => {
  await Promise.all(running.splice(0).map((r) => r.close()));
});

async function listen(handler: Parameters<typeof createServer>[1]): Promise<{ origin: string; server: Server }> {
  const server = createServer(handler);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  running.push({
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(resolve);
      }),
  });
  return { origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, server };
}

describe('jwt', () => {
  it('without a secret, publicKey or jwksUrl is refused at mount, naming the three', () => {
    const error = mountError({ type: 'jwt' });
    expect(error?.message).toMatch(/^Configuration invalid: security\.authentication: type "jwt" needs a key/);
    expect(error?.message).toMatch(/secret .*publicKey .*jwksUrl/);
    expect((error as { code?: string }).code).toBe('CONFIGURATION_INVALID');
  });

  it('refuses keys that could verify nothing: a short HS256 secret, two key sources, algorithms no key verifies', () => {
    expect(mountError({ type: 'jwt', secret: 'short' })?.message).toMatch(
      /security\.authentication\.secret: an HS256 secret is at least 32 bytes \(RFC 7518 §3\.2\); this one has 5$/,
    );
    const rsa = generateKeyPairSync('rsa', { modulusLength: 2048 }).publicKey.export({ type: 'spki', format: 'pem' });
    expect(mountError({ type: 'jwt', secret: 'x'.repeat(32), publicKey: rsa.toString() })?.message).toMatch(
      /secret and publicKey are both set: keep one/,
    );
    expect(mountError({ type: 'jwt', secret: 'x'.repeat(32), algorithms: ['RS256'] })?.message).toMatch(
      /security\.authentication\.algorithms: \["RS256"\] leaves nothing secret can verify/,
    );
    expect(mountError({ type: 'jwt', publicKey: 'not a key' })?.message).toMatch(
      /security\.authentication\.publicKey: not a public key/,
    );
    expect(mountError({ type: 'jwt', publicKey: rsa.toString(), algorithms: ['ES256'] })?.message).toMatch(
      /leaves nothing publicKey can verify \(it verifies RS256\)/,
    );
  });

  it('an EC P-256 public key verifies ES256 tokens without algorithms being set', async () => {
    const ec = generateKeyPairSync('ec', { namedCurve: 'P-256' });
    const authenticator = new Authenticator(
      undefined,
      { type: 'jwt', publicKey: ec.publicKey.export({ type: 'spki', format: 'pem' }).toString() },
      { enforceHttps: false },
    );
    const token = await new SignJWT({})
      .setProtectedHeader({ alg: 'ES256' })
      .setSubject('analyst')
      .setExpirationTime('5m')
      .sign(ec.privateKey);
    expect(await authenticator.authenticate(`Bearer ${token}`, 'GET')).toMatchObject({
      method: 'jwt',
      subject: 'analyst',
    });
  });

  it('a jwksUrl that enforceHttps refuses is refused at mount, not at the first request', () => {
    const error = (() => {
      try {
        new Authenticator(undefined, { type: 'jwt', jwksUrl: 'http://idp.example/jwks' }, { enforceHttps: true });
      } catch (caught) {
        return caught as Error;
      }
    })();
    expect(error?.message).toMatch(/security\.authentication\.jwksUrl: the JWKS URL: .*not HTTPS/);
  });
});

describe('basic', () => {
  it('a password in clear where a hash belongs is refused at mount, naming the user but never the password', () => {
    const error = mountError({ type: 'basic', users: { alice: 'correct horse battery staple' } });
    expect(error?.message).toMatch(
      /^Configuration invalid: security\.authentication\.users\["alice"\]: not a password hash \(it looks like a password in clear\); every login as this user would be refused\. Store the hash `threatlib hash-password` prints/,
    );
    expect(error?.message).not.toContain('correct horse');
  });

  it('refuses no users, an argon2 hash, a name with ":" and a realm that cannot be sent in a header', async () => {
    const hash = await hashPassword('pw', { ln: 10, r: 8, p: 1 });
    expect(mountError({ type: 'basic' })?.message).toMatch(
      /security\.authentication\.users: type "basic" needs at least one user/,
    );
    expect(
      mountError({ type: 'basic', users: { bob: '$argon2id$v=19$m=65536,t=3,p=4$c2FsdA$aGFzaA' } })?.message,
    ).toMatch(/users\["bob"\]: an argon2 hash: this server verifies scrypt hashes only/);
    expect(mountError({ type: 'basic', users: { 'a:b': hash } })?.message).toMatch(
      /the user name "a:b" can never log in/,
    );
    expect(mountError({ type: 'basic', users: { alice: hash }, realm: 'say "hi"' })?.message).toMatch(
      /security\.authentication\.realm: expected 1 to 200 printable ASCII characters without "/,
    );
    expect(mountError({ type: 'basic', users: { alice: hash } })).toBeUndefined();
  });
});

describe("the server's bearer tokens", () => {
  it('a token that is undefined (an unset environment variable) or holds a space is refused, never shown', () => {
    const client = () => testClient();
    const attempt = (tokens: unknown[]) => {
      try {
        new APIServer({ authentication: { type: 'bearer', tokens: tokens as string[] } }).mount('/api/v1', client());
      } catch (error) {
        return (error as Error).message;
      }
    };
    expect(attempt([undefined])).toBe(
      'Configuration invalid: authentication.tokens[0]: expected a token string, got undefined (is its environment variable set?)',
    );
    const spaced = attempt(['ok-token', 'two words']);
    expect(spaced).toMatch(/authentication\.tokens\[1\]: holds whitespace/);
    expect(spaced).not.toContain('two words');
    expect(attempt([])).toMatch(/authentication\.tokens: type "bearer" needs at least one token/);
  });
});

describe('oauth2 discovery', () => {
  it('is bounded in time: an issuer that never answers fails prepare() with "no answer in time"', async () => {
    const held: Array<{ destroy: () => void }> = [];
    const { origin } = await listen((req) => {
      held.push(req.socket);
    });
    const authenticator = new Authenticator(
      undefined,
      { type: 'oauth2', tokenEndpoint: `${origin}/token`, clientId: 'c', scopes: [] },
      { enforceHttps: false, discoveryTimeoutMs: 300 },
    );
    const error = await authenticator.prepare().then(
      () => undefined,
      (caught: Error) => caught,
    );
    expect(error?.message).toMatch(/within 300 ms/);
    expect(error?.message).toContain(`${origin}/.well-known/openid-configuration (no answer in time)`);
    expect(held.length).toBe(2);
  });

  it('only a document for this token endpoint counts, and its issuer is then required of every token', async () => {
    const keys = generateKeyPairSync('rsa', { modulusLength: 2048 });
    const jwk = { ...(await exportJWK(keys.publicKey)), kid: 'k', alg: 'RS256' };
    let issuer = '';
    const { origin } = await listen((req, res) => {
      const json = (body: unknown) =>
        res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(body));
      // The origin's document is another server's (another token endpoint); the one under /tenant is this one's.
      if (req.url === '/.well-known/openid-configuration')
        return json({ issuer: `${issuer}-other`, token_endpoint: `${issuer}/elsewhere/token` });
      if (req.url === '/tenant/.well-known/openid-configuration')
        return json({
          issuer: `${issuer}/tenant`,
          token_endpoint: `${issuer}/tenant/token`,
          jwks_uri: `${issuer}/keys`,
        });
      if (req.url === '/keys') return json({ keys: [jwk] });
      res.writeHead(404).end();
    });
    issuer = origin;
    const authenticator = new Authenticator(
      undefined,
      { type: 'oauth2', tokenEndpoint: `${origin}/tenant/token`, clientId: 'c', scopes: [] },
      { enforceHttps: false },
    );
    await authenticator.prepare();
    const sign = (iss: string) =>
      new SignJWT({ scope: 'threat-intel:read' })
        .setProtectedHeader({ alg: 'RS256', kid: 'k' })
        .setIssuer(iss)
        .setSubject('svc')
        .setExpirationTime('5m')
        .sign(keys.privateKey);
    expect(await authenticator.authenticate(`Bearer ${await sign(`${origin}/tenant`)}`, 'GET')).toMatchObject({
      method: 'oauth2',
      subject: 'svc',
    });
    const refused = await authenticator.authenticate(`Bearer ${await sign(`${origin}-other`)}`, 'GET').then(
      () => undefined,
      (error: { problem?: { status: number; detail: string } }) => error.problem,
    );
    expect(refused).toMatchObject({ status: 401, detail: expect.stringMatching(/"iss" claim/) });
  });

  it('metadata that names neither a key set nor an introspection endpoint fails start(), saying so', async () => {
    let origin = '';
    ({ origin } = await listen((req, res) => {
      if (req.url === '/.well-known/oauth-authorization-server')
        return res
          .writeHead(200, { 'content-type': 'application/json' })
          .end(JSON.stringify({ issuer: origin, token_endpoint: `${origin}/token` }));
      res.writeHead(404).end();
    }));
    const server = new APIServer({ port: 0 }).mount(
      '/api/v1',
      testClient({
        security: {
          enforceHttps: false,
          authentication: { type: 'oauth2', tokenEndpoint: `${origin}/token`, clientId: 'c' },
        },
      }),
    );
    running.push({ close: () => server.stop() });
    await expect(server.start()).rejects.toThrow(
      /the authorization server's metadata names neither jwks_uri nor introspection_endpoint/,
    );
  });
});
