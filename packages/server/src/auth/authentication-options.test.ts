// Every option of `security.authentication` changes how the server authenticates a request, or is the client's own
// (core's every-option test shows those). The options are read from core's schema: one added without a check here
// fails the first test.
import { generateKeyPairSync } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mergeConfig, parseConfig, ThreatConfigSchema } from '@threatlib/core';
import { exportJWK, SignJWT } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Authenticator } from './authenticator.js';
import { hashPassword } from './password-hash.js';

const SECRET = 'a-long-shared-secret-for-hs256-checks';
const OTHER_SECRET = 'another-long-shared-secret-for-hs256';
const rsa = generateKeyPairSync('rsa', { modulusLength: 2048 });
const RSA_PEM = rsa.publicKey.export({ type: 'spki', format: 'pem' }).toString();
let passwordHash: string;

/** A tiny identity provider: OpenID discovery, a JWKS, and token introspection that knows one opaque token. */
let idp: Server;
let issuer: string;
const introspections: Array<string | undefined> = [];

beforeAll(async () => {
  passwordHash = await hashPassword('alice-password');
  const jwk = { ...(await exportJWK(rsa.publicKey)), kid: 'rsa', alg: 'RS256', use: 'sig' };
  idp = createServer((req, res) => {
    const json = (body: unknown) =>
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(body));
    if (req.url === '/.well-known/openid-configuration') return json({ issuer, jwks_uri: `${issuer}/jwks` });
    if (req.url === '/jwks') return json({ keys: [jwk] });
    if (req.url === '/introspect') {
      introspections.push(req.headers.authorization);
      let body = '';
      req.on('data', (chunk: Buffer) => {
        body += chunk.toString('utf8');
      });
      req.on('end', () =>
        json(
          new URLSearchParams(body).get('token') === 'opaque-token'
            ? { active: true, sub: 'service', scope: 'threat-intel:read' }
            : { active: false },
        ),
      );
      return;
    }
    res.writeHead(404).end();
  });
  await new Promise<void>((resolve) => idp.listen(0, '127.0.0.1', resolve));
  issuer = `http://127.0.0.1:${(idp.address() as AddressInfo).port}`;
});

afterAll(async () => {
  await new Promise((resolve) => idp.close(resolve));
});

const hs256 = (claims: Record<string, unknown>, secret = SECRET) =>
  new SignJWT(claims)
    .setProtectedHeader({ alg: 'HS256' })
    .setSubject('someone')
    .setIssuedAt()
    .setExpirationTime('5m')
    .sign(new TextEncoder().encode(secret));
const rs256 = (claims: Record<string, unknown>) =>
  new SignJWT(claims)
    .setProtectedHeader({ alg: 'RS256', kid: 'rsa' })
    .setSubject('someone')
    .setIssuedAt()
    .setExpirationTime('5m')
    .sign(rsa.privateKey);

type Auth = Record<string, unknown>;

/** How a server with the client's `authentication` (and a bearer token of its own) answers `header` on a GET. */
async function answer(authentication: Auth | undefined, header: string, method = 'GET') {
  const config = parseConfig({
    sources: ['feed_urls'],
    security: { enforceHttps: false, ...(authentication ? { authentication } : {}) },
  });
  let authenticator: Authenticator;
  try {
    authenticator = new Authenticator(
      { type: 'bearer', tokens: ['the-servers-own-token'] },
      config.security.authentication,
      { enforceHttps: false },
    );
  } catch (error) {
    // A configuration that could accept no request is refused when the server is built (check-authentication.ts).
    return { refused: (error as Error).message };
  }
  try {
    const principal = await authenticator.authenticate(header, method);
    return { status: 200, method: principal.method, challenge: authenticator.challenge };
  } catch (error) {
    return { status: (error as { problem?: { status?: number } }).problem?.status, challenge: authenticator.challenge };
  }
}

interface ServerCheck {
  without: Auth | undefined | (() => Auth | undefined);
  with: Auth | (() => Auth);
  /** The Authorization header sent (made once the identity provider listens). */
  header: () => Promise<string> | string;
}

const BASIC = `Basic ${Buffer.from('alice:alice-password').toString('base64')}`;
const basic = (extra: Auth = {}) => ({ type: 'basic', users: { alice: passwordHash }, ...extra });
const jwt = (extra: Auth = {}) => ({ type: 'jwt', secret: SECRET, ...extra });
const oauth2 = (extra: Auth = {}) => ({
  type: 'oauth2',
  tokenEndpoint: `${issuer}/token`,
  clientId: 'threatlib',
  ...extra,
});
const SCOPED = { scope: 'threat-intel:read' };

