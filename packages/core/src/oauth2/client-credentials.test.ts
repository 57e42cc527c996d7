// The client credentials grant against a real authorization server (panva/oidc-provider) on loopback.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { inspect } from 'node:util';
import Provider from 'oidc-provider';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ThreatClient } from '../client/threat-client.js';
import { OAUTH2_CLIENT_SECRET_VARIABLE } from '../config/environment.js';
import type { ThreatConfig } from '../config/schema.js';
import { createHttpClient } from '../http/http-client.js';
import type { IntegrationContext } from '../integration/integration.js';
import { silentLogger } from '../logging/logger.js';
import { ManualClock } from '../scheduler/clock.js';
import { expectNoSecretIn } from '../security/secret-leaks.test-suite.js';
import { createOAuth2TokenSource } from './client-credentials.js';
import { OAUTH2_CLIENT_SECRET_VAULT_KEY } from './client-token-source.js';
import { OAuth2TokenError } from './oauth2-token-error.js';

const SECRET = 'cc-secret-Zq81-never-shown';
const VAULT_SECRET = 'cc-vault-secret-Kp03-never-shown';
const RESOURCE = 'urn:threatlib:test-api';
const TOKEN_TTL_S = 600;

let server: Server;
let issuer: string;
const tokenRequests: Array<{ authorization: string | undefined }> = [];
const http = createHttpClient();

beforeAll(async () => {
  server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const provider = new Provider(issuer, {
    clients: [
      {
        client_id: 'threatlib',
        client_secret: SECRET,
        grant_types: ['client_credentials'],
        response_types: [],
        redirect_uris: [],
        scope: 'threat-intel:read threat-intel:write',
      },
      {
        client_id: 'vaulted',
        client_secret: VAULT_SECRET,
        grant_types: ['client_credentials'],
        response_types: [],
        redirect_uris: [],
        scope: 'threat-intel:read',
      },
    ],
    scopes: ['threat-intel:read', 'threat-intel:write'],
    ttl: { ClientCredentials: TOKEN_TTL_S },
    features: {
      clientCredentials: { enabled: true },
      resourceIndicators: {
        enabled: true,
        defaultResource: () => RESOURCE,
        useGrantedResource: () => true,
        getResourceServerInfo: () => ({
          scope: 'threat-intel:read threat-intel:write',
          audience: RESOURCE,
          accessTokenFormat: 'jwt',
          jwt: { sign: { alg: 'RS256' } },
        }),
      },
    },
  });
  const callback = provider.callback();
  server.on('request', (req, res) => {
    if (req.method === 'POST' && req.url === '/token') tokenRequests.push({ authorization: req.headers.authorization });
    callback(req, res);
  });
});

afterAll(async () => {
  await http.close();
  await new Promise((resolve) => server.close(resolve));
});

const unexpected = (token: string): never => {
  throw new Error(`expected a failure, got a token of ${token.length} characters`);
};

/** The claims of a JWT access token (its signature is the resource server's business, not ours). */
function claims(token: string): { client_id?: string; scope?: string; exp?: number } {
  return JSON.parse(Buffer.from(token.split('.')[1] ?? '', 'base64url').toString('utf8'));
}

function source(extra: Partial<Parameters<typeof createOAuth2TokenSource>[0]> = {}) {
  return createOAuth2TokenSource({
    tokenEndpoint: `${issuer}/token`,
    clientId: 'threatlib',
    clientSecret: () => SECRET,
    scopes: ['threat-intel:read'],
    http,
    enforceHttps: false,
    ...extra,
  });
}

