import { createPublicKey, type KeyObject } from 'node:crypto';
import { ConfigurationError, type ConfigurationIssue, type ResolvedConfig } from '@threatlib/core';
import { checkEndpoint } from '@threatlib/core/integration';
import { describePasswordHash } from './password-hash.js';

/** The client's `security.authentication`, resolved. */
export type Authentication = NonNullable<ResolvedConfig['security']['authentication']>;
type Jwt = Extract<Authentication, { type: 'jwt' }>;
type JwtAlgorithm = NonNullable<Jwt['algorithms']>[number];

/** How JWTs are verified, decided once from the configuration. */
export type JwtVerification =
  | { kind: 'secret'; key: Uint8Array; algorithms: JwtAlgorithm[] }
  | { kind: 'publicKey'; key: KeyObject; algorithms: JwtAlgorithm[] }
  | { kind: 'jwks'; url: URL; algorithms: JwtAlgorithm[] };

/** RFC 7518 §3.2: an HS256 key is at least as long as the hash, 256 bits. */
const MIN_HS256_SECRET_BYTES = 32;
/** What may stand between the quotes of `realm="..."` in a `WWW-Authenticate` header (RFC 9110 quoted-string). */
const REALM = /^[\x20\x21\x23-\x5b\x5d-\x7e]{1,200}$/;
const PATH = 'security.authentication';

/**
 * Checks a server's view of `security.authentication` (what the client's schema cannot know: that a JWT can be
 * verified with what is configured, that a basic user's entry is a password hash, that an endpoint obeys
 * `enforceHttps`), and refuses a configuration that would refuse every request.
 *
 * @returns how JWTs are verified, for `type: 'jwt'`.
 * @throws {ConfigurationError} `Configuration invalid: security.authentication.<option>: <what is missing>`, naming
 *   every problem; no message repeats a secret, a password or a hash.
 */
export function checkAuthentication(
  config: Authentication,
  policy: { enforceHttps: boolean },
): JwtVerification | undefined {
  const issues: ConfigurationIssue[] = [];
  const endpoint = (url: string | undefined, option: string, what: string) => {
    if (url === undefined) return undefined;
    try {
      return checkEndpoint(url, `${PATH}.${option}`, policy);
    } catch (error) {
      issues.push({ path: `${PATH}.${option}`, message: `${what}: ${(error as Error).message}` });
      return undefined;
    }
  };
  let jwt: JwtVerification | undefined;
  switch (config.type) {
    case 'basic':
      checkBasic(config, issues);
      break;
    case 'jwt':
      jwt = checkJwt(config, issues, (url) => endpoint(url, 'jwksUrl', 'the JWKS URL'));
      break;
    case 'oauth2':
      endpoint(config.jwksUrl, 'jwksUrl', 'the JWKS URL');
      endpoint(config.introspectionEndpoint, 'introspectionEndpoint', 'the introspection endpoint');
      // Discovery reads the issuer's metadata at start(); whether that works is known only then.
      break;
  }
  if (issues.length > 0) throw new ConfigurationError(issues);
  return jwt;
}

function checkBasic(config: Extract<Authentication, { type: 'basic' }>, issues: ConfigurationIssue[]): void {
  const users = Object.entries(config.users ?? {});
  if (users.length === 0) {
    issues.push({
      path: `${PATH}.users`,
      message:
        'type "basic" needs at least one user: users: {<name>: <password hash>}, each hash made with `threatlib hash-password`',
    });
  }
  for (const [name, hash] of users) {
    // The name is shown (it is not a secret); the value never is: it may be the password itself.
    const shown = JSON.stringify(name.slice(0, 64));
    if (name === '' || name.includes(':') || /\p{Cc}/u.test(name)) {
      issues.push({
        path: `${PATH}.users`,
        message: `the user name ${shown} can never log in: a basic user name is not empty and holds no ":" or control character (RFC 7617)`,
      });
    }
    const problem = describePasswordHash(hash);
    if (problem) {
      issues.push({
        path: `${PATH}.users[${shown}]`,
        message: `${problem}; every login as this user would be refused. Store the hash \`threatlib hash-password\` prints (an scrypt PHC string, $scrypt$ln=15,r=8,p=1$<salt>$<hash>), never the password`,
      });
    }
  }
  if (config.realm !== undefined && !REALM.test(config.realm)) {
    issues.push({
      path: `${PATH}.realm`,
      message: `expected 1 to 200 printable ASCII characters without " or \\ (it is sent in WWW-Authenticate: Basic realm="..."); got ${config.realm.length} characters`,
    });
  }
}

