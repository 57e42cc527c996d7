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

/** Most signatures of one request looked at (a sender rotating keys sends two or three). */
const MAX_SIGNATURES = 16;
/** A message id: printable ASCII without spaces, as Standard Webhooks ids (`msg_2KWPBgLlAfxdpx2AI54pPJ85f4W`) are. */
const MESSAGE_ID = /^[\x21-\x7e]{1,256}$/;
/** Whole seconds since the epoch. */
const TIMESTAMP = /^[0-9]{1,12}$/;
/** A `v1` signature: base64 of 32 bytes. */
const V1_SIGNATURE = /^v1,([A-Za-z0-9+/]{43}=)$/;

/**
 * The Standard Webhooks scheme (https://www.standardwebhooks.com, "Verifying webhook authenticity"): the sender puts
 * `webhook-id`, `webhook-timestamp` (seconds) and `webhook-signature` on the request, the signature being
 * `v1,<base64 of HMAC-SHA256(key, "<id>.<timestamp>.<body>")>`; several space-separated signatures are sent while
 * keys rotate and one matching is enough. A timestamp further than `toleranceSeconds` from now, either way, is
 * refused.
 */
export class StandardWebhooksScheme implements SignatureScheme {
  readonly name = 'standard-webhooks';
  /** As `KeyObject`s: an HMAC made with one is several times cheaper than with a Buffer. */
  readonly #keys: readonly KeyObject[];
  readonly #toleranceMs: number;

  /** @param keys the secrets' key bytes (a `whsec_` secret decoded). */
  constructor(keys: readonly Buffer[], toleranceSeconds: number) {
    this.#keys = keys.map((key) => createSecretKey(key));
    this.#toleranceMs = toleranceSeconds * 1000;
  }

  precheck(headers: IncomingHttpHeaders, nowMs: number): Precheck {
    const id = singleHeader(headers, 'webhook-id');
    const timestamp = singleHeader(headers, 'webhook-timestamp');
    const signatures = singleHeader(headers, 'webhook-signature');
    if (id === undefined || timestamp === undefined || signatures === undefined) {
      return { plausible: false, reason: 'webhook-id, webhook-timestamp or webhook-signature missing or repeated' };
    }
    if (!MESSAGE_ID.test(id)) return { plausible: false, reason: 'webhook-id is not 1 to 256 printable characters' };
    if (!TIMESTAMP.test(timestamp)) return { plausible: false, reason: 'webhook-timestamp is not whole seconds' };
    const offset = nowMs - Number(timestamp) * 1000;
    if (Math.abs(offset) > this.#toleranceMs) {
      return {
        plausible: false,
        reason: `webhook-timestamp is ${Math.round(offset / 1000)} s from now, beyond the tolerance (${this.#toleranceMs / 1000} s)`,
      };
    }
    const wellFormed = signatures
      .split(' ')
      .slice(0, MAX_SIGNATURES)
      .some((signature) => V1_SIGNATURE.test(signature));
    return wellFormed
      ? { plausible: true }
      : { plausible: false, reason: 'webhook-signature has no "v1,<base64>" signature' };
  }

  verify({ headers, body }: SignedRequest, nowMs: number): Verification {
    const id = singleHeader(headers, 'webhook-id');
    const timestamp = singleHeader(headers, 'webhook-timestamp');
    const signatures = singleHeader(headers, 'webhook-signature');
    if (id === undefined || timestamp === undefined || signatures === undefined) {
      return { verified: false, reason: 'webhook-id, webhook-timestamp or webhook-signature missing or repeated' };
    }
    if (!MESSAGE_ID.test(id)) return { verified: false, reason: 'webhook-id is not 1 to 256 printable characters' };
    if (!TIMESTAMP.test(timestamp)) return { verified: false, reason: 'webhook-timestamp is not whole seconds' };
    const sentAt = Number(timestamp) * 1000;
    const given = signatures
      .split(' ')
      .slice(0, MAX_SIGNATURES)
      .map((signature) => V1_SIGNATURE.exec(signature)?.[1])
      .filter((signature): signature is string => signature !== undefined)
      .map((signature) => Buffer.from(signature, 'base64'));
    // The signature is checked even when the timestamp is out of tolerance: the time taken says nothing of which.
    const expected = this.#keys.map((key) =>
      createHmac('sha256', key).update(`${id}.${timestamp}.`).update(body).digest(),
    );
    const signed = given.some((signature) => matchesAny(signature, expected));
    if (Math.abs(nowMs - sentAt) > this.#toleranceMs) {
      return {
        verified: false,
        reason: `webhook-timestamp is ${Math.round((nowMs - sentAt) / 1000)} s from now, beyond the tolerance (${this.#toleranceMs / 1000} s)${signed ? '' : ', and no signature matched'}`,
      };
    }
    if (!signed) {
      return {
        verified: false,
        reason:
          given.length === 0 ? 'webhook-signature has no "v1,<base64>" signature' : 'no v1 signature matched a secret',
      };
    }
    return { verified: true, replayKey: id, replayableUntil: sentAt + this.#toleranceMs };
  }
}
