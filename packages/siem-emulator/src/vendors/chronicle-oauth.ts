// Google's OAuth 2.0 token endpoint for service accounts, as the Chronicle emulator serves it: the JWT bearer grant
// (RFC 7523) with an RS256 assertion signed by a key the emulator issued, answered as Google answers, including its
// `invalid_grant` descriptions. The access tokens it issues are what the emulated Chronicle API accepts.
// - https://developers.google.com/identity/protocols/oauth2/service-account#httprest
// - Error answers: https://developers.google.com/identity/protocols/oauth2/service-account#error-codes
import { createPublicKey, generateKeyPairSync, type KeyObject, randomBytes, randomUUID, verify } from 'node:crypto';
import type { EmulatorRequest, EmulatorResponse } from '../vendor.js';

/** The audience Google requires in the assertion (google-auth-library signs it whatever `token_uri` says). */
export const GOOGLE_TOKEN_AUDIENCE = 'https://oauth2.googleapis.com/token';
/** Where the emulator serves the token endpoint: Google's older token path, clear of every other vendor's. */
export const CHRONICLE_TOKEN_PATH = '/oauth2/v4/token';
const JWT_BEARER = 'urn:ietf:params:oauth:grant-type:jwt-bearer';
/** Google's skew allowance on `iat` and `exp`, and the longest life an assertion may ask for. */
const SKEW_S = 300;
const MAX_LIFETIME_S = 3600;
/** How long an access token lives (Google answers `expires_in: 3599`). */
const TOKEN_LIFETIME_S = 3599;

/** A service account key file as the Google Cloud console downloads it. */
export interface ServiceAccountKeyFile {
  type: 'service_account';
  project_id: string;
  private_key_id: string;
  private_key: string;
  client_email: string;
  client_id: string;
  auth_uri: string;
  token_uri: string;
  auth_provider_x509_cert_url: string;
  client_x509_cert_url: string;
  universe_domain: string;
}

/** An access token the endpoint issued (or a test registered). */
export interface IssuedToken {
  /** The service account it was issued to. */
  email: string;
  scopes: readonly string[];
  /** Epoch ms. */
  expiresAt: number;
}

/** What the token endpoint knows: accounts and their keys, and the tokens it issued. */
export interface TokenAuthority {
  /** Creates a service account (or a new key of one) and answers its key file, `token_uri` set to `tokenUri`. */
  issueKey(options: { tokenUri: string; email?: string; projectId?: string }): ServiceAccountKeyFile;
  /** Forgets a key: assertions it signs are refused as Google refuses a deleted key's. */
  revokeKey(privateKeyId: string): void;
  /** Accepts `token` as an access token of `email` with `scopes` (for the `{token}` credential form). */
  addAccessToken(token: string, grant: Partial<IssuedToken>): void;
  /** The grant behind an access token, when it is known and not expired. */
  lookup(token: string): IssuedToken | undefined;
  /** Every access token issued, oldest first (their values are what the connector must never show). */
  readonly issued: readonly string[];
  /** The token endpoint itself. */
  handle(request: EmulatorRequest): EmulatorResponse;
  reset(): void;
}

function oauthError(status: number, error: string, description: string): EmulatorResponse {
  return { status, body: { error, error_description: description } };
}

function base64urlJson(part: string): Record<string, unknown> | undefined {
  try {
    const value: unknown = JSON.parse(Buffer.from(part, 'base64url').toString('utf8'));
    return typeof value === 'object' && value !== null && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : undefined;
  } catch {
    return undefined;
  }
}