function checkJwt(
  config: Jwt,
  issues: ConfigurationIssue[],
  jwksEndpoint: (url: string | undefined) => URL | undefined,
): JwtVerification | undefined {
  const given = (['secret', 'publicKey', 'jwksUrl'] as const).filter((option) => config[option] !== undefined);
  if (given.length === 0) {
    issues.push({
      path: PATH,
      message:
        'type "jwt" needs a key to verify tokens with: secret (HS256, at least 32 bytes), publicKey (a PEM public key, RS256 or ES256) or jwksUrl (the issuer\'s key set)',
    });
    return undefined;
  }
  if (given.length > 1) {
    issues.push({
      path: PATH,
      message: `type "jwt" verifies tokens with one key source; ${given.join(' and ')} are both set: keep one`,
    });
    return undefined;
  }
  const allowed = config.algorithms;
  const usable = (algorithms: JwtAlgorithm[], option: string): JwtAlgorithm[] | undefined => {
    if (allowed === undefined) return algorithms;
    const both = algorithms.filter((a) => allowed.includes(a));
    if (both.length > 0) return both;
    issues.push({
      path: `${PATH}.algorithms`,
      message: `${JSON.stringify(allowed)} leaves nothing ${option} can verify (it verifies ${algorithms.join(', ')}): every token would be refused`,
    });
    return undefined;
  };
  if (config.secret !== undefined) {
    const key = new TextEncoder().encode(config.secret);
    if (key.length < MIN_HS256_SECRET_BYTES) {
      issues.push({
        path: `${PATH}.secret`,
        message: `an HS256 secret is at least ${MIN_HS256_SECRET_BYTES} bytes (RFC 7518 §3.2); this one has ${key.length}`,
      });
      return undefined;
    }
    const algorithms = usable(['HS256'], 'secret');
    return algorithms && { kind: 'secret', key, algorithms };
  }
  if (config.publicKey !== undefined) {
    let key: KeyObject;
    try {
      key = createPublicKey(config.publicKey);
    } catch {
      issues.push({
        path: `${PATH}.publicKey`,
        message:
          'not a public key node can read: expected a PEM "-----BEGIN PUBLIC KEY-----" (SPKI) block of an RSA or P-256 key',
      });
      return undefined;
    }
    const algorithm =
      key.asymmetricKeyType === 'rsa'
        ? 'RS256'
        : key.asymmetricKeyType === 'ec' && key.asymmetricKeyDetails?.namedCurve === 'prime256v1'
          ? 'ES256'
          : undefined;
    if (!algorithm) {
      issues.push({
        path: `${PATH}.publicKey`,
        message: `a ${key.asymmetricKeyType ?? 'unknown'}${key.asymmetricKeyDetails?.namedCurve ? ` ${key.asymmetricKeyDetails.namedCurve}` : ''} key verifies none of the accepted algorithms: use an RSA key (RS256) or a P-256 key (ES256)`,
      });
      return undefined;
    }
    const algorithms = usable([algorithm], 'publicKey');
    return algorithms && { kind: 'publicKey', key, algorithms };
  }
  const url = jwksEndpoint(config.jwksUrl);
  const algorithms = usable(['RS256', 'ES256', 'HS256'], 'jwksUrl');
  return url && algorithms ? { kind: 'jwks', url, algorithms } : undefined;
}
