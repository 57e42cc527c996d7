// OAuth 2.0 against a real OpenID provider (panva/oidc-provider) running on loopback: client-credentials tokens,
// JWT access tokens verified through discovery and JWKS, opaque ones through token introspection.
import type { AddressInfo } from 'node:net';
import { silentLogger, ThreatClient, type ThreatConfig } from '@threatlib/core';
import Provider from 'oidc-provider';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { APIServer } from '../api-server.js';
import { exampleBlocklistPath } from '../cli/embedded-config.js';

let issuer: string;
let stopProvider: () => Promise<void>;
const RESOURCE = 'urn:threatlib:api';

const CLIENTS = [
  { client_id: 'reader', client_secret: 'reader-secret', scope: 'threat-intel:read', format: 'jwt' },
  { client_id: 'writer', client_secret: 'writer-secret', scope: 'threat-intel:read threat-intel:write', format: 'jwt' },
  {
    client_id: 'opaque',
    client_secret: 'opaque-secret',
    scope: 'threat-intel:read threat-intel:write',
    format: 'opaque',
  },
  { client_id: 'threatlib', client_secret: 'introspector-secret', scope: '', format: 'opaque' },
] as const;

beforeAll(async () => {
  const { createServer } = await import('node:http');
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const provider = new Provider(issuer, {
    clients: CLIENTS.map(({ client_id, client_secret, scope }) => ({
      client_id,
      client_secret,
      grant_types: ['client_credentials'],
      response_types: [],
      redirect_uris: [],
      ...(scope ? { scope } : {}),
    })),
    scopes: ['threat-intel:read', 'threat-intel:write'],
    features: {
      clientCredentials: { enabled: true },
      // The API is the resource server these tokens are for; it may introspect them.
      introspection: { enabled: true, allowedPolicy: () => true },
      resourceIndicators: {
        enabled: true,
        defaultResource: () => RESOURCE,
        useGrantedResource: () => true,
        getResourceServerInfo: (_ctx: unknown, _resource: string, client: { clientId: string }) => ({
          scope: 'threat-intel:read threat-intel:write',
          audience: RESOURCE,
          accessTokenFormat: CLIENTS.find((c) => c.client_id === client.clientId)?.format ?? 'opaque',
        }),
      },
    },
  });
  server.on('request', provider.callback());
  stopProvider = () => new Promise((resolve) => server.close(() => resolve()));
});

afterAll(async () => {
  await stopProvider();
});

async function token(clientId: string, scope: string): Promise<string> {
  const client = CLIENTS.find((c) => c.client_id === clientId);
  const response = await fetch(`${issuer}/token`, {
    method: 'POST',
    headers: {
      'content-type': 'application/x-www-form-urlencoded',
      authorization: `Basic ${Buffer.from(`${clientId}:${client?.client_secret}`).toString('base64')}`,
    },
    body: new URLSearchParams({ grant_type: 'client_credentials', scope, resource: RESOURCE }),
  });
  const body = (await response.json()) as { access_token?: string; error_description?: string };
  if (!body.access_token) throw new Error(`no token: ${JSON.stringify(body)}`);
  return body.access_token;
}

