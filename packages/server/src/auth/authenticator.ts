import { hash, timingSafeEqual } from 'node:crypto';
import type { ResolvedConfig } from '@threatlib/core';
import { checkEndpoint } from '@threatlib/core/integration';
import { createRemoteJWKSet, decodeJwt, importSPKI, type JWTPayload, type JWTVerifyGetKey, jwtVerify } from 'jose';

type JoseKey = Awaited<ReturnType<typeof importSPKI>>;

import { PROBLEM_TYPES, ProblemError } from '../http/problem.js';
import { parseAuthorization } from './authorization-header.js';
import { verifyPassword } from './password-hash.js';
import { tokenRefusal, unlessItHolds } from './token-errors.js';

/** How the server itself authenticates requests, besides the client's `security.authentication`. */
export type ServerAuthentication =
  | {
      type: 'bearer';
      /** Accepted bearer tokens (compared in constant time). */
      tokens: readonly string[];
    }
  | {
      /** An open server: every request is accepted. Must be chosen explicitly. */
      type: 'none';
    };

/** Who made a request, once authenticated. */
export interface Principal {
  method: 'bearer' | 'basic' | 'jwt' | 'oauth2' | 'none';
  subject: string;
  scopes?: readonly string[];
}

/** The scope a request needs under OAuth 2.0: reading for GET and HEAD, writing for everything else. */
export function requiredScope(method: string): string {
  return method === 'GET' || method === 'HEAD' ? 'threat-intel:read' : 'threat-intel:write';
}

type Authentication = NonNullable<ResolvedConfig['security']['authentication']>;

/**
 * Checks the `Authorization` header against every method configured: the server's bearer tokens and the client's
 * `security.authentication` (basic, jwt or oauth2). A request needs to satisfy one of them.
 */
export class Authenticator {
  readonly #tokens: Buffer[];
  readonly #open: boolean;
  readonly #config: Authentication | undefined;
  readonly #enforceHttps: boolean;
  readonly #fetch: typeof fetch;
  #jwtKey: Promise<Uint8Array | JoseKey | JWTVerifyGetKey> | undefined;
  #oauth: Promise<{ jwks?: JWTVerifyGetKey; introspection?: string }> | undefined;
  readonly #basicCache = new Map<string, number>();

  constructor(
    server: ServerAuthentication | undefined,
    client: Authentication | undefined,
    options: { enforceHttps: boolean; fetch?: typeof fetch },
  ) {
    this.#open = server?.type === 'none';
    this.#tokens = server?.type === 'bearer' ? server.tokens.map((token) => Buffer.from(token, 'utf8')) : [];
    this.#config = client;
    this.#enforceHttps = options.enforceHttps;
    this.#fetch = options.fetch ?? fetch;
    if (!this.#open && this.#tokens.length === 0 && !client) {
      throw new Error(
        'APIServer needs authentication: pass authentication: {type: "bearer", tokens: [...]}, configure security.authentication on the client, or choose {type: "none"} explicitly',
      );
    }
  }

