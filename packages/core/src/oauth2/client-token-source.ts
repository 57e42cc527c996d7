import { OAUTH2_CLIENT_SECRET_VARIABLE } from '../config/environment.js';
import type { ResolvedConfig } from '../config/schema.js';
import type { HttpClient } from '../http/http-client.js';
import type { Clock } from '../scheduler/clock.js';
import type { Vault } from '../vault/vault.js';
import { createOAuth2TokenSource, type OAuth2TokenSource } from './client-credentials.js';

/** The vault entry that holds the OAuth 2.0 client secret of `security.authentication` (type `oauth2`). */
export const OAUTH2_CLIENT_SECRET_VAULT_KEY = 'oauth2_client_secret';

/** What {@link clientTokenSource} needs of a client. */
export interface TokenSourceClient {
  readonly config: Pick<ResolvedConfig, 'security'>;
  readonly vault?: Vault | undefined;
  /** The client's pooled HTTP client, read at each token request (it is reopened after `stop()`). */
  readonly http: HttpClient;
  /** The client's clock, for token expiry. */
  readonly clock?: Clock;
}

/**
 * The token source of a client whose `security.authentication` is `oauth2`, undefined for any other client. Tokens
 * come from `tokenEndpoint` by the client credentials grant, for `clientId` with `scopes`; the secret is the vault's
 * `oauth2_client_secret` entry when the client has a vault holding one, else `clientSecret` (which
 * `THREATLIB_OAUTH2_CLIENT_SECRET` fills when the configuration gives none). Requests go through the client's HTTP
 * pool, obeying `security.enforceHttps` and `security.validateCertificates`.
 */
export function clientTokenSource(client: TokenSourceClient): OAuth2TokenSource | undefined {
  const { security } = client.config;
  const auth = security.authentication;
  if (auth?.type !== 'oauth2') return undefined;
  return createOAuth2TokenSource({
    tokenEndpoint: auth.tokenEndpoint,
    clientId: auth.clientId,
    scopes: auth.scopes,
    ...(auth.issuer ? { issuer: auth.issuer } : {}),
    clientSecret: () =>
      client.vault?.has(OAUTH2_CLIENT_SECRET_VAULT_KEY)
        ? client.vault.get(OAUTH2_CLIENT_SECRET_VAULT_KEY)
        : auth.clientSecret,
    missingSecretHint: `put it in the vault as "${OAUTH2_CLIENT_SECRET_VAULT_KEY}", set ${OAUTH2_CLIENT_SECRET_VARIABLE}, or set security.authentication.clientSecret`,
    http: () => client.http,
    enforceHttps: security.enforceHttps,
    ...(client.clock ? { clock: client.clock } : {}),
  });
}
