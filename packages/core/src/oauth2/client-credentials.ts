import type * as oauth from 'oauth4webapi';
import type { HttpClient } from '../http/http-client.js';
import { HttpError } from '../http/http-error.js';
import { type Clock, systemClock } from '../scheduler/clock.js';
import { checkEndpoint } from '../security/endpoint-policy.js';
import { OAuth2TokenError, type OAuth2TokenErrorDetails } from './oauth2-token-error.js';

/** Options of {@link createOAuth2TokenSource}. */
export interface OAuth2TokenSourceOptions {
  /** The authorization server's token endpoint. */
  tokenEndpoint: string;
  clientId: string;
  /**
   * The client secret, asked for at each token request (not at creation), so a vault unlocked later or a secret
   * rotated meanwhile is the one sent. Sent with HTTP Basic authentication (`client_secret_basic`).
   */
  clientSecret: () => string | undefined | Promise<string | undefined>;
  /** Scopes asked for (`threat-intel:read`...); none: the server's default scopes. */
  scopes?: readonly string[];
  /** The authorization server's issuer identifier (default: the token endpoint's origin). */
  issuer?: string;
  /** The HTTP client requests go through (a `ThreatClient`'s pool, so `client.stop()` closes the connection). */
  http: HttpClient | (() => HttpClient);
  /** Refuse a token endpoint that is not HTTPS (default true; `security.enforceHttps`). */
  enforceHttps?: boolean;
  /** Time for token expiry (a test's `ManualClock`). */
  clock?: Clock;
  /** A token is renewed this long before it expires, at most half its lifetime (default 60 s). */
  refreshBeforeMs?: number;
  /** How long a token is used when the server does not say (`expires_in` absent; default 5 minutes). */
  defaultLifetimeMs?: number;
  /** Most ms a token request may take (default 10 s). */
  timeoutMs?: number;
  /** Said after "has no client secret" when `clientSecret` gives none: where a secret can be put. */
  missingSecretHint?: string;
}

/** OAuth 2.0 access tokens for one client, obtained by the client credentials grant and cached. */
export interface OAuth2TokenSource {
  /**
   * An access token: the cached one while it is valid for at least `refreshBeforeMs` more, else a new one from the
   * token endpoint. Concurrent calls share one request.
   *
   * @throws {OAuth2TokenError} when no token can be obtained; the message never holds the secret.
   */
  getToken(): Promise<string>;
  /** Forgets the cached token (after a resource server refused it, say): the next `getToken` asks for a new one. */
  invalidate(): void;
}

interface CachedToken {
  token: string;
  /** When `getToken` stops returning it and asks for a new one. */
  renewAt: number;
}

/**
 * Makes a source of OAuth 2.0 access tokens obtained by the client credentials grant (RFC 6749 section 4.4) from
 * `tokenEndpoint`, through `oauth4webapi`. A token is cached until `refreshBeforeMs` before it expires.
 *
 * @throws {ConfigurationError} when `tokenEndpoint` is not an absolute URL.
 * @throws {InsecureEndpointError} when it is not HTTPS and `enforceHttps` is on.
 * @example
 * ```ts
 * const source = createOAuth2TokenSource({
 *   tokenEndpoint: 'https://idp.example/oauth2/token',
 *   clientId: 'threatlib',
 *   clientSecret: () => process.env.THREATLIB_OAUTH2_CLIENT_SECRET,
 *   scopes: ['threat-intel:read'],
 *   http: client.http,
 * });
 * await fetch(url, { headers: { authorization: `Bearer ${await source.getToken()}` } });
 * ```
 */
