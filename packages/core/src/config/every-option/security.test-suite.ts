// The checks of every-option.test.ts for `security`: HTTPS and certificates, the vault, the audit log, OAuth 2.0.
import { answer, configWith, IP } from '../option-checks.test-suite.js';
import type { ThreatConfig } from '../schema.js';
import { type Check, effect, elsewhere } from './check.test-suite.js';
import { eventsSeen, h, handler, tls, tokens, vaultSees } from './world.test-suite.js';

/** The vault file's recorded salt and GCM tag lengths, and the ciphertext length. */
function envelopeOf(vault: { toBytes(): Buffer }) {
  const envelope = JSON.parse(vault.toBytes().toString('utf8')) as {
    kdf: { salt: string };
    cipher: { tagLength: number };
    ciphertext: string;
  };
  return {
    saltBytes: Buffer.from(envelope.kdf.salt, 'base64').length,
    tagLength: envelope.cipher.tagLength,
    ciphertextBytes: Buffer.from(envelope.ciphertext, 'base64').length,
  };
}

/** The OAuth 2.0 token request a client made, as the fake token endpoint received it. */
async function tokenRequest(config: ThreatConfig) {
  tokens.requests.length = 0;
  const { client } = h.client(config);
  if (!client.oauth2) return { oauth2: false };
  await client.oauth2.getToken();
  const request = tokens.requests[0];
  const [clientId, secret] = Buffer.from(String(request?.headers.authorization).slice(6), 'base64')
    .toString('utf8')
    .split(':')
    .map(decodeURIComponent);
  return { oauth2: true, path: request?.url, clientId, secret, scope: new URLSearchParams(request?.body).get('scope') };
}

const AUTH = () => ({
  security: { authentication: { type: 'oauth2', tokenEndpoint: `${tokens.url}/token`, clientId: 'threatlib' } },
});
const SECRET_ENV = { security: { authentication: { clientSecret: 'probe-secret' } } };

/** One check per option of `security`. */
export const SECURITY_CHECKS: Record<string, Check> = {
  'security.enforceHttps': effect(
    { security: { enforceHttps: true } },
    async (c) => {
      try {
        h.client(c);
        return 'accepted';
      } catch (error) {
        return (error as Error).name;
      }
    },
    { apiKeys: { feed_probe: { endpoint: 'http://mirror.example/api' } } },
  ),
  'security.validateCertificates': effect({ security: { validateCertificates: false } }, async (c) => {
    const { client, probe } = h.client(configWith(c, { apiKeys: { feed_probe: { endpoint: tls.url } } }));
    probe.answer = async (context) => {
      await context.http.request(context.endpoint);
      return answer('malicious');
    };
    return (await client.scout(IP)).results.find((r) => r.feed === 'feed_probe')?.status;
  }),
  'security.autoLock': effect({ security: { autoLock: false } }, (c) =>
    vaultSees(c, async (vault, clock) => {
      await clock.advance(400_000);
      return vault.isLocked;
    }),
  ),
  'security.lockTimeout': effect({ security: { lockTimeout: 1000 } }, (c) =>
    vaultSees(c, async (vault, clock) => {
      await clock.advance(2000);
      return vault.isLocked;
    }),
  ),
  'security.enableAuditLog': effect({ security: { enableAuditLog: true } }, (c) =>
    eventsSeen(configWith(c, { events: { audit: handler('audit') } }), async (client) => client.updateConcurrency(3)),
  ),
  'security.encryption.algorithm': { kind: 'only', with: { security: { encryption: { algorithm: 'aes-128-gcm' } } } },
  'security.encryption.keyDerivation': effect(
    { security: { encryption: { keyDerivation: 'argon2id' } } },
    (c) => vaultSees(c, (vault) => vault.kdf.algorithm),
    { security: { encryption: { keyDerivation: 'pbkdf2' } } },
  ),
  'security.encryption.iterations': effect({ security: { encryption: { iterations: 2000 } } }, (c) =>
    vaultSees(c, (vault) => vault.kdf),
  ),
  'security.encryption.saltSize': effect({ security: { encryption: { saltSize: 16 } } }, (c) =>
    vaultSees(c, (vault) => envelopeOf(vault).saltBytes),
  ),
  'security.encryption.tagSize': effect({ security: { encryption: { tagSize: 12 } } }, (c) =>
    vaultSees(c, (vault) => {
      const { tagLength, ciphertextBytes } = envelopeOf(vault);
      return { tagLength, ciphertextBytes };
    }),
  ),
  'security.memoryProtection.secureErase': effect({ security: { memoryProtection: { secureErase: false } } }, (c) =>
    vaultSees(c, (vault) => {
      const bytes = Buffer.from('a-key-given-as-bytes');
      vault.set('feed_bytes', bytes);
      vault.lock('manual');
      return bytes.toString('utf8');
    }),
  ),
  'security.memoryProtection.obfuscateKeys': effect({ security: { memoryProtection: { obfuscateKeys: true } } }, (c) =>
    vaultSees(c, (vault) => {
      const bytes = Buffer.from('a-key-given-as-bytes');
      vault.set('feed_bytes', bytes);
      return bytes.toString('utf8');
    }),
  ),
  'security.memoryProtection.preventDumps': effect({ security: { memoryProtection: { preventDumps: true } } }, (c) => {
    const report = process.report as NodeJS.ProcessReport & { excludeEnv: boolean };
    const before = report.excludeEnv;
    report.excludeEnv = false;
    return vaultSees(c, () => report.excludeEnv).finally(() => {
      report.excludeEnv = before;
    });
  }),

  // Basic and JWT authentication, and the parts of OAuth 2.0 that check incoming tokens, are the REST server's.
  ...Object.fromEntries(
    [
      '[type=basic].type',
      '[type=basic].users',
      '[type=basic].realm',
      '[type=jwt].type',
      '[type=jwt].secret',
      '[type=jwt].publicKey',
      '[type=jwt].jwksUrl',
      '[type=jwt].issuer',
      '[type=jwt].audience',
      '[type=jwt].algorithms',
      '[type=oauth2].issuer',
      '[type=oauth2].jwksUrl',
      '[type=oauth2].introspectionEndpoint',
    ].map((leaf) => [
      `security.authentication${leaf}`,
      elsewhere('packages/server/src/auth/authentication-options.test.ts', `'${leaf}': {`),
    ]),
  ),
  'security.authentication[type=oauth2].type': effect(() => configWith(AUTH(), SECRET_ENV), tokenRequest),
  'security.authentication[type=oauth2].tokenEndpoint': effect(
    () => ({ security: { authentication: { tokenEndpoint: `${tokens.url}/oauth2/token` } } }),
    tokenRequest,
    () => configWith(AUTH(), SECRET_ENV),
  ),
  'security.authentication[type=oauth2].clientId': effect(
    { security: { authentication: { clientId: 'another-client' } } },
    tokenRequest,
    () => configWith(AUTH(), SECRET_ENV),
  ),
  'security.authentication[type=oauth2].clientSecret': effect(
    { security: { authentication: { clientSecret: 'another-secret' } } },
    tokenRequest,
    () => configWith(AUTH(), SECRET_ENV),
  ),
  'security.authentication[type=oauth2].scopes': effect(
    { security: { authentication: { scopes: ['threat-intel:read'] } } },
    tokenRequest,
    () => configWith(AUTH(), SECRET_ENV),
  ),
};
