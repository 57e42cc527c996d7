import { createHash, createHmac, timingSafeEqual } from 'node:crypto';
import type { CloudRequest } from './cloud-service.js';

/** An access key the emulated account holds. */
export interface AccessKey {
  accessKeyId: string;
  secretAccessKey: string;
}

/** What {@link verifySigV4} checks a request against. */
export interface SigV4Expectation {
  /** The service the credential scope must name (`guardduty`). */
  service: string;
  /** The region the credential scope must name (`us-east-1`). */
  region: string;
  /** The account's access keys. */
  keys: readonly AccessKey[];
  /** Epoch ms now, for the 15-minute window AWS allows between `x-amz-date` and its own clock. */
  now: number;
}

/** Why AWS refuses a request before looking at it: its error code, message and HTTP status. */
export interface SigV4Refusal {
  status: number;
  code: string;
  message: string;
}

/** The minutes AWS accepts between a request's `x-amz-date` and its own clock, either way. */
const SKEW_MS = 15 * 60 * 1000;
const ALGORITHM = 'AWS4-HMAC-SHA256';

/**
 * Checks a request's Signature Version 4 the way AWS does, in AWS's order and with its error codes and messages: an
 * `Authorization` header present (`MissingAuthenticationTokenException`), well formed (`IncompleteSignatureException`),
 * a known access key id (`UnrecognizedClientException`), a credential scope naming the expected region and service,
 * `x-amz-date`'s day and `aws4_request` (`InvalidSignatureException`), a date within 15 minutes, a body matching
 * `x-amz-content-sha256`, and a signature recomputed with the secret key from the canonical request. Written from
 * the SigV4 specification, independently of the SDK's signer, so it checks what the SDK sends.
 *
 * @returns undefined when the request is signed correctly, else why AWS would refuse it.
 */
export function verifySigV4(request: CloudRequest, expected: SigV4Expectation): SigV4Refusal | undefined {
  const authorization = header(request, 'authorization');
  if (authorization === undefined) {
    return { status: 403, code: 'MissingAuthenticationTokenException', message: 'Missing Authentication Token' };
  }
  const parsed = parseAuthorization(authorization);
  if (typeof parsed === 'string') return { status: 403, code: 'IncompleteSignatureException', message: parsed };
  const amzDate = header(request, 'x-amz-date');
  if (amzDate === undefined || !/^\d{8}T\d{6}Z$/.test(amzDate)) {
    return {
      status: 403,
      code: 'IncompleteSignatureException',
      message: `Authorization header requires existence of either a 'X-Amz-Date' or a 'Date' header. Authorization=${ALGORITHM} Credential=${parsed.accessKeyId}/...`,
    };
  }
  const key = expected.keys.find((k) => k.accessKeyId === parsed.accessKeyId);
  if (key === undefined) {
    return {
      status: 403,
      code: 'UnrecognizedClientException',
      message: 'The security token included in the request is invalid.',
    };
  }
  const [day, region, service, terminator] = parsed.scope;
  if (service !== expected.service) {
    return {
      status: 403,
      code: 'InvalidSignatureException',
      message: `Credential should be scoped to correct service: '${expected.service}'. `,
    };
  }
  if (region !== expected.region) {
    return {
      status: 403,
      code: 'InvalidSignatureException',
      message: `Credential should be scoped to a valid region. `,
    };
  }
  if (day !== amzDate.slice(0, 8) || terminator !== 'aws4_request') {
    return {
      status: 403,
      code: 'InvalidSignatureException',
      message: `Credential should be scoped to a valid date and end with 'aws4_request'. `,
    };
  }
  const signedAt = Date.parse(
    `${amzDate.slice(0, 4)}-${amzDate.slice(4, 6)}-${amzDate.slice(6, 8)}T${amzDate.slice(9, 11)}:${amzDate.slice(11, 13)}:${amzDate.slice(13, 15)}Z`,
  );
  if (Number.isNaN(signedAt) || Math.abs(expected.now - signedAt) > SKEW_MS) {
    return {
      status: 403,
      code: 'InvalidSignatureException',
      message: `Signature expired: ${amzDate} is now earlier or later than the 15 minutes allowed around ${isoBasic(expected.now)}.`,
    };
  }
  if (!parsed.signedHeaders.includes('host')) {
    return {
      status: 403,
      code: 'InvalidSignatureException',
      message: "'Host' or ':authority' must be a 'SignedHeader' in the AWS Authorization.",
    };
  }
  const bodyHash = sha256Hex(request.raw);
  const declaredHash = header(request, 'x-amz-content-sha256');
  if (declaredHash !== undefined && declaredHash !== 'UNSIGNED-PAYLOAD' && declaredHash !== bodyHash) {
    return {
      status: 400,
      code: 'XAmzContentSHA256Mismatch',
      message: 'The provided x-amz-content-sha256 header does not match what was computed.',
    };
  }
  const canonical = canonicalRequest(request, parsed.signedHeaders, declaredHash ?? bodyHash);
  const scope = parsed.scope.join('/');
  const stringToSign = [ALGORITHM, amzDate, scope, sha256Hex(canonical)].join('\n');
  let signingKey: Buffer = hmac(`AWS4${key.secretAccessKey}`, day);
  for (const part of [region, service, 'aws4_request']) signingKey = hmac(signingKey, part);
  const signature = hmac(signingKey, stringToSign).toString('hex');
  if (!sameHex(signature, parsed.signature)) {
    return {
      status: 403,
      code: 'InvalidSignatureException',
      message:
        'The request signature we calculated does not match the signature you provided. Check your AWS Secret Access Key and signing method. Consult the service documentation for details.',
    };
  }
  return undefined;
}

