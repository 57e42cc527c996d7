import { hash, timingSafeEqual } from 'node:crypto';
import { ConfigurationError } from '@threatlib/core';
import { INSPECT_CUSTOM, type InspectFunction, type InspectOptions, inspectView } from '@threatlib/core/integration';
import { createRemoteJWKSet, decodeJwt, type JWTPayload, type JWTVerifyGetKey, jwtVerify } from 'jose';
import { PROBLEM_TYPES, ProblemError } from '../http/problem.js';
import { parseAuthorization } from './authorization-header.js';
import { type Authentication, checkAuthentication, type JwtVerification } from './check-authentication.js';
import {
  type AuthorizationServer,
  DEFAULT_DISCOVERY_TIMEOUT_MS,
  discoverAuthorizationServer,
} from './oauth2-discovery.js';
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

type OAuth2 = Extract<Authentication, { type: 'oauth2' }>;

/** How an OAuth 2.0 access token is checked, once discovery (if any) is done. */
interface OAuthChecks {
  jwks?: JWTVerifyGetKey;
  introspection?: string;
  /** The issuer tokens must come from: the configured one, else the one discovered from the token endpoint. */
  issuer?: string;
}

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
  readonly #discoveryTimeoutMs: number;
  readonly #jwt: JwtVerification | undefined;
  #jwks: JWTVerifyGetKey | undefined;
  #oauth: Promise<OAuthChecks> | undefined;
  readonly #basicCache = new Map<string, number>();

  /**
   * @throws {ConfigurationError} when `client` cannot authenticate any request (a JWT configuration without a key, a
   *   basic user whose entry is not a password hash, an endpoint `enforceHttps` refuses...), or a server token is
   *   not a token; the message names what is missing.
   * @throws {Error} when neither `server` nor `client` configures authentication.
   */
  constructor(
    server: ServerAuthentication | undefined,
    client: Authentication | undefined,
    options: {
      enforceHttps: boolean;
      fetch?: typeof fetch;
      /** Most time {@link prepare} may spend reading an OAuth 2.0 issuer's metadata, in ms (default 5000). */
      discoveryTimeoutMs?: number;
    },
  ) {
    this.#open = server?.type === 'none';
    this.#tokens = server?.type === 'bearer' ? checkServerTokens(server.tokens) : [];
    this.#config = client;
    this.#enforceHttps = options.enforceHttps;
    this.#fetch = options.fetch ?? fetch;
    this.#discoveryTimeoutMs = options.discoveryTimeoutMs ?? DEFAULT_DISCOVERY_TIMEOUT_MS;
    if (!this.#open && this.#tokens.length === 0 && !client) {
      throw new Error(
        'APIServer needs authentication: pass authentication: {type: "bearer", tokens: [...]}, configure security.authentication on the client, or choose {type: "none"} explicitly',
      );
    }
    this.#jwt = client ? checkAuthentication(client, { enforceHttps: this.#enforceHttps }) : undefined;
  }

  /**
   * What can only be checked over the network, done before the server listens: for `oauth2` without `jwksUrl` or
   * `introspectionEndpoint`, reading the authorization server's metadata (from `issuer`, else found from
   * `tokenEndpoint`), within `discoveryTimeoutMs`. `APIServer.start()` calls it; requests authenticated without it
   * discover on first use.
   *
   * @throws {ConfigurationError} naming what was tried and what to configure when access tokens cannot be checked.
   */
  async prepare(): Promise<void> {
    if (this.#config?.type !== 'oauth2') return;
    const discovering = this.#discover(this.#config);
    this.#oauth = discovering;
    try {
      await discovering;
    } catch (error) {
      this.#oauth = undefined;
      throw error;
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

  /** What `JSON.stringify` writes of the authenticator: the methods it accepts, never a token, secret or hash. */
  toJSON(): { methods: string[]; challenge: string } {
    const methods = this.#open ? ['none'] : this.#tokens.length > 0 ? ['bearer'] : [];
    if (this.#config) methods.push(this.#config.type);
    return { methods, challenge: this.challenge };
  }

  /** What `util.inspect` and `console.log` show of the authenticator: {@link toJSON}'s view. */
  [INSPECT_CUSTOM](depth: number, options: InspectOptions, inspect: InspectFunction): string {
    return inspectView('Authenticator', this.toJSON(), depth, options, inspect);
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
    // The constructor refused a configuration without a usable key.
    const verification = this.#jwt as JwtVerification;
    if (verification.kind === 'jwks') this.#jwks ??= createRemoteJWKSet(verification.url);
    const key = verification.kind === 'jwks' ? this.#jwks : verification.key;
    try {
      const { payload } = await jwtVerify(token, key as Parameters<typeof jwtVerify>[1], {
        algorithms: verification.algorithms,
        ...(config.issuer ? { issuer: config.issuer } : {}),
        ...(config.audience ? { audience: config.audience } : {}),
      });
      return { method: 'jwt', subject: payload.sub ?? 'unknown', scopes: scopesOf(payload) };
    } catch (error) {
      throw this.#unauthorized(`invalid token: ${tokenRefusal(error)}`);
    }
  }

  async #verifyOauth(token: string, method: string): Promise<Principal> {
    const config = this.#config as OAuth2;
    const { jwks, introspection, issuer } = await this.#oauthChecks(config);
    let subject = 'unknown';
    let scopes: string[] = [];
    if (looksLikeJwt(token) && jwks) {
      try {
        const { payload } = await jwtVerify(token, jwks, issuer ? { issuer } : {});
        subject = payload.sub ?? payload.client_id?.toString() ?? 'unknown';
        scopes = scopesOf(payload);
      } catch (error) {
        throw this.#unauthorized(`invalid access token: ${tokenRefusal(error)}`);
      }
    } else if (introspection) {
      const answer = await this.#introspect(introspection, token, config);
      if (answer.active !== true) throw this.#unauthorized('the access token is not active');
      if (issuer && answer.iss && answer.iss !== issuer)
        throw this.#unauthorized('the access token is from another issuer');
      subject = String(answer.sub ?? answer.client_id ?? 'unknown');
      scopes = typeof answer.scope === 'string' ? answer.scope.split(' ').filter(Boolean) : [];
    } else {
      // Only an opaque token with a key set and no introspection endpoint comes here.
      throw this.#unauthorized('the access token is not a JWT, and this server checks JWT access tokens only');
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

  /** The checks of `config`: from {@link prepare}, or discovered now (a failure answers 503 and is tried again). */
  async #oauthChecks(config: OAuth2): Promise<OAuthChecks> {
    this.#oauth ??= this.#discover(config);
    const pending = this.#oauth;
    try {
      return await pending;
    } catch (error) {
      if (this.#oauth === pending) this.#oauth = undefined;
      throw new ProblemError({
        type: PROBLEM_TYPES.authUnavailable,
        title: 'Authentication unavailable',
        status: 503,
        detail: ConfigurationError.isInstance(error)
          ? "the OAuth 2.0 authorization server's metadata could not be read"
          : `access tokens cannot be checked (${(error as Error)?.message ?? String(error)})`,
      });
    }
  }

  async #discover(config: OAuth2): Promise<OAuthChecks> {
    let found: AuthorizationServer = {
      ...(config.jwksUrl ? { jwksUri: config.jwksUrl } : {}),
      ...(config.introspectionEndpoint ? { introspectionEndpoint: config.introspectionEndpoint } : {}),
    };
    if (!config.jwksUrl && !config.introspectionEndpoint) {
      // RFC 8414 / OpenID Connect discovery: from the issuer, else from the token endpoint every oauth2 configuration
      // has (the documented form names only tokenEndpoint, clientId and scopes).
      found = await discoverAuthorizationServer(config, {
        fetch: this.#fetch,
        timeoutMs: this.#discoveryTimeoutMs,
        enforceHttps: this.#enforceHttps,
      });
    }
    // The constructor checked the configured endpoints against enforceHttps; discovery checked what it found.
    const issuer = config.issuer ?? found.issuer;
    return {
      ...(found.jwksUri ? { jwks: createRemoteJWKSet(new URL(found.jwksUri)) } : {}),
      ...(found.introspectionEndpoint ? { introspection: found.introspectionEndpoint } : {}),
      ...(issuer ? { issuer } : {}),
    };
  }

  async #introspect(endpoint: string, token: string, config: OAuth2): Promise<Record<string, unknown>> {
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

/** The server's bearer tokens as bytes, each checked to be one a request can carry. */
function checkServerTokens(tokens: unknown): Buffer[] {
  if (!Array.isArray(tokens) || tokens.length === 0) {
    throw new ConfigurationError([
      { path: 'authentication.tokens', message: 'type "bearer" needs at least one token: tokens: [<token>, ...]' },
    ]);
  }
  return tokens.map((token: unknown, i) => {
    // A token is never repeated: only what is wrong with it.
    const problem =
      typeof token !== 'string'
        ? `expected a token string, got ${token === undefined ? 'undefined (is its environment variable set?)' : typeof token}`
        : token === ''
          ? 'must not be empty'
          : /[\s\p{Cc}]/u.test(token)
            ? 'holds whitespace or a control character, which an Authorization header cannot carry after "Bearer "'
            : undefined;
    if (problem) throw new ConfigurationError([{ path: `authentication.tokens[${i}]`, message: problem }]);
    return Buffer.from(token as string, 'utf8');
  });
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
