import { createHash, createHmac, createSecretKey, type KeyObject } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';
import {
  matchesAny,
  type Precheck,
  type SignatureScheme,
  type SignedRequest,
  singleHeader,
  type Verification,
} from './signature-scheme.js';

/** `sha256=` and 64 hex digits. */
const SIGNATURE = /^sha256=([0-9a-fA-F]{64})$/;
/** GitHub's delivery id, a GUID; any short printable token without spaces is taken. */
const DELIVERY_ID = /^[\x21-\x7e]{1,256}$/;
const SIGNATURE_PROBLEM = 'X-Hub-Signature-256 missing, repeated or not "sha256=<64 hex digits>"';

/**
 * GitHub's scheme (https://docs.github.com/en/webhooks/using-webhooks/validating-webhook-deliveries): the header
 * `X-Hub-Signature-256: sha256=<hex of HMAC-SHA256(secret, body)>`, the secret used as its UTF-8 bytes.
 *
 * GitHub signs the body and nothing else: not `X-GitHub-Delivery`, not `X-GitHub-Event`, not the path, and no time.
 * So a message is known by a digest of its body (changing or dropping the delivery header makes no new message), and
 * remembered for `replayWindowSeconds` after it was received; the event it runs for never comes from a header.
 * `X-GitHub-Delivery` is still required (GitHub always sends it; it names the delivery in the log).
 */
export class GithubScheme implements SignatureScheme {
  readonly name = 'github';
  /** As `KeyObject`s: an HMAC made with one is several times cheaper than with a Buffer. */
  readonly #keys: readonly KeyObject[];
  readonly #replayWindowMs: number;

  constructor(keys: readonly Buffer[], replayWindowSeconds: number) {
    this.#keys = keys.map((key) => createSecretKey(key));
    this.#replayWindowMs = replayWindowSeconds * 1000;
  }

  precheck(headers: IncomingHttpHeaders): Precheck {
    const header = singleHeader(headers, 'x-hub-signature-256');
    if (header === undefined || !SIGNATURE.test(header)) return { plausible: false, reason: SIGNATURE_PROBLEM };
    const problem = deliveryProblem(headers);
    return problem === undefined ? { plausible: true } : { plausible: false, reason: problem, badRequest: problem };
  }

  verify({ headers, body }: SignedRequest, nowMs: number): Verification {
    const header = singleHeader(headers, 'x-hub-signature-256');
    const hex = header === undefined ? undefined : SIGNATURE.exec(header)?.[1];
    if (hex === undefined) return { verified: false, reason: SIGNATURE_PROBLEM };
    const expected = this.#keys.map((key) => createHmac('sha256', key).update(body).digest());
    if (!matchesAny(Buffer.from(hex, 'hex'), expected)) {
      return { verified: false, reason: 'X-Hub-Signature-256 matched no secret' };
    }
    const problem = deliveryProblem(headers);
    if (problem !== undefined) return { verified: false, reason: problem };
    return {
      verified: true,
      replayKey: `sha256:${createHash('sha256').update(body).digest('base64url')}`,
      replayableUntil: nowMs + this.#replayWindowMs,
    };
  }
}

/** What is wrong with the request's `X-GitHub-Delivery`, saying what was received without quoting it; or undefined. */
function deliveryProblem(headers: IncomingHttpHeaders): string | undefined {
  const given = headers['x-github-delivery'];
  if (given === undefined) return 'X-GitHub-Delivery is required (GitHub sends the delivery GUID) and is missing';
  const delivery = typeof given === 'string' ? given : given.join(', ');
  if (DELIVERY_ID.test(delivery)) return undefined;
  const got =
    delivery.length === 0
      ? 'an empty value'
      : delivery.length > 256
        ? `${delivery.length} characters`
        : /[ ,]/.test(delivery)
          ? 'a value with spaces or commas (the header sent twice?)'
          : 'control or non-ASCII characters';
  return `X-GitHub-Delivery must be sent once, 1 to 256 printable ASCII characters without spaces; got ${got}`;
}