describe('createOAuth2TokenSource against oidc-provider', () => {
  it('obtains a token with the configured scopes, and keeps it until shortly before it expires', async () => {
    const clock = new ManualClock(Date.now());
    const tokens = source({ clock });
    const before = tokenRequests.length;

    const first = await tokens.getToken();
    expect(claims(first)).toMatchObject({ client_id: 'threatlib', scope: 'threat-intel:read' });
    expect(tokenRequests.at(-1)?.authorization).toMatch(/^Basic /);
    // Concurrent callers and later ones share the token while it has more than a minute left.
    const again = await Promise.all([tokens.getToken(), tokens.getToken(), tokens.getToken()]);
    expect(again).toEqual([first, first, first]);
    await clock.advance((TOKEN_TTL_S - 61) * 1000);
    expect(await tokens.getToken()).toBe(first);
    expect(tokenRequests.length - before).toBe(1);

    // Within the last minute of its life, a new one is asked for.
    await clock.advance(2000);
    const second = await tokens.getToken();
    expect(second).not.toBe(first);
    expect(tokenRequests.length - before).toBe(2);

    tokens.invalidate();
    expect(await tokens.getToken()).not.toBe(second);
    expect(tokenRequests.length - before).toBe(3);
  });

  it('concurrent first calls send one request', async () => {
    const tokens = source({ scopes: ['threat-intel:read', 'threat-intel:write'] });
    const before = tokenRequests.length;
    const all = await Promise.all(Array.from({ length: 10 }, () => tokens.getToken()));
    expect(new Set(all).size).toBe(1);
    expect(tokenRequests.length - before).toBe(1);
    expect(claims(all[0] ?? '').scope).toBe('threat-intel:read threat-intel:write');
  });

  it('a refused secret is a clear OAuth2TokenError that never holds the secret', async () => {
    const wrong = `${SECRET}-but-wrong`;
    const error = await source({ clientSecret: () => wrong })
      .getToken()
      .then(unexpected, (e: unknown) => e);
    expect(OAuth2TokenError.isInstance(error)).toBe(true);
    const e = error as OAuth2TokenError;
    expect(e.message).toMatch(
      new RegExp(`^OAuth 2\\.0 token request to ${issuer}/token for client "threatlib" refused: invalid_client`),
    );
    expect(e.message).toMatch(/\[HTTP 401\]$/);
    expect(e).toMatchObject({
      name: 'OAuth2TokenError',
      code: 'OAUTH2_TOKEN_ERROR',
      status: 401,
      error: 'invalid_client',
    });
    expectNoSecretIn([e.message, String(e), inspect(e, { depth: 10 }), JSON.stringify(e)], [wrong, SECRET]);
  });

  it('a scope the client may not have is refused by name', async () => {
    const error = await source({
      clientId: 'vaulted',
      clientSecret: () => VAULT_SECRET,
      scopes: ['threat-intel:write'],
    })
      .getToken()
      .then(unexpected, (e: unknown) => e as OAuth2TokenError);
    expect(error).toMatchObject({ error: 'invalid_scope', status: 400 });
    expect(error.message).toContain('refused: invalid_scope');
  });

  it('a token granted without a scope asked for is refused, naming the scope', async () => {
    const error = await source({ scopes: ['threat-intel:read', 'threat-intel:admin'] })
      .getToken()
      .then(unexpected, (e: unknown) => e as OAuth2TokenError);
    expect(error).toMatchObject({ error: 'insufficient_scope' });
    expect(error.message).toMatch(/was granted scope "threat-intel:read" without "threat-intel:admin"/);
  });

  it('an unreachable token endpoint is a network failure naming the endpoint', async () => {
    const dead = createServer();
    await new Promise<void>((resolve) => dead.listen(0, '127.0.0.1', resolve));
    const port = (dead.address() as AddressInfo).port;
    await new Promise((resolve) => dead.close(resolve));
    const error = await source({ tokenEndpoint: `http://127.0.0.1:${port}/token` })
      .getToken()
      .then(unexpected, (e: unknown) => e as OAuth2TokenError);
    expect(OAuth2TokenError.isInstance(error)).toBe(true);
    expect(error.message).toMatch(
      new RegExp(`^OAuth 2\\.0 token request to http://127\\.0\\.0\\.1:${port}/token for client "threatlib" failed: `),
    );
    expect(error.message).toMatch(/ECONNREFUSED/);
    expect(error.status).toBeUndefined();
  });

  it('without a secret nothing is sent, and the error says where to put one', async () => {
    const before = tokenRequests.length;
    const error = await source({ clientSecret: () => undefined, missingSecretHint: 'set it somewhere' })
      .getToken()
      .then(unexpected, (e: unknown) => e as OAuth2TokenError);
    expect(error.message).toMatch(/was not sent: the client has no client secret \(set it somewhere\)$/);
    expect(tokenRequests.length).toBe(before);
  });

  it('refuses a plain-HTTP token endpoint while HTTPS is enforced', () => {
    expect(() => source({ enforceHttps: true })).toThrow(/tokenEndpoint .* is not HTTPS/);
  });
});

