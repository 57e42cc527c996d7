// How the connector's documented credentials ({token} or {username, password}) name a Google identity:
// - {token: <the service account key file's JSON text>} → the service account of the key (the usual form);
// - {token: <an OAuth access token>} → used as it is, until it expires (about an hour);
// - {username: <service account e-mail>, password: <its private key, PEM>} → the same service account, spelt out.
// Key file format: https://cloud.google.com/iam/docs/keys-create-delete#creating (type, client_email, private_key,
// private_key_id, token_uri).
import { createPrivateKey } from 'node:crypto';
import type { ConfigurationIssue } from '@threatlib/core';
import type { ResolvedCommonOptions } from '../../connector/connector-options.js';
import { type ChronicleOptions, GOOGLE_TOKEN_URI } from './chronicle-options.js';

/** The identity the connector acts as. */
export type ChronicleCredential =
  | { kind: 'access-token'; token: string }
  | { kind: 'service-account'; email: string; privateKey: string; keyId?: string; tokenUri: string };

type Options = ResolvedCommonOptions & ChronicleOptions;

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

/**
 * Reads the credentials into the identity they name, or says what is wrong with them, never quoting a secret (a
 * JSON parse error would quote the text around the fault, so it is not passed on).
 */
export function readChronicleCredential(options: Options): ChronicleCredential | ConfigurationIssue[] {
  const { credentials } = options;
  if ('username' in credentials) {
    const problems: ConfigurationIssue[] = [];
    if (!EMAIL.test(credentials.username)) {
      problems.push({ path: 'credentials.username', message: 'expected the service account’s e-mail (client_email)' });
    }
    if (!isPrivateKey(credentials.password)) {
      problems.push({
        path: 'credentials.password',
        message: 'expected the service account’s private key in PEM (private_key of its key file)',
      });
    }
    const tokenUri = options.tokenUri ?? GOOGLE_TOKEN_URI;
    problems.push(...tokenUriProblems(tokenUri, options, 'tokenUri'));
    if (problems.length > 0) return problems;
    return { kind: 'service-account', email: credentials.username, privateKey: credentials.password, tokenUri };
  }
  const token = credentials.token.trim();
  if (!token.startsWith('{')) {
    if (/\s/.test(token)) {
      return [
        { path: 'credentials.token', message: 'expected an OAuth access token (no spaces) or a key file’s JSON' },
      ];
    }
    return { kind: 'access-token', token };
  }
  let key: unknown;
  try {
    key = JSON.parse(token);
  } catch {
    return [{ path: 'credentials.token', message: 'starts like a key file but is not valid JSON' }];
  }
  const fields = (typeof key === 'object' && key !== null ? key : {}) as Record<string, unknown>;
  if (fields.type !== 'service_account') {
    const type =
      typeof fields.type === 'string' && fields.type.length <= 40 ? ` (got type ${JSON.stringify(fields.type)})` : '';
    return [
      { path: 'credentials.token', message: `expected a service account key file (type service_account)${type}` },
    ];
  }
  const problems: ConfigurationIssue[] = [];
  if (typeof fields.client_email !== 'string' || !EMAIL.test(fields.client_email)) {
    problems.push({ path: 'credentials.token', message: 'the key file has no client_email' });
  }
  if (typeof fields.private_key !== 'string' || !isPrivateKey(fields.private_key)) {
    problems.push({ path: 'credentials.token', message: 'the key file’s private_key is not a PEM private key' });
  }
  const fileUri = typeof fields.token_uri === 'string' ? fields.token_uri : undefined;
  const tokenUri = options.tokenUri ?? fileUri ?? GOOGLE_TOKEN_URI;
  problems.push(...tokenUriProblems(tokenUri, options, options.tokenUri ? 'tokenUri' : 'credentials.token'));
  if (problems.length > 0) return problems;
  return {
    kind: 'service-account',
    email: fields.client_email as string,
    privateKey: fields.private_key as string,
    ...(typeof fields.private_key_id === 'string' ? { keyId: fields.private_key_id } : {}),
    tokenUri,
  };
}

/** The secrets a credential holds besides the text the connector already scrubs (the key inside the JSON). */
export function credentialSecrets(credential: ChronicleCredential): string[] {
  if (credential.kind === 'access-token') return [credential.token];
  // The PEM's base64 body lines too: a message could quote a line of it without the armour.
  const lines = credential.privateKey.split(/\r?\n/).filter((line) => line.length >= 16 && !line.startsWith('-----'));
  return [credential.privateKey, credential.privateKey.replace(/\n/g, '\\n'), ...lines];
}

function isPrivateKey(pem: string): boolean {
  if (!pem.includes('PRIVATE KEY-----')) return false;
  try {
    return createPrivateKey(pem).asymmetricKeyType === 'rsa';
  } catch {
    return false;
  }
}

function tokenUriProblems(uri: string, options: Options, path: string): ConfigurationIssue[] {
  let url: URL;
  try {
    url = new URL(uri);
  } catch {
    return [{ path, message: 'the token endpoint (token_uri) is not a URL' }];
  }
  if (url.protocol !== `${options.protocol}:`) {
    return [
      {
        path,
        message: `the token endpoint ${url.origin} must use the connector's protocol (${options.protocol}), since it is reached over the same connections`,
      },
    ];
  }
  return [];
}
