// The Microsoft Entra ID token authority as the Sentinel APIs' clients use it: OpenID metadata and the v2.0 token
// endpoint with the client-credentials grant. Sources:
// - Client credentials flow (request, `scope` with `/.default`, answers and error body):
//   https://learn.microsoft.com/en-us/entra/identity-platform/v2-oauth2-client-creds-grant-flow
// - AADSTS error codes (7000215 invalid secret, 700016 unknown application, 90002 unknown tenant, 1002012 scope
//   without /.default, 500011 unknown resource, 70003 unsupported grant):
//   https://learn.microsoft.com/en-us/entra/identity-platform/reference-error-codes
// - OpenID Connect metadata (`/{tenant}/v2.0/.well-known/openid-configuration`), which MSAL reads before the token
//   request when instance discovery is off:
//   https://learn.microsoft.com/en-us/entra/identity-platform/v2-protocols-oidc
// - Access token claims (aud, iss, tid, appid, oid, iat, nbf, exp):
//   https://learn.microsoft.com/en-us/entra/identity-platform/access-token-claims-reference
import { createHmac, randomBytes, randomUUID, timingSafeEqual } from 'node:crypto';
import type { EmulatorRequest, EmulatorResponse } from '../vendor.js';

/** An application registration the authority knows: its client id and secret. */
export interface EntraApplication {
  clientId: string;
  clientSecret: string;
  /** The service principal's object id (the token's `oid`). */
  objectId: string;
}

/** The resources the authority issues tokens for, by their application ID URI (without a trailing slash). */
export const ENTRA_RESOURCES = [
  'https://monitor.azure.com',
  'https://api.loganalytics.io',
  'https://management.azure.com',
  'https://management.core.windows.net',
] as const;

/** Lifetime of an access token, seconds (Entra's default is 60 to 90 minutes; the answer says 3599). */
const TOKEN_LIFETIME_SECONDS = 3599;

/** The claims of an access token the authority issued. */
interface AccessTokenClaims {
  aud: string;
  iss: string;
  tid: string;
  appid: string;
  oid: string;
  iat: number;
  nbf: number;
  exp: number;
}

/** Why a bearer token is refused. */
type TokenProblem = 'missing' | 'malformed' | 'signature' | 'expired' | 'audience' | 'tenant';

/** The verdict on a request's `Authorization` header. */
export type TokenCheck = { ok: true; claims: AccessTokenClaims } | { ok: false; problem: TokenProblem; detail: string };

/**
 * A token authority for one tenant: issues signed JWT access tokens for the known applications and checks them for
 * the emulated APIs (signature, expiry, audience, tenant).
 */
export class EntraAuthority {
  readonly tenantId: string;
  readonly #applications: Map<string, EntraApplication>;
  readonly #key = randomBytes(32);
  readonly #now: () => number;
  /** Tokens issued, by audience, for tests that look at what was asked. */
  readonly issued: Array<{ clientId: string; audience: string }> = [];

  constructor(tenantId: string, applications: readonly EntraApplication[], now: () => number) {
    this.tenantId = tenantId;
    this.#applications = new Map(applications.map((app) => [app.clientId, app]));
    this.#now = now;
  }

  /** Whether the request is for the authority (`/{tenant}/oauth2/v2.0/token` or the OpenID metadata). */
  handles(request: EmulatorRequest): boolean {
    return /^\/[^/]+\/(oauth2\/v2\.0\/token|v2\.0\/\.well-known\/openid-configuration)$/.test(request.path);
  }