export function createOAuth2TokenSource(options: OAuth2TokenSourceOptions): OAuth2TokenSource {
  const enforceHttps = options.enforceHttps ?? true;
  const endpoint = checkEndpoint(options.tokenEndpoint, 'security.authentication.tokenEndpoint', { enforceHttps });
  const shown = `${endpoint.origin}${endpoint.pathname}`;
  const clock = options.clock ?? systemClock;
  const refreshBefore = options.refreshBeforeMs ?? 60_000;
  const defaultLifetime = options.defaultLifetimeMs ?? 300_000;
  const timeoutMs = options.timeoutMs ?? 10_000;
  const http = typeof options.http === 'function' ? options.http : () => options.http as HttpClient;
  const as: oauth.AuthorizationServer = {
    issuer: options.issuer ?? endpoint.origin,
    token_endpoint: endpoint.href,
  };
  const client: oauth.Client = { client_id: options.clientId };
  const details: OAuth2TokenErrorDetails = { tokenEndpoint: shown, clientId: options.clientId };
  const what = `OAuth 2.0 token request to ${shown} for client "${options.clientId}"`;

  // oauth4webapi speaks fetch; the request goes through the given HTTP client, its pool and its TLS settings.
  const viaHttpClient = async (
    url: string,
    init: oauth.CustomFetchOptions<'POST', URLSearchParams>,
  ): Promise<Response> => {
    const answer = await http().request(url, {
      method: init.method,
      headers: init.headers,
      body: init.body.toString(),
      timeoutMs,
      ...(init.signal ? { signal: init.signal } : {}),
    });
    const nullBody = [101, 204, 205, 304].includes(answer.status);
    return new Response(nullBody ? null : answer.body, { status: answer.status, headers: answer.headers });
  };

  let cached: CachedToken | undefined;
  let pending: Promise<string> | undefined;

  const request = async (): Promise<string> => {
    const secret = await options.clientSecret();
    if (!secret) {
      throw new OAuth2TokenError(
        `${what} was not sent: the client has no client secret${options.missingSecretHint ? ` (${options.missingSecretHint})` : ''}`,
        details,
      );
    }
    const askedAt = clock.now();
    const parameters = new URLSearchParams();
    if (options.scopes && options.scopes.length > 0) parameters.set('scope', options.scopes.join(' '));
    // Imported at the first token request: a page that never uses OAuth 2.0 does not load it (issue 24, its size).
    const oauth = await import('./oauth4webapi-grant.js');
    let response: Response | undefined;
    let result: oauth.TokenEndpointResponse;
    try {
      response = await oauth.clientCredentialsGrantRequest(as, client, oauth.ClientSecretBasic(secret), parameters, {
        [oauth.customFetch]: viaHttpClient,
        [oauth.allowInsecureRequests]: !enforceHttps,
      });
      result = await oauth.processClientCredentialsResponse(as, client, response);
    } catch (error) {
      throw failure(oauth, error, response?.status, secret);
    }
    if (typeof result.scope === 'string' && options.scopes) {
      // An authorization server may grant fewer scopes than asked (RFC 6749 section 3.3) and then says which.
      const granted = new Set(result.scope.split(' ').filter(Boolean));
      const missing = options.scopes.filter((scope) => !granted.has(scope));
      if (missing.length > 0) {
        throw new OAuth2TokenError(
          `${what} was granted scope "${result.scope}" without ${missing.map((m) => `"${m}"`).join(', ')}: the token would be refused where those scopes are required`,
          { ...details, error: 'insufficient_scope' },
        );
      }
    }
    const lifetime =
      typeof result.expires_in === 'number' && result.expires_in > 0 ? result.expires_in * 1000 : defaultLifetime;
    cached = { token: result.access_token, renewAt: askedAt + lifetime - Math.min(refreshBefore, lifetime / 2) };
    return result.access_token;
  };

  const failure = (
    oauth: typeof import('./oauth4webapi-grant.js'),
    error: unknown,
    status: number | undefined,
    secret: string,
  ): OAuth2TokenError => {
    let reason: string;
    let code: string | undefined;
    if (error instanceof oauth.ResponseBodyError) {
      code = error.error;
      reason = `refused: ${error.error}${error.error_description ? ` (${error.error_description})` : ''}`;
    } else if (error instanceof oauth.WWWAuthenticateChallengeError) {
      code = error.cause[0]?.parameters.error;
      reason = `refused: ${code ?? 'the client was not authenticated'}`;
    } else if (HttpError.isInstance(error)) {
      reason = `failed: ${error.message}`;
    } else {
      reason = `failed: ${(error as Error)?.message ?? String(error)}`;
    }
    const message = `${what} ${reason}${status !== undefined ? ` [HTTP ${status}]` : ''}`;
    // An authorization server could echo what it was sent; the secret is cut out of whatever it said.
    return new OAuth2TokenError(
      message.split(secret).join('[redacted]'),
      { ...details, ...(status !== undefined ? { status } : {}), ...(code ? { error: code } : {}) },
      // Only a network failure is kept as the cause: oauth4webapi's errors hold the whole exchange.
      HttpError.isInstance(error) ? { cause: error } : {},
    );
  };

  return {
    async getToken() {
      if (cached && clock.now() < cached.renewAt) return cached.token;
      if (!pending) {
        const started = request();
        pending = started;
        started.then(
          () => {
            if (pending === started) pending = undefined;
          },
          () => {
            if (pending === started) pending = undefined;
          },
        );
      }
      return pending;
    },
    invalidate() {
      cached = undefined;
    },
  };
}