describe('ThreatClient.oauth2: the secret from the vault, else the configuration, which the environment fills', () => {
  const authentication = (clientId: string) => ({
    type: 'oauth2' as const,
    tokenEndpoint: `${issuer}/token`,
    clientId,
    scopes: ['threat-intel:read'],
  });
  const clients: ThreatClient[] = [];
  afterAll(async () => {
    for (const client of clients) await client.stop();
  });
  const make = (config: ThreatConfig, env: Record<string, string> = {}) => {
    const client = new ThreatClient(config, { env, logger: silentLogger });
    clients.push(client);
    return client;
  };

  /** An integration that keeps the context it was given. */
  const contexts: IntegrationContext[] = [];
  class Keeper {
    constructor(_options: unknown, context: IntegrationContext) {
      contexts.push(context);
    }
    async sendAlert() {}
    async enrichIndicator() {}
  }

  it('is undefined for a client without oauth2, and for its integrations', () => {
    const client = make({ sources: ['feed_urls'] });
    client.registerIntegration('keeper', Keeper);
    expect(client.oauth2).toBeUndefined();
    expect(contexts.at(-1)?.oauth2).toBeUndefined();
  });

  it('takes the secret from THREATLIB_OAUTH2_CLIENT_SECRET when the configuration gives none; integrations share it', async () => {
    const client = make(
      { sources: ['feed_urls'], security: { enforceHttps: false, authentication: authentication('threatlib') } },
      { [OAUTH2_CLIENT_SECRET_VARIABLE]: SECRET },
    );
    client.registerIntegration('keeper', Keeper);
    const token = (await client.oauth2?.getToken()) ?? '';
    expect(claims(token)).toMatchObject({ client_id: 'threatlib' });
    expect(await contexts.at(-1)?.oauth2?.getToken()).toBe(token);
  });

  it("takes the vault's oauth2_client_secret before the configuration and the environment", async () => {
    const { client } = await ThreatClient.createVault(
      'vault password',
      { [OAUTH2_CLIENT_SECRET_VAULT_KEY]: VAULT_SECRET },
      {
        keyDerivation: 'pbkdf2',
        iterations: 1000,
        autoLock: false,
        config: {
          sources: ['feed_urls'],
          security: {
            enforceHttps: false,
            authentication: { ...authentication('vaulted'), clientSecret: 'a wrong configured secret' },
          },
        },
        clientOptions: { env: { [OAUTH2_CLIENT_SECRET_VARIABLE]: 'a wrong secret' }, logger: silentLogger },
      },
    );
    clients.push(client);
    expect(claims((await client.oauth2?.getToken()) ?? '')).toMatchObject({ client_id: 'vaulted' });
  });

  it('without a secret anywhere, the error names the vault key, the variable and the option', async () => {
    const client = make({
      sources: ['feed_urls'],
      security: { enforceHttps: false, authentication: authentication('threatlib') },
    });
    const error = await client.oauth2?.getToken().then(unexpected, (e: unknown) => e as Error);
    expect(error?.message).toContain(
      'put it in the vault as "oauth2_client_secret", set THREATLIB_OAUTH2_CLIENT_SECRET, or set security.authentication.clientSecret',
    );
  });

  it('refuses a plain-HTTP token endpoint at construction while HTTPS is enforced', () => {
    expect(() => make({ sources: ['feed_urls'], security: { authentication: authentication('threatlib') } })).toThrow(
      /security\.authentication\.tokenEndpoint http:\/\/127\.0\.0\.1:\d+\/token is not HTTPS/,
    );
  });
});
