// Issue 21, finding 9: the REST server, its authenticators and the clients mounted on it show no bearer token, JWT
// secret, password nor password hash through JSON.stringify, util.inspect (depth Infinity), String() or a walk of
// enumerable properties: made, mounted, started, after requests that passed and failed authentication. The server
// still authenticates with those secrets (it reads them with configWithSecrets, since client.config is redacted).
import { expectNoSecretShown } from '@threatlib/core/testing';
import { SignJWT } from 'jose';
import { afterEach, expect, it } from 'vitest';
import { APIServer } from './api-server.js';
import { Authenticator } from './auth/authenticator.js';
import { hashPassword } from './auth/password-hash.js';
import { testClient } from './test-support/serve.js';

const TOKEN = 'api-token-4Vn8qXc1Lz6B';
const JWT_SECRET = 'jwt-secret-7Hd2wRk9Ty3M-at-least-32-bytes';
const PASSWORD = 'basic-pw-1Fs6gJp4Wq8N';

const running: APIServer[] = [];
afterEach(async () => {
  await Promise.all(running.splice(0).map((server) => server.stop()));
});

it('a server with bearer tokens and a client with a JWT secret, made, started and after requests', async () => {
  const client = testClient({ security: { enforceHttps: false, authentication: { type: 'jwt', secret: JWT_SECRET } } });
  const server = new APIServer({ port: 0, authentication: { type: 'bearer', tokens: [TOKEN] } });
  running.push(server);
  server.mount('/api/v1', client);
  const secrets = [TOKEN, JWT_SECRET];
  expectNoSecretShown('server, mounted', server, secrets);
  const address = await server.start();
  const jwt = await new SignJWT({ scope: 'threat-intel:read' })
    .setProtectedHeader({ alg: 'HS256' })
    .setSubject('analyst')
    .setExpirationTime('5m')
    .sign(new TextEncoder().encode(JWT_SECRET));
  // The server still authenticates with the secrets it no longer shows: the token, the JWT secret.
  for (const authorization of [`Bearer ${TOKEN}`, `Bearer ${jwt}`]) {
    const response = await fetch(`${address}/api/v1/feeds/status`, { headers: { authorization } });
    expect(response.status).toBe(200);
  }
  const refused = await fetch(`${address}/api/v1/feeds/status`, { headers: { authorization: 'Bearer wrong' } });
  expect(refused.status).toBe(401);
  expectNoSecretShown('server, started', server, [...secrets, jwt]);
  expectNoSecretShown('mounted client', client, [...secrets, jwt]);
  expect(JSON.parse(JSON.stringify(server))).toMatchObject({ address, mounted: ['/api/v1'], authentication: 'bearer' });
});

it('a client with basic users (password hashes), and the authenticators', async () => {
  const hash = await hashPassword(PASSWORD);
  const client = testClient({
    security: { enforceHttps: false, authentication: { type: 'basic', users: { analyst: hash } } },
  });
  const server = new APIServer({ port: 0 });
  running.push(server);
  server.mount('/api/v1', client);
  const address = await server.start();
  const basic = `Basic ${Buffer.from(`analyst:${PASSWORD}`).toString('base64')}`;
  expect((await fetch(`${address}/api/v1/feeds/status`, { headers: { authorization: basic } })).status).toBe(200);
  expectNoSecretShown('server with basic users', server, [PASSWORD, hash]);
  expectNoSecretShown('client with basic users', client, [PASSWORD, hash]);

  const authenticator = new Authenticator(
    { type: 'bearer', tokens: [TOKEN] },
    { type: 'basic', users: { analyst: hash } },
    { enforceHttps: false },
  );
  expectNoSecretShown('authenticator', authenticator, [TOKEN, PASSWORD, hash]);
  expect(JSON.parse(JSON.stringify(authenticator))).toMatchObject({ methods: ['bearer', 'basic'] });
});