  /** The schemes accepted, for a refusal's detail: "Bearer", "Basic" or both. */
  get #schemes(): string {
    const challenge = this.challenge;
    return ['Bearer', 'Basic'].filter((scheme) => challenge.includes(`${scheme} `)).join(' or ') || 'none';
  }

  /** Which schemes a `WWW-Authenticate` challenge offers. */
  get challenge(): string {
    const schemes: string[] = [];
    if (this.#tokens.length > 0 || this.#config?.type === 'jwt' || this.#config?.type === 'oauth2') {
      schemes.push('Bearer realm="threatlib"');
    }
    if (this.#config?.type === 'basic')
      schemes.push(`Basic realm="${this.#config.realm ?? 'threatlib'}", charset="UTF-8"`);
    return schemes.join(', ');
  }

  /**
   * The synchronous part of {@link authenticate}: the principal when the request carries one of the server's bearer
   * tokens (or the server is open), else undefined and the caller goes on to `authenticate`. Saves the hot path a
   * promise per request.
   */
  authenticateBearerSync(header: string | undefined): Principal | undefined {
    if (this.#open) return { method: 'none', subject: 'anonymous' };
    if (this.#tokens.length === 0) return undefined;
    const parsed = parseAuthorization(header);
    if (parsed.ok && parsed.scheme === 'bearer' && this.#matchesToken(parsed.credentials))
      return { method: 'bearer', subject: 'token' };
    return undefined;
  }

  /**
   * What can be decided without waiting: the principal for one of the server's bearer tokens (or an open server), a
   * refusal (401) for a malformed header, a scheme not accepted, or a bearer token that is none of the server's when
   * no JWT or OAuth 2.0 verification is configured; undefined when the credentials need {@link authenticate} (a JWT,
   * an OAuth 2.0 token, a basic user). Lets a caller count a refusal before the next request is looked at.
   */
  authenticateSync(header: string | undefined): Principal | ProblemError | undefined {
    if (this.#open) return { method: 'none', subject: 'anonymous' };
    const parsed = parseAuthorization(header);
    if (!parsed.ok) return this.#unauthorized(parsed.reason);
    const { scheme, credentials } = parsed;
    if (scheme === 'bearer') {
      if (this.#matchesToken(credentials)) return { method: 'bearer', subject: 'token' };
      if (this.#config?.type === 'jwt' || this.#config?.type === 'oauth2') return undefined;
      return this.#unauthorized('invalid bearer token');
    }
    if (scheme === 'basic' && this.#config?.type === 'basic') return undefined;
    // The scheme is not repeated: a client that put its token where the scheme goes would get it back.
    return this.#unauthorized(`the scheme of the Authorization header is not one accepted here (${this.#schemes})`);
  }

  /**
   * Authenticates a request by its `Authorization` header (RFC 9110 §11.4: the scheme, one or more spaces, the
   * credentials). No refusal repeats the header or anything decoded from it.
   *
   * @throws {ProblemError} 401 without valid credentials, 403 when an OAuth 2.0 token lacks the scope.
   */
  async authenticate(header: string | undefined, method: string): Promise<Principal> {
    const decided = this.authenticateSync(header);
    if (decided instanceof ProblemError) throw decided;
    if (decided) return decided;
    // authenticateSync leaves only these: a bearer token to verify as a JWT or OAuth 2.0 token, or basic credentials.
    const { scheme, credentials } = parseAuthorization(header) as { scheme: string; credentials: string };
    if (scheme === 'basic') return this.#verifyBasic(credentials);
    if (this.#config?.type === 'jwt') return this.#verifyJwt(credentials);
    return this.#verifyOauth(credentials, method);
  }

  #matchesToken(token: string): boolean {
    const candidate = Buffer.from(token, 'utf8');
    // Compare against every token, always, so timing does not tell how many there are or which matched. A token of
    // another length is compared with the known one itself: the time then tells only that the lengths differ (not
    // a byte of any token), and the hot path needs no hash per request.
    let match = false;
    for (const known of this.#tokens) {
      const sameLength = candidate.length === known.length;
      const equal = timingSafeEqual(sameLength ? candidate : known, known);
      match = (sameLength && equal) || match;
    }
    return match;
  }

  async #verifyBasic(credentials: string): Promise<Principal> {
    const config = this.#config as Extract<Authentication, { type: 'basic' }>;
    const decoded = Buffer.from(credentials, 'base64').toString('utf8');
    const colon = decoded.indexOf(':');
    if (colon < 1) throw this.#unauthorized('malformed basic credentials');
    const user = decoded.slice(0, colon);
    const password = decoded.slice(colon + 1);
    const hash = config.users?.[user];
    // scrypt is slow on purpose; remember a success for a minute so a client sending the same header is not re-hashed.
    const cacheKey = digest(`${user}\u0000${password}\u0000${hash ?? ''}`).toString('hex');
    const until = this.#basicCache.get(cacheKey);
    if (until !== undefined && until > Date.now()) return { method: 'basic', subject: user };
    if (!hash || !(await verifyPassword(password, hash))) throw this.#unauthorized('invalid user name or password');
    if (this.#basicCache.size > 1000) this.#basicCache.clear();
    this.#basicCache.set(cacheKey, Date.now() + 60_000);
    return { method: 'basic', subject: user };
  }

  async #verifyJwt(token: string): Promise<Principal> {
    const config = this.#config as Extract<Authentication, { type: 'jwt' }>;
    this.#jwtKey ??= this.#jwtKeyFor(config);
    const key = await this.#jwtKey;
    try {
      const { payload } = await jwtVerify(token, key as Parameters<typeof jwtVerify>[1], {
        algorithms: config.algorithms ?? ['HS256', 'RS256', 'ES256'],
        ...(config.issuer ? { issuer: config.issuer } : {}),
        ...(config.audience ? { audience: config.audience } : {}),
      });
      return { method: 'jwt', subject: payload.sub ?? 'unknown', scopes: scopesOf(payload) };
    } catch (error) {
      throw this.#unauthorized(`invalid token: ${tokenRefusal(error)}`);
    }
  }

  async #jwtKeyFor(config: Extract<Authentication, { type: 'jwt' }>): Promise<Uint8Array | JoseKey | JWTVerifyGetKey> {
    if (config.jwksUrl)
      return createRemoteJWKSet(checkEndpoint(config.jwksUrl, 'JWKS URL', { enforceHttps: this.#enforceHttps }));
    if (config.publicKey) {
      const algorithm = config.algorithms?.find((a) => a !== 'HS256') ?? 'RS256';
      return importSPKI(config.publicKey, algorithm);
    }
    if (config.secret) return new TextEncoder().encode(config.secret);
    throw new Error('security.authentication (jwt) needs a secret, a publicKey or a jwksUrl');
  }

  async #verifyOauth(token: string, method: string): Promise<Principal> {
    const config = this.#config as Extract<Authentication, { type: 'oauth2' }>;
    this.#oauth ??= this.#discover(config);
    const { jwks, introspection } = await this.#oauth;
    let subject = 'unknown';
    let scopes: string[] = [];
    if (looksLikeJwt(token) && jwks) {
      try {
        const { payload } = await jwtVerify(token, jwks, config.issuer ? { issuer: config.issuer } : {});
        subject = payload.sub ?? payload.client_id?.toString() ?? 'unknown';
        scopes = scopesOf(payload);
      } catch (error) {
        throw this.#unauthorized(`invalid access token: ${tokenRefusal(error)}`);
      }
    } else if (introspection) {
      const answer = await this.#introspect(introspection, token, config);
      if (answer.active !== true) throw this.#unauthorized('the access token is not active');
      if (config.issuer && answer.iss && answer.iss !== config.issuer)
        throw this.#unauthorized('the access token is from another issuer');
      subject = String(answer.sub ?? answer.client_id ?? 'unknown');
      scopes = typeof answer.scope === 'string' ? answer.scope.split(' ').filter(Boolean) : [];
    } else {
      throw this.#unauthorized(
        'the access token cannot be checked: configure jwksUrl, introspectionEndpoint or issuer',
      );
    }
    // The configured scopes are required on every request, and the method's own scope (read or write) besides.
    const needed = [...new Set([...config.scopes, requiredScope(method)])];
    const missing = needed.filter((scope) => !scopes.includes(scope));
    if (missing.length > 0) {
      throw new ProblemError(
        {
          type: PROBLEM_TYPES.forbidden,
          title: 'Insufficient scope',
          status: 403,
          detail: `this request needs the scope${missing.length > 1 ? 's' : ''} ${missing.join(' ')}`,
        },
        { 'www-authenticate': `Bearer realm="threatlib", error="insufficient_scope", scope="${needed.join(' ')}"` },
      );
    }
    return { method: 'oauth2', subject, scopes };
  }

  async #discover(
    config: Extract<Authentication, { type: 'oauth2' }>,
  ): Promise<{ jwks?: JWTVerifyGetKey; introspection?: string }> {
    const policy = { enforceHttps: this.#enforceHttps };
    let jwksUrl = config.jwksUrl;
    let introspection = config.introspectionEndpoint;
    if (!jwksUrl && !introspection && config.issuer) {
      // OpenID Connect discovery (or RFC 8414): the issuer publishes where its keys and introspection live.
      const url = checkEndpoint(
        `${config.issuer.replace(/\/+$/, '')}/.well-known/openid-configuration`,
        'OAuth 2.0 issuer',
        policy,
      );
      let metadata: { jwks_uri?: string; introspection_endpoint?: string };
      try {
        const response = await this.#fetch(url);
        if (!response.ok) throw new Error(`HTTP ${response.status}`);
        metadata = (await response.json()) as typeof metadata;
      } catch (error) {
        // Forget the failure so the next request tries again.
        this.#oauth = undefined;
        throw new ProblemError({
          type: PROBLEM_TYPES.authUnavailable,
          title: 'Authentication unavailable',
          status: 503,
          detail: `the OAuth 2.0 issuer's metadata could not be read (${(error as Error).message})`,
        });
      }
      jwksUrl = metadata.jwks_uri;
      introspection = metadata.introspection_endpoint;
    }
    return {
      ...(jwksUrl ? { jwks: createRemoteJWKSet(checkEndpoint(jwksUrl, 'JWKS URL', policy)) } : {}),
      ...(introspection ? { introspection: checkEndpoint(introspection, 'introspection endpoint', policy).href } : {}),
    };
  }

  async #introspect(
    endpoint: string,
    token: string,
    config: Extract<Authentication, { type: 'oauth2' }>,
  ): Promise<Record<string, unknown>> {
    const response = await this.#fetch(endpoint, {
      method: 'POST',
      headers: {
        'content-type': 'application/x-www-form-urlencoded',
        accept: 'application/json',
        authorization: `Basic ${Buffer.from(`${encodeURIComponent(config.clientId)}:${encodeURIComponent(config.clientSecret ?? '')}`).toString('base64')}`,
      },
      body: new URLSearchParams({ token, token_type_hint: 'access_token' }),
    });
    if (!response.ok) {
      const body = (await response.json().catch(() => ({}))) as { error?: unknown; error_description?: unknown };
      // The provider's words, unless they quote the token (the request's header).
      const said = [body.error, body.error_description].filter((v) => typeof v === 'string').join(': ');
      const reason = unlessItHolds(said, token);
      throw this.#unauthorized(`token introspection failed (HTTP ${response.status}${reason ? `, ${reason}` : ''})`);
    }
    return (await response.json()) as Record<string, unknown>;
  }

  #unauthorized(detail: string): ProblemError {
    return new ProblemError(
      { type: PROBLEM_TYPES.unauthorized, title: 'Unauthorized', status: 401, detail },
      this.challenge ? { 'www-authenticate': this.challenge } : {},
    );
  }
}

function digest(text: string): Buffer {
  // The one-shot form: half the cost of createHash().update().digest().
  return hash('sha256', text, 'buffer');
}

function looksLikeJwt(token: string): boolean {
  if (!/^[\w-]+\.[\w-]+\.[\w-]*$/.test(token)) return false;
  try {
    decodeJwt(token);
    return true;
  } catch {
    return false;
  }
}

function scopesOf(payload: JWTPayload): string[] {
  if (typeof payload.scope === 'string') return payload.scope.split(' ').filter(Boolean);
  if (Array.isArray(payload.scp)) return payload.scp.map(String);
  return [];
}