interface ParsedAuthorization {
  accessKeyId: string;
  /** `[day, region, service, 'aws4_request']`. */
  scope: string[];
  signedHeaders: string[];
  signature: string;
}

function parseAuthorization(value: string): ParsedAuthorization | string {
  if (!value.startsWith(`${ALGORITHM} `)) {
    return `Authorization header requires '${ALGORITHM}' as its algorithm.`;
  }
  const fields = new Map<string, string>();
  for (const part of value.slice(ALGORITHM.length + 1).split(',')) {
    const eq = part.indexOf('=');
    if (eq > 0) fields.set(part.slice(0, eq).trim(), part.slice(eq + 1).trim());
  }
  for (const name of ['Credential', 'SignedHeaders', 'Signature']) {
    if (!fields.get(name)) return `Authorization header requires '${name}' parameter.`;
  }
  const credential = (fields.get('Credential') as string).split('/');
  if (credential.length !== 5 || credential.some((part) => part === '')) {
    return 'Credential must have exactly 5 slash-delimited elements, e.g. keyid/date/region/service/term,';
  }
  const [accessKeyId, ...scope] = credential as [string, ...string[]];
  return {
    accessKeyId,
    scope,
    signedHeaders: (fields.get('SignedHeaders') as string).split(';'),
    signature: fields.get('Signature') as string,
  };
}

/** The canonical request of SigV4 for a service other than S3 (path segments encoded again, as signed). */
function canonicalRequest(request: CloudRequest, signedHeaders: readonly string[], payloadHash: string): string {
  const path = normalisedPath(request.path)
    .split('/')
    .map((segment) => encodeRfc3986(segment))
    .join('/');
  const query = [...request.query.entries()]
    .map(([name, value]) => [encodeRfc3986(name), encodeRfc3986(value)] as const)
    .sort(([a, av], [b, bv]) => (a === b ? compare(av, bv) : compare(a, b)))
    .map(([name, value]) => `${name}=${value}`)
    .join('&');
  const headers = signedHeaders
    .map((name) => `${name}:${(header(request, name) ?? '').trim().replace(/\s+/g, ' ')}\n`)
    .join('');
  return [request.method, path || '/', query, headers, signedHeaders.join(';'), payloadHash].join('\n');
}

/** The path with empty, `.` and `..` segments resolved, as AWS normalises it before signing (S3 aside). */
function normalisedPath(path: string): string {
  const segments: string[] = [];
  for (const segment of path.split('/')) {
    if (segment === '' || segment === '.') continue;
    if (segment === '..') segments.pop();
    else segments.push(segment);
  }
  const trailing = segments.length > 0 && path.endsWith('/') ? '/' : '';
  return `/${segments.join('/')}${trailing}`;
}

function header(request: CloudRequest, name: string): string | undefined {
  const value = request.headers[name];
  return Array.isArray(value) ? value.join(',') : value;
}

function encodeRfc3986(text: string): string {
  return encodeURIComponent(text).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
}

function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

function sha256Hex(data: string | Buffer): string {
  return createHash('sha256').update(data).digest('hex');
}

function hmac(key: string | Buffer, data: string): Buffer {
  return createHmac('sha256', key).update(data, 'utf8').digest();
}

function sameHex(a: string, b: string): boolean {
  const left = Buffer.from(a, 'utf8');
  const right = Buffer.from(b, 'utf8');
  return left.length === right.length && timingSafeEqual(left, right);
}

function isoBasic(ms: number): string {
  return new Date(ms)
    .toISOString()
    .replace(/[-:]/g, '')
    .replace(/\.\d{3}/, '');
}
