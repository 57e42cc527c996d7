const CLAIMS = new Set(['iss', 'aud', 'sub', 'exp', 'nbf', 'iat', 'jti', 'typ']);

/**
 * Why jose refused a token, in words that say what to fix and carry nothing of the token: some of jose's messages
 * quote what the token holds (an unknown `crit` parameter's name, for one), and the token is a header's value.
 */
export function tokenRefusal(error: unknown): string {
  const { code, claim } = (error ?? {}) as { code?: unknown; claim?: unknown };
  const named = typeof claim === 'string' && CLAIMS.has(claim) ? `"${claim}" ` : '';
  switch (code) {
    case 'ERR_JWT_EXPIRED':
      return 'the token has expired';
    case 'ERR_JWT_CLAIM_VALIDATION_FAILED':
      return `the token's ${named}claim failed its check`;
    case 'ERR_JWS_SIGNATURE_VERIFICATION_FAILED':
      return 'the token signature does not verify';
    case 'ERR_JOSE_ALG_NOT_ALLOWED':
      return "the token's algorithm is not one accepted here";
    case 'ERR_JWKS_NO_MATCHING_KEY':
    case 'ERR_JWKS_MULTIPLE_MATCHING_KEYS':
      return "no single key of the issuer's key set matches the token";
    case 'ERR_JWKS_TIMEOUT':
    case 'ERR_JWKS_INVALID':
      return "the issuer's key set could not be read";
    case 'ERR_JOSE_NOT_SUPPORTED':
      return 'the token uses a feature that is not supported';
    case 'ERR_JWS_INVALID':
    case 'ERR_JWT_INVALID':
      return 'the token is not a well-formed signed JWT';
    default:
      return 'the token does not verify';
  }
}

/** `text`, unless it holds `secret` (in any case): then undefined. For text a third party wrote, such as an IdP. */
export function unlessItHolds(text: string, secret: string): string | undefined {
  return secret.length > 0 && text.toLowerCase().includes(secret.toLowerCase()) ? undefined : text;
}