  handle(request: EmulatorRequest): EmulatorResponse {
    const [, tenant = '', ...rest] = request.path.split('/');
    if (rest.join('/') === 'v2.0/.well-known/openid-configuration') return this.#metadata(request, tenant);
    if (request.method !== 'POST') {
      return aadError(405, 'invalid_request', 900561, 'The endpoint only accepts POST requests.', this.#now());
    }
    return this.#token(request, tenant);
  }

  /** Checks a bearer token for an API whose accepted audiences are `audiences`. */
  check(request: EmulatorRequest, audiences: readonly string[]): TokenCheck {
    const header = request.headers.authorization;
    if (typeof header !== 'string' || header.trim() === '') {
      return { ok: false, problem: 'missing', detail: "The 'Authorization' header is missing." };
    }
    const match = /^Bearer\s+(\S+)$/i.exec(header.trim());
    if (!match?.[1]) {
      return { ok: false, problem: 'malformed', detail: "The 'Authorization' header is not a Bearer token." };
    }
    const [head, body, signature] = match[1].split('.');
    if (!head || !body || !signature) {
      return { ok: false, problem: 'malformed', detail: 'The access token is not a JWT.' };
    }
    const expected = this.#sign(`${head}.${body}`);
    const given = Buffer.from(signature, 'base64url');
    if (given.length !== expected.length || !timingSafeEqual(given, expected)) {
      return { ok: false, problem: 'signature', detail: 'The access token signature is invalid.' };
    }
    let claims: AccessTokenClaims;
    try {
      claims = JSON.parse(Buffer.from(body, 'base64url').toString('utf8')) as AccessTokenClaims;
    } catch {
      return { ok: false, problem: 'malformed', detail: 'The access token is not a JWT.' };
    }
    const now = Math.floor(this.#now() / 1000);
    if (claims.exp <= now) {
      return {
        ok: false,
        problem: 'expired',
        detail: `The access token expiry UTC time '${utc(claims.exp)}' is earlier than current UTC time '${utc(now)}'.`,
      };
    }
    if (!audiences.map(trimSlash).includes(trimSlash(claims.aud))) {
      return { ok: false, problem: 'audience', detail: claims.aud };
    }
    if (claims.tid !== this.tenantId) {
      return { ok: false, problem: 'tenant', detail: `The access token is from the wrong issuer '${claims.iss}'.` };
    }
    return { ok: true, claims };
  }

  /** A signed access token for `clientId` and `audience` (for tests that need one without the token endpoint). */
  issue(clientId: string, audience: string, lifetimeSeconds = TOKEN_LIFETIME_SECONDS): string {
    const app = this.#applications.get(clientId);
    const iat = Math.floor(this.#now() / 1000);
    const claims: AccessTokenClaims = {
      aud: audience,
      iss: `https://sts.windows.net/${this.tenantId}/`,
      tid: this.tenantId,
      appid: clientId,
      oid: app?.objectId ?? randomUUID(),
      iat,
      nbf: iat,
      exp: iat + lifetimeSeconds,
    };
    const head = Buffer.from(JSON.stringify({ typ: 'JWT', alg: 'HS256' })).toString('base64url');
    const body = Buffer.from(JSON.stringify(claims)).toString('base64url');
    this.issued.push({ clientId, audience });
    return `${head}.${body}.${this.#sign(`${head}.${body}`).toString('base64url')}`;
  }

  #sign(data: string): Buffer {
    return createHmac('sha256', this.#key).update(data).digest();
  }

  #metadata(request: EmulatorRequest, tenant: string): EmulatorResponse {
    if (tenant !== this.tenantId) return unknownTenant(tenant, this.#now());
    const origin = `https://${request.headers.host ?? '127.0.0.1'}`;
    return {
      status: 200,
      body: {
        token_endpoint: `${origin}/${tenant}/oauth2/v2.0/token`,
        token_endpoint_auth_methods_supported: ['client_secret_post', 'private_key_jwt', 'client_secret_basic'],
        jwks_uri: `${origin}/${tenant}/discovery/v2.0/keys`,
        response_modes_supported: ['query', 'fragment', 'form_post'],
        subject_types_supported: ['pairwise'],
        id_token_signing_alg_values_supported: ['RS256'],
        response_types_supported: ['code', 'id_token', 'code id_token', 'id_token token'],
        scopes_supported: ['openid', 'profile', 'email', 'offline_access'],
        issuer: `${origin}/${tenant}/v2.0`,
        authorization_endpoint: `${origin}/${tenant}/oauth2/v2.0/authorize`,
        end_session_endpoint: `${origin}/${tenant}/oauth2/v2.0/logout`,
        tenant_region_scope: 'EU',
        cloud_instance_name: 'microsoftonline.com',
      },
    };
  }

  #token(request: EmulatorRequest, tenant: string): EmulatorResponse {
    const now = this.#now();
    if (tenant !== this.tenantId) return unknownTenant(tenant, now);
    const type = String(request.headers['content-type'] ?? '').toLowerCase();
    if (!type.startsWith('application/x-www-form-urlencoded')) {
      return aadError(
        400,
        'invalid_request',
        900144,
        "AADSTS900144: The request body must contain the following parameter: 'grant_type'.",
        now,
      );
    }
    const form = new URLSearchParams(request.body);
    const grant = form.get('grant_type');
    if (!grant) {
      return aadError(
        400,
        'invalid_request',
        900144,
        "AADSTS900144: The request body must contain the following parameter: 'grant_type'.",
        now,
      );
    }
    if (grant !== 'client_credentials') {
      return aadError(
        400,
        'unsupported_grant_type',
        70003,
        `AADSTS70003: The app requested an unsupported grant type '${grant}'.`,
        now,
      );
    }
    const clientId = form.get('client_id') ?? '';
    const app = this.#applications.get(clientId);
    if (!app) {
      return aadError(
        400,
        'unauthorized_client',
        700016,
        `AADSTS700016: Application with identifier '${clientId}' was not found in the directory '${tenant}'. This can happen if the application has not been installed by the administrator of the tenant or consented to by any user in the tenant. You may have sent your authentication request to the wrong tenant.`,
        now,
      );
    }
    const secret = form.get('client_secret');
    if (!secret) {
      return aadError(
        401,
        'invalid_client',
        7000216,
        "AADSTS7000216: 'client_assertion', 'client_secret' or 'request' is required for the 'client_credentials' grant type.",
        now,
      );
    }
    if (!sameText(secret, app.clientSecret)) {
      return aadError(
        401,
        'invalid_client',
        7000215,
        `AADSTS7000215: Invalid client secret provided. Ensure the secret being sent in the request is the client secret value, not the client secret ID, for a secret added to app '${clientId}'.`,
        now,
      );
    }
    const scope = (form.get('scope') ?? '')
      .split(/\s+/)
      .filter((s) => s && !['openid', 'profile', 'offline_access'].includes(s));
    const resource =
      scope.length === 1 && scope[0]?.endsWith('/.default') ? scope[0].slice(0, -'/.default'.length) : undefined;
    if (resource === undefined) {
      return aadError(
        400,
        'invalid_scope',
        1002012,
        `AADSTS1002012: The provided value for scope ${scope.join(' ')} is not valid. Client credential flows must have a scope value with /.default suffixed to the resource identifier (application ID URI).`,
        now,
      );
    }
    const audience = trimSlash(resource);
    if (!(ENTRA_RESOURCES as readonly string[]).includes(audience)) {
      return aadError(
        400,
        'invalid_resource',
        500011,
        `AADSTS500011: The resource principal named ${resource} was not found in the tenant named ${tenant}. This can happen if the application has not been installed by the administrator of the tenant or consented to by any user in the tenant. You might have sent your authentication request to the wrong tenant.`,
        now,
      );
    }
    // The `aud` claim is the resource's application ID URI as registered: ARM's ends with a slash.
    const aud = audience.startsWith('https://management.') ? `${audience}/` : audience;
    return {
      status: 200,
      headers: { 'cache-control': 'no-store, no-cache', pragma: 'no-cache' },
      body: {
        token_type: 'Bearer',
        expires_in: TOKEN_LIFETIME_SECONDS,
        ext_expires_in: TOKEN_LIFETIME_SECONDS,
        access_token: this.issue(clientId, aud),
      },
    };
  }
}

/** Entra's error body: `error`, `error_description` (with trace, correlation and time lines), `error_codes`... */
function aadError(status: number, error: string, code: number, description: string, now: number): EmulatorResponse {
  const traceId = randomUUID();
  const correlationId = randomUUID();
  const timestamp = new Date(now)
    .toISOString()
    .replace('T', ' ')
    .replace(/\.\d+Z$/, 'Z');
  return {
    status,
    headers: { 'cache-control': 'no-store, no-cache', pragma: 'no-cache' },
    body: {
      error,
      error_description: `${description}\r\nTrace ID: ${traceId}\r\nCorrelation ID: ${correlationId}\r\nTimestamp: ${timestamp}`,
      error_codes: [code],
      timestamp,
      trace_id: traceId,
      correlation_id: correlationId,
      error_uri: `https://login.microsoftonline.com/error?code=${code}`,
    },
  };
}

function unknownTenant(tenant: string, now: number): EmulatorResponse {
  return aadError(
    400,
    'invalid_request',
    90002,
    `AADSTS90002: Tenant '${tenant}' not found. Check to make sure you have the correct tenant ID and are signing into the correct cloud. Check with your subscription administrator, this may happen if there are no active subscriptions for the tenant.`,
    now,
  );
}

function trimSlash(uri: string): string {
  return uri.endsWith('/') ? uri.slice(0, -1) : uri;
}

function utc(seconds: number): string {
  return new Date(seconds * 1000)
    .toISOString()
    .replace('T', ' ')
    .replace(/\.\d+Z$/, '');
}

function sameText(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}
