import { ThreatlibError, type ThreatlibErrorOptions } from '../errors/threatlib-error.js';

/** What {@link OAuth2TokenError} knows about the failed token request; never the client secret. */
export interface OAuth2TokenErrorDetails {
  /** The token endpoint asked, without query or credentials. */
  tokenEndpoint: string;
  clientId: string;
  /** HTTP status of the token endpoint's answer, when it answered. */
  status?: number;
  /** The OAuth 2.0 `error` code of its answer (`invalid_client`, `invalid_scope`...), when it gave one. */
  error?: string;
}

/**
 * Thrown when an OAuth 2.0 access token cannot be obtained: no client secret, the token endpoint unreachable, or
 * refusing the client or its scopes. The message says which endpoint, which client and why; it never holds the
 * client secret.
 *
 * @example
 * ```ts
 * try { await source.getToken(); } catch (e) {
 *   if (OAuth2TokenError.isInstance(e) && e.error === 'invalid_client') console.error('check the client secret');
 * }
 * ```
 */
export class OAuth2TokenError extends ThreatlibError {
  readonly tokenEndpoint: string;
  readonly clientId: string;
  readonly status: number | undefined;
  readonly error: string | undefined;

  constructor(message: string, details: OAuth2TokenErrorDetails, options: ThreatlibErrorOptions = {}) {
    super('OAUTH2_TOKEN_ERROR', message, options);
    this.name = 'OAuth2TokenError';
    this.tokenEndpoint = details.tokenEndpoint;
    this.clientId = details.clientId;
    this.status = details.status;
    this.error = details.error;
  }

  /** Whether `error` is an {@link OAuth2TokenError}, from any copy of the package. */
  static override isInstance(error: unknown): error is OAuth2TokenError {
    return ThreatlibError.hasCode(error, 'OAUTH2_TOKEN_ERROR');
  }
}
