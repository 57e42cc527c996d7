// How `credentials` becomes an Azure `TokenCredential`. Sources:
// - ClientSecretCredential(tenantId, clientId, clientSecret, {authorityHost, disableInstanceDiscovery}):
//   https://learn.microsoft.com/en-us/javascript/api/@azure/identity/clientsecretcredential
// - Its options take the pipeline's `agent`, `retryOptions` and `additionalPolicies`:
//   https://learn.microsoft.com/en-us/javascript/api/@azure/identity/tokencredentialoptions
// - Access tokens are bearer tokens for one audience (`aud`), with `exp` in epoch seconds:
//   https://learn.microsoft.com/en-us/entra/identity-platform/access-token-claims-reference
import type { Agent } from 'node:https';
import type * as Identity from '@azure/identity';
import type { AccessToken, ClientSecretCredentialOptions, TokenCredential } from '@azure/identity';
import { untilAborted } from '@threatlib/core/integration';
import type { SiemCredentials } from '../../connector/connector-options.js';

type PipelinePolicy = NonNullable<ClientSecretCredentialOptions['additionalPolicies']>[number]['policy'];

/**
 * The credential of a Sentinel connector: `{username: <application (client) id>, password: <client secret>}` signs
 * in to `tenantId` with the client-credentials grant (tokens cached and renewed by MSAL); `{token}` is an access
 * token obtained elsewhere (`az account get-access-token`), used as it is for every API, so it serves only the
 * APIs of its audience. Every token it hands out is added to `secrets`, so no error message can quote it.
 *
 * MSAL reports a failed metadata or token request as `endpoints_resolution_error` without saying why; the
 * credential watches its own requests and, when Entra ID gave no AADSTS answer, fails with what the transport saw
 * (a refused connection, an HTTP 429 with its Retry-After), so the connector can tell unreachable from refused.
 */
export function sentinelCredential(
  credentials: SiemCredentials,
  /** `@azure/identity`, loaded when `credentials` are a client secret (a given token needs none). */
  identity: typeof Identity | undefined,
  settings: { tenantId: string | undefined; authorityHost: string; agent: Agent; secrets: Set<string> },
): TokenCredential {
  const watch = new TransportWatch();
  const make = (): TokenCredential => {
    if (!('password' in credentials)) return staticToken(credentials.token);
    // loadSentinelSdk loads @azure/identity whenever the credentials are a client secret.
    if (!identity) throw new Error('@azure/identity is needed for a client secret and was not loaded');
    return new identity.ClientSecretCredential(settings.tenantId ?? '', credentials.username, credentials.password, {
      authorityHost: settings.authorityHost,
      // The authority is the one configured (a sovereign cloud's, a private one): MSAL is not to look it up
      // in the public cloud's instance metadata first.
      disableInstanceDiscovery: true,
      agent: settings.agent,
      // One attempt per call: the connector retries.
      retryOptions: { maxRetries: 0 },
      additionalPolicies: [{ policy: watch.policy, position: 'perRetry' }],
    });
  };
  let inner = make();
  return {
    async getToken(scopes, options) {
      const current = inner;
      watch.reset();
      try {
        const token = await untilAborted(current.getToken(scopes, options), options?.abortSignal);
        if (token) settings.secrets.add(token.token);
        return token;
      } catch (error) {
        if (options?.abortSignal?.aborted) {
          // MSAL may still wait on the abandoned request and make the next call wait on it too: start afresh.
          if (inner === current) inner = make();
          throw error;
        }
        throw watch.explain(error);
      }
    },
  };
}

/** What the token requests' transport saw: the last error, or the last answer that was not a success. */
class TransportWatch {
  #seen: unknown;

  readonly policy: PipelinePolicy = {
    name: 'threatlibEntraTransport',
    sendRequest: async (request, next) => {
      try {
        const response = await next(request);
        if (response.status >= 400) {
          this.#seen = {
            name: 'EntraIdHttpError',
            message: entraDescription(response.bodyAsText) ?? `Entra ID answered HTTP ${response.status}`,
            statusCode: response.status,
            request: { url: request.url },
            response: { status: response.status, bodyAsText: response.bodyAsText, headers: response.headers },
          };
        }
        return response;
      } catch (error) {
        this.#seen = error;
        throw error;
      }
    },
  };

  reset(): void {
    this.#seen = undefined;
  }

  /**
   * The error to report: what the transport saw when it was a network failure or an answer MSAL did not explain
   * (its metadata request, a 429), else MSAL's own (which quotes Entra ID's AADSTS answer).
   */
  explain(error: unknown): unknown {
    const seen = this.#seen as { statusCode?: number } | undefined;
    if (seen === undefined) return error;
    const message = error instanceof Error ? error.message : String(error);
    const throttled = seen.statusCode !== undefined && (seen.statusCode === 429 || seen.statusCode >= 500);
    return /AADSTS\d+/.test(message) && !throttled ? error : seen;
  }
}

/** An access token given as it is; it expires when its `exp` claim says (an hour from now when unreadable). */
function staticToken(token: string): TokenCredential {
  let expiresOnTimestamp = Date.now() + 3_600_000;
  try {
    const exp = JSON.parse(Buffer.from(token.split('.')[1] ?? '', 'base64url').toString('utf8')).exp;
    if (typeof exp === 'number') expiresOnTimestamp = exp * 1000;
  } catch {
    // Not a JWT: an opaque token, kept for an hour.
  }
  return { getToken: async (): Promise<AccessToken> => ({ token, expiresOnTimestamp }) };
}

/** The first line of Entra ID's `error_description` (`AADSTS90002: Tenant ... not found. ...`), when the body has one. */
function entraDescription(body: string | null | undefined): string | undefined {
  try {
    const description = (JSON.parse(body ?? '') as { error_description?: unknown }).error_description;
    return typeof description === 'string' ? description.split(/\r?\n/)[0] : undefined;
  } catch {
    return undefined;
  }
}
