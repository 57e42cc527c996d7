import { createHmac, createSecretKey, type KeyObject } from 'node:crypto';
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
/** GitHub's delivery id, a GUID; any short printable token is taken. */
const DELIVERY_ID = /^[\x21-\x7e]{1,256}$/;

/**
 * GitHub's scheme (https://docs.github.com/en/webhooks/using-webhooks/validating-webhook-deliveries): the header
 * `X-Hub-Signature-256: sha256=<hex of HMAC-SHA256(secret, body)>`, the secret used as its UTF-8 bytes. The request
 * carries no signed time, so nothing stops a captured request from being replayed except its `X-GitHub-Delivery` id,
 * remembered for `replayWindowSeconds` (and while the replay cache has room).
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
    return header !== undefined && SIGNATURE.test(header)
      ? { plausible: true }
      : { plausible: false, reason: 'X-Hub-Signature-256 missing, repeated or not "sha256=<64 hex digits>"' };
  }

  verify({ headers, body }: SignedRequest, nowMs: number): Verification {
    const header = singleHeader(headers, 'x-hub-signature-256');
    const hex = header === undefined ? undefined : SIGNATURE.exec(header)?.[1];
    if (hex === undefined) {
      return { verified: false, reason: 'X-Hub-Signature-256 missing, repeated or not "sha256=<64 hex digits>"' };
    }
    const expected = this.#keys.map((key) => createHmac('sha256', key).update(body).digest());
    if (!matchesAny(Buffer.from(hex, 'hex'), expected)) {
      return { verified: false, reason: 'X-Hub-Signature-256 matched no secret' };
    }
    const delivery = singleHeader(headers, 'x-github-delivery');
    return {
      verified: true,
      messageId: delivery !== undefined && DELIVERY_ID.test(delivery) ? delivery : undefined,
      replayableUntil: nowMs + this.#replayWindowMs,
    };
  }
}
