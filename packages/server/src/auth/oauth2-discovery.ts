import { ConfigurationError } from '@threatlib/core';
import { checkEndpoint } from '@threatlib/core/integration';

/** Where the access tokens of an OAuth 2.0 authorization server are checked. */
export interface AuthorizationServer {
  /** The issuer its metadata names: JWT access tokens must carry it as `iss`. */
  issuer?: string;
  jwksUri?: string;
  introspectionEndpoint?: string;
}

/** How long discovery may take at `start()` unless told otherwise, in ms. */
export const DEFAULT_DISCOVERY_TIMEOUT_MS = 5_000;
/** The most bytes read of one metadata document (they are a few KB). */
const MAX_METADATA_BYTES = 256 * 1024;
/** The most path segments of the token endpoint tried as the issuer's path. */
const MAX_PATH_DEPTH = 4;

interface Metadata {
  issuer?: unknown;
  token_endpoint?: unknown;
  jwks_uri?: unknown;
  introspection_endpoint?: unknown;
}

/**
 * Where an authorization server's metadata may live: with an issuer, its OpenID Connect discovery document
 * (`<issuer>/.well-known/openid-configuration`) and its RFC 8414 one (`<origin>/.well-known/oauth-authorization-server
 * <issuer path>`); with only a token endpoint, the same for each issuer the endpoint could belong to, from the
 * longest path to the bare origin (`https://idp.example/realms/x/protocol/openid-connect/token` is under the issuer
 * `https://idp.example/realms/x`).
 */
function metadataCandidates(from: { issuer: string } | { tokenEndpoint: string }): URL[] {
  const base = new URL('issuer' in from ? from.issuer : from.tokenEndpoint);
  const segments = base.pathname.split('/').filter(Boolean);
  const issuerPaths =
    'issuer' in from
      ? [segments]
      : Array.from({ length: segments.length }, (_, i) => segments.slice(0, segments.length - 1 - i)).filter(
          (path) => path.length <= MAX_PATH_DEPTH,
        );
  const urls: URL[] = [];
  for (const path of issuerPaths) {
    const suffix = path.length > 0 ? `/${path.join('/')}` : '';
    urls.push(new URL(`${suffix}/.well-known/openid-configuration`, base.origin));
    urls.push(new URL(`/.well-known/oauth-authorization-server${suffix}`, base.origin));
  }
  return urls;
}

/**
 * Finds how to check the access tokens of the authorization server behind `issuer`, or behind `tokenEndpoint` when no
 * issuer is configured: its metadata (RFC 8414 or OpenID Connect discovery) names its key set (`jwks_uri`) and its
 * introspection endpoint. Every candidate is asked at once, within `timeoutMs` in all; a document counts only when it
 * is for this server (its `issuer` is the configured one, or its `token_endpoint` the configured endpoint).
 *
 * @throws {ConfigurationError} naming what was tried and what to configure instead, when no document answers or
 *   the one found names neither a key set nor an introspection endpoint.
 */
export async function discoverAuthorizationServer(
  config: { issuer?: string | undefined; tokenEndpoint: string },
  options: { fetch: typeof fetch; timeoutMs: number; enforceHttps: boolean },
): Promise<AuthorizationServer> {
  const policy = { enforceHttps: options.enforceHttps };
  const candidates = config.issuer
    ? metadataCandidates({ issuer: config.issuer })
    : metadataCandidates({ tokenEndpoint: config.tokenEndpoint });
  for (const url of candidates) checkEndpoint(url.href, 'security.authentication (metadata)', policy);
  const signal = AbortSignal.timeout(options.timeoutMs);
  const answers = await Promise.all(candidates.map((url) => readMetadata(url, options.fetch, signal)));
  const wanted = (metadata: Metadata) =>
    config.issuer ? sameUrl(metadata.issuer, config.issuer) : sameUrl(metadata.token_endpoint, config.tokenEndpoint);
  // Candidates are in order of preference: the first that is this server's wins.
  const found = answers.find((answer): answer is Metadata => typeof answer === 'object' && wanted(answer));
  const tried = candidates.map((url, i) => {
    const answer = answers[i];
    return `${url.href} (${typeof answer === 'string' ? answer : `another server's: ${config.issuer ? 'its issuer differs' : 'its token_endpoint differs'}`})`;
  });
  const instead =
    'set jwksUrl (JWT access tokens), introspectionEndpoint with clientSecret (opaque access tokens), or issuer (whose discovery document names them)';
  if (!found) {
    throw new ConfigurationError([
      {
        path: 'security.authentication',
        message: `type "oauth2": the server cannot check access tokens: no authorization server metadata was found for ${config.issuer ? `issuer ${config.issuer}` : `token endpoint ${config.tokenEndpoint}`} within ${options.timeoutMs} ms (tried ${tried.join(', ')}); ${instead}`,
      },
    ]);
  }
  const jwksUri = typeof found.jwks_uri === 'string' ? found.jwks_uri : undefined;
  const introspectionEndpoint =
    typeof found.introspection_endpoint === 'string' ? found.introspection_endpoint : undefined;
  if (!jwksUri && !introspectionEndpoint) {
    throw new ConfigurationError([
      {
        path: 'security.authentication',
        message: `type "oauth2": the authorization server's metadata names neither jwks_uri nor introspection_endpoint, so access tokens cannot be checked; ${instead}`,
      },
    ]);
  }
  return {
    ...(typeof found.issuer === 'string' ? { issuer: found.issuer } : {}),
    ...(jwksUri ? { jwksUri: checkEndpoint(jwksUri, 'jwks_uri of the issuer metadata', policy).href } : {}),
    ...(introspectionEndpoint
      ? {
          introspectionEndpoint: checkEndpoint(
            introspectionEndpoint,
            'introspection_endpoint of the issuer metadata',
            policy,
          ).href,
        }
      : {}),
  };
}

/** The metadata document at `url`, or why there is none (in a few words). */
async function readMetadata(url: URL, fetcher: typeof fetch, signal: AbortSignal): Promise<Metadata | string> {
  try {
    const response = await fetcher(url, { headers: { accept: 'application/json' }, redirect: 'error', signal });
    if (!response.ok) {
      await response.body?.cancel();
      return `HTTP ${response.status}`;
    }
    const declared = Number(response.headers.get('content-length') ?? 0);
    if (declared > MAX_METADATA_BYTES) {
      await response.body?.cancel();
      return 'larger than a metadata document';
    }
    const text = await boundedText(response, MAX_METADATA_BYTES);
    if (text === undefined) return 'larger than a metadata document';
    const parsed: unknown = JSON.parse(text);
    return typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed)
      ? (parsed as Metadata)
      : 'not a JSON object';
  } catch (error) {
    if (signal.aborted) return 'no answer in time';
    if (error instanceof SyntaxError) return 'not JSON';
    const cause = (error as { cause?: { code?: unknown } }).cause;
    return typeof cause?.code === 'string' ? cause.code : 'unreachable';
  }
}

async function boundedText(response: Response, maxBytes: number): Promise<string | undefined> {
  const reader = response.body?.getReader();
  if (!reader) return '';
  const chunks: Uint8Array[] = [];
  let total = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    total += value.byteLength;
    if (total > maxBytes) {
      await reader.cancel();
      return undefined;
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks).toString('utf8');
}

/** Whether two URLs are the same, ignoring a trailing slash (issuers are compared as strings by RFC 8414 §3.3). */
function sameUrl(a: unknown, b: string): boolean {
  return typeof a === 'string' && a.replace(/\/+$/, '') === b.replace(/\/+$/, '');
}