async function serve(authentication: NonNullable<ThreatConfig['security']>['authentication']) {
  const client = new ThreatClient(
    {
      sources: [],
      lists: [{ name: 'example', file: exampleBlocklistPath() }],
      security: { enforceHttps: false, ...(authentication ? { authentication } : {}) },
    } as ThreatConfig,
    { env: false, logger: silentLogger },
  );
  const server = new APIServer({ port: 0 });
  server.mount('/api/v1', client);
  const base = await server.start();
  const call = (path: string, bearer: string, body?: unknown) =>
    fetch(`${base}${path}`, {
      method: body === undefined ? 'GET' : 'POST',
      headers: {
        authorization: `Bearer ${bearer}`,
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
  return { server, call };
}

const oauth = (extra: Record<string, unknown>) =>
  ({ type: 'oauth2', tokenEndpoint: `${issuer}/token`, clientId: 'threatlib', scopes: [], ...extra }) as never;

describe('oauth2 in the documented shape (tokenEndpoint, clientId, scopes) with a real OpenID provider', () => {
  it('finds the key set from the token endpoint (OpenID discovery at start) and checks tokens with it', async () => {
    const { server, call } = await serve(oauth({}));
    try {
      const reader = await token('reader', 'threat-intel:read');
      const writer = await token('writer', 'threat-intel:read threat-intel:write');
      const read = await call('/api/v1/feeds/status', reader);
      expect(read.status, await read.clone().text()).toBe(200);
      expect((await call('/api/v1/threats/scan', reader, { indicator: '45.148.10.240' })).status).toBe(403);
      expect((await call('/api/v1/threats/scan', writer, { indicator: '45.148.10.240' })).status).toBe(200);
    } finally {
      await server.stop();
    }
  });

  it('start() fails, naming what to configure, when the token endpoint has no discovery document', async () => {
    const { createServer } = await import('node:http');
    let asked = 0;
    const bare = createServer((_req, res) => {
      asked++;
      res.writeHead(404).end();
    });
    await new Promise<void>((resolve) => bare.listen(0, '127.0.0.1', resolve));
    const origin = `http://127.0.0.1:${(bare.address() as AddressInfo).port}`;
    const client = new ThreatClient(
      {
        sources: [],
        lists: [{ name: 'example', file: exampleBlocklistPath() }],
        security: {
          enforceHttps: false,
          authentication: { type: 'oauth2', tokenEndpoint: `${origin}/oauth/token`, clientId: 'c', scopes: [] },
        },
      } as ThreatConfig,
      { env: false, logger: silentLogger },
    );
    const server = new APIServer({ port: 0 }).mount('/api/v1', client);
    try {
      const failure = await server.start().then(
        () => undefined,
        (error: Error) => error,
      );
      expect(failure?.message).toMatch(/^Configuration invalid: security\.authentication: type "oauth2"/);
      expect(failure?.message).toContain(`${origin}/.well-known/openid-configuration (HTTP 404)`);
      expect(failure?.message).toContain(`${origin}/.well-known/oauth-authorization-server (HTTP 404)`);
      expect(failure?.message).toMatch(/set jwksUrl .*introspectionEndpoint .*issuer/);
      // The issuer paths the endpoint could be under, /oauth and the origin, each by both documents.
      expect(asked).toBe(4);
      expect(server.address).toBeUndefined();
      expect(client.state).toBe('idle');
    } finally {
      await server.stop();
      await new Promise((resolve) => bare.close(resolve));
    }
  });
});

describe('oauth2 with a real OpenID provider', () => {
  it('JWT access tokens via discovery: read scope for GET, write scope for POST', async () => {
    const { server, call } = await serve(oauth({ issuer }));
    try {
      const reader = await token('reader', 'threat-intel:read');
      const writer = await token('writer', 'threat-intel:read threat-intel:write');
      expect(reader.split('.')).toHaveLength(3);
      expect((await call('/api/v1/feeds/status', reader)).status).toBe(200);
      const refused = await call('/api/v1/threats/scan', reader, { indicator: '45.148.10.240' });
      expect(refused.status).toBe(403);
      expect(refused.headers.get('www-authenticate')).toMatch(/insufficient_scope.*threat-intel:write/);
      expect((await call('/api/v1/threats/scan', writer, { indicator: '45.148.10.240' })).status).toBe(200);
      expect((await call('/api/v1/feeds/status', `${reader.slice(0, -4)}AAAA`)).status).toBe(401);
    } finally {
      await server.stop();
    }
  });

  it("the configured scopes are required on every request, besides the method's own", async () => {
    const { server, call } = await serve(oauth({ issuer, scopes: ['threat-intel:write'] }));
    try {
      const reader = await token('reader', 'threat-intel:read');
      const writer = await token('writer', 'threat-intel:read threat-intel:write');
      // A GET needs only threat-intel:read by its method; the configuration adds threat-intel:write.
      const refused = await call('/api/v1/feeds/status', reader);
      expect(refused.status).toBe(403);
      expect(((await refused.json()) as { detail: string }).detail).toBe(
        'this request needs the scope threat-intel:write',
      );
      expect(refused.headers.get('www-authenticate')).toMatch(
        /insufficient_scope", scope="threat-intel:write threat-intel:read"/,
      );
      expect((await call('/api/v1/feeds/status', writer)).status).toBe(200);
    } finally {
      await server.stop();
    }
  });

  it('a token from another issuer is refused', async () => {
    const reader = await token('reader', 'threat-intel:read');
    const { server, call } = await serve(oauth({ issuer: 'https://elsewhere.example', jwksUrl: `${issuer}/jwks` }));
    try {
      const response = await call('/api/v1/feeds/status', reader);
      expect(response.status).toBe(401);
      expect(((await response.json()) as { detail: string }).detail).toMatch(/iss/);
    } finally {
      await server.stop();
    }
  });

  it('opaque access tokens via token introspection', async () => {
    const { server, call } = await serve(
      oauth({ introspectionEndpoint: `${issuer}/token/introspection`, clientSecret: 'introspector-secret' }),
    );
    try {
      const opaque = await token('opaque', 'threat-intel:read threat-intel:write');
      expect(opaque.split('.')).toHaveLength(1);
      const first = await call('/api/v1/feeds/status', opaque);
      expect(first.status, await first.clone().text()).toBe(200);
      expect((await call('/api/v1/threats/scan', opaque, { indicator: '45.148.10.240' })).status).toBe(200);
      expect((await call('/api/v1/feeds/status', 'not-a-token-the-provider-issued')).status).toBe(401);
    } finally {
      await server.stop();
    }
  });
});