const CHECKS: Record<string, ServerCheck | { core: true }> = {
  '[type=basic].type': { without: undefined, with: () => basic(), header: () => BASIC },
  '[type=basic].users': { without: { type: 'basic' }, with: () => basic(), header: () => BASIC },
  '[type=basic].realm': {
    without: () => basic(),
    with: () => basic({ realm: 'intel' }),
    header: () => 'Basic bm86bm8=',
  },
  '[type=jwt].type': { without: undefined, with: jwt(), header: async () => `Bearer ${await hs256({})}` },
  '[type=jwt].secret': {
    without: jwt(),
    with: jwt({ secret: OTHER_SECRET }),
    header: async () => `Bearer ${await hs256({}, OTHER_SECRET)}`,
  },
  '[type=jwt].publicKey': {
    without: jwt(),
    with: { type: 'jwt', publicKey: RSA_PEM },
    header: async () => `Bearer ${await rs256({})}`,
  },
  '[type=jwt].jwksUrl': {
    without: jwt(),
    with: () => ({ type: 'jwt', jwksUrl: `${issuer}/jwks` }),
    header: async () => `Bearer ${await rs256({})}`,
  },
  '[type=jwt].issuer': {
    without: jwt(),
    with: jwt({ issuer: 'https://expected.example' }),
    header: async () => `Bearer ${await hs256({ iss: 'https://other.example' })}`,
  },
  '[type=jwt].audience': {
    without: jwt(),
    with: jwt({ audience: 'threatlib' }),
    header: async () => `Bearer ${await hs256({ aud: 'another-api' })}`,
  },
  '[type=jwt].algorithms': {
    without: jwt(),
    with: jwt({ algorithms: ['RS256'] }),
    header: async () => `Bearer ${await hs256({})}`,
  },
  '[type=oauth2].type': { core: true },
  '[type=oauth2].tokenEndpoint': { core: true },
  '[type=oauth2].clientId': {
    without: () => oauth2({ introspectionEndpoint: `${issuer}/introspect`, clientSecret: 's' }),
    with: () => oauth2({ introspectionEndpoint: `${issuer}/introspect`, clientSecret: 's', clientId: 'another' }),
    header: () => 'Bearer opaque-token',
  },
  '[type=oauth2].clientSecret': {
    without: () => oauth2({ introspectionEndpoint: `${issuer}/introspect` }),
    with: () => oauth2({ introspectionEndpoint: `${issuer}/introspect`, clientSecret: 'introspection-secret' }),
    header: () => 'Bearer opaque-token',
  },
  '[type=oauth2].scopes': {
    without: () => oauth2({ jwksUrl: `${issuer}/jwks` }),
    with: () => oauth2({ jwksUrl: `${issuer}/jwks`, scopes: ['threat-intel:write'] }),
    header: async () => `Bearer ${await rs256(SCOPED)}`,
  },
  '[type=oauth2].issuer': {
    without: () => oauth2(),
    with: () => oauth2({ issuer }),
    header: async () => `Bearer ${await rs256({ ...SCOPED, iss: issuer })}`,
  },
  '[type=oauth2].jwksUrl': {
    without: () => oauth2(),
    with: () => oauth2({ jwksUrl: `${issuer}/jwks` }),
    header: async () => `Bearer ${await rs256(SCOPED)}`,
  },
  '[type=oauth2].introspectionEndpoint': {
    without: () => oauth2(),
    with: () => oauth2({ introspectionEndpoint: `${issuer}/introspect` }),
    header: () => 'Bearer opaque-token',
  },
};

/** The options of `security.authentication`, from core's schema: `[type=jwt].audience`... */
function authenticationOptions(): string[] {
  const security = (
    ThreatConfigSchema.shape.security as unknown as { unwrap(): { shape: Record<string, unknown> } }
  ).unwrap().shape;
  const union = (
    security.authentication as { unwrap(): { options: Array<{ shape: Record<string, unknown> }> } }
  ).unwrap();
  return union.options.flatMap((member) => {
    const type = (member.shape.type as { value: string }).value;
    return Object.keys(member.shape).map((key) => `[type=${type}].${key}`);
  });
}

const resolve = <T>(value: T | (() => T)): T => (typeof value === 'function' ? (value as () => T)() : value);

describe('every option of security.authentication', () => {
  const options = authenticationOptions();

  it('has one check per option (an option added without one fails here)', () => {
    expect(options.length).toBeGreaterThan(15);
    expect(options.filter((o) => !(o in CHECKS))).toEqual([]);
    expect(Object.keys(CHECKS).filter((o) => !options.includes(o))).toEqual([]);
  });

  for (const option of options) {
    const check = CHECKS[option];
    if (!check) continue;
    const path = `security.authentication${option}`;
    if ('core' in check) {
      it(`${path} is the client's own: core's every-option test shows it`, () => {
        const core = readFileSync(
          new URL('../../../core/src/config/every-option/security.test-suite.ts', import.meta.url),
          'utf8',
        );
        expect(core).toContain(`'${path}': effect(`);
      });
      continue;
    }
    it(`${path} changes how a request is authenticated`, async () => {
      const header = await check.header();
      introspections.length = 0;
      const before = { ...(await answer(resolve(check.without), header)), introspected: [...introspections] };
      introspections.length = 0;
      const after = {
        ...(await answer(mergeConfig<Auth>(resolve(check.without) ?? {}, resolve(check.with)), header)),
        introspected: [...introspections],
      };
      expect(after, `${path} made no difference: ${JSON.stringify(before)}`).not.toEqual(before);
    });
  }
});