/** Creates the token endpoint; `now` is its clock (epoch ms). */
export function createTokenAuthority(now: () => number = Date.now): TokenAuthority {
  /** Public keys by account email, each by key id. */
  const accounts = new Map<string, Map<string, KeyObject>>();
  const tokens = new Map<string, IssuedToken>();
  const issued: string[] = [];

  const grant = (form: URLSearchParams): EmulatorResponse => {
    const grantType = form.get('grant_type');
    if (!grantType) return oauthError(400, 'invalid_request', 'Missing required parameter: grant_type');
    if (grantType !== JWT_BEARER) {
      return oauthError(400, 'unsupported_grant_type', `Invalid grant_type: ${grantType}`);
    }
    const assertion = form.get('assertion');
    if (!assertion) return oauthError(400, 'invalid_request', 'Missing required parameter: assertion');
    const parts = assertion.split('.');
    const header = parts.length === 3 ? base64urlJson(parts[0] as string) : undefined;
    const claims = parts.length === 3 ? base64urlJson(parts[1] as string) : undefined;
    if (!header || !claims) return oauthError(400, 'invalid_grant', 'Invalid JWT: not a JSON Web Token.');
    if (header.alg !== 'RS256') return oauthError(400, 'invalid_grant', 'Invalid JWT Signature.');
    const keys = typeof claims.iss === 'string' ? accounts.get(claims.iss) : undefined;
    if (!keys || keys.size === 0) return oauthError(400, 'invalid_grant', 'Invalid grant: account not found');
    // Google picks the key by `kid` when the header names one, else tries the account's keys.
    const candidates = typeof header.kid === 'string' ? [keys.get(header.kid)].filter(Boolean) : [...keys.values()];
    const signed = Buffer.from(`${parts[0]}.${parts[1]}`);
    const signature = Buffer.from(parts[2] as string, 'base64url');
    if (!candidates.some((key) => verify('RSA-SHA256', signed, key as KeyObject, signature))) {
      return oauthError(400, 'invalid_grant', 'Invalid JWT Signature.');
    }
    const nowS = Math.floor(now() / 1000);
    const { iat, exp } = claims;
    if (
      typeof iat !== 'number' ||
      typeof exp !== 'number' ||
      exp <= iat ||
      exp - iat > MAX_LIFETIME_S ||
      iat > nowS + SKEW_S ||
      exp < nowS - SKEW_S
    ) {
      return oauthError(
        400,
        'invalid_grant',
        'Invalid JWT: Token must be a short-lived token (60 minutes) and in a reasonable timeframe. Check your iat and exp values in the JWT claim.',
      );
    }
    if (claims.aud !== GOOGLE_TOKEN_AUDIENCE) {
      return oauthError(
        400,
        'invalid_grant',
        `Invalid JWT: Failed audience check. The right audience is ${GOOGLE_TOKEN_AUDIENCE}`,
      );
    }
    const scopes = typeof claims.scope === 'string' ? claims.scope.split(' ').filter(Boolean) : [];
    if (scopes.length === 0 || !scopes.every((s) => s.startsWith('https://www.googleapis.com/auth/'))) {
      return oauthError(400, 'invalid_scope', 'Invalid OAuth scope or ID token audience provided.');
    }
    const token = `ya29.c.${randomBytes(48).toString('base64url')}`;
    tokens.set(token, { email: claims.iss as string, scopes, expiresAt: now() + TOKEN_LIFETIME_S * 1000 });
    issued.push(token);
    return { status: 200, body: { access_token: token, expires_in: TOKEN_LIFETIME_S, token_type: 'Bearer' } };
  };

  return {
    get issued() {
      return issued;
    },
    issueKey({
      tokenUri,
      email = 'threatlib-siem@threatlib-test.iam.gserviceaccount.com',
      projectId = 'threatlib-test',
    }) {
      const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
      const keyId = randomBytes(20).toString('hex');
      const keys = accounts.get(email) ?? new Map<string, KeyObject>();
      keys.set(keyId, createPublicKey(publicKey.export({ type: 'spki', format: 'pem' })));
      accounts.set(email, keys);
      return {
        type: 'service_account',
        project_id: projectId,
        private_key_id: keyId,
        private_key: privateKey.export({ type: 'pkcs8', format: 'pem' }) as string,
        client_email: email,
        client_id: String(BigInt(`0x${randomUUID().replace(/-/g, '')}`) % 10n ** 21n),
        auth_uri: 'https://accounts.google.com/o/oauth2/auth',
        token_uri: tokenUri,
        auth_provider_x509_cert_url: 'https://www.googleapis.com/oauth2/v1/certs',
        client_x509_cert_url: `https://www.googleapis.com/robot/v1/metadata/x509/${encodeURIComponent(email)}`,
        universe_domain: 'googleapis.com',
      };
    },
    revokeKey(privateKeyId) {
      for (const keys of accounts.values()) keys.delete(privateKeyId);
    },
    addAccessToken(token, granted) {
      tokens.set(token, {
        email: granted.email ?? 'threatlib-siem@threatlib-test.iam.gserviceaccount.com',
        scopes: granted.scopes ?? ['https://www.googleapis.com/auth/cloud-platform'],
        expiresAt: granted.expiresAt ?? now() + TOKEN_LIFETIME_S * 1000,
      });
    },
    lookup(token) {
      const found = tokens.get(token);
      return found && found.expiresAt > now() ? found : undefined;
    },
    handle(request) {
      if (request.method !== 'POST') return oauthError(405, 'invalid_request', 'Method Not Allowed');
      const type = String(request.headers['content-type'] ?? '')
        .split(';')[0]
        ?.trim()
        .toLowerCase();
      if (type !== 'application/x-www-form-urlencoded') {
        return oauthError(400, 'invalid_request', 'Bad Request');
      }
      return grant(new URLSearchParams(request.body));
    },
    reset() {
      tokens.clear();
      issued.length = 0;
    },
  };
}
