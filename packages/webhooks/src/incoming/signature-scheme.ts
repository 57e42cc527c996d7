import { timingSafeEqual } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';

/** What a scheme verifies: the request's headers and its body, exactly the bytes received. */
export interface SignedRequest {
  headers: IncomingHttpHeaders;
  body: Buffer;
}

/** A signature that verified, or why not. */
export type Verification =
  | {
      verified: true;
      /**
       * What identifies the message among all the requests its signature makes verify, taken only from what is
       * signed: the `webhook-id` (Standard Webhooks), a digest of the body (GitHub, whose delivery header is not
       * signed). Replays, and the event a message was received for, are remembered under it.
       */
      replayKey: string;
      /** Epoch ms until which a replay of this message would still be remembered: how long to keep its key. */
      replayableUntil: number;
    }
  | {
      verified: false;
      /** What failed, for the operator's log only (never answered): no secret, signature or header value in it. */
      reason: string;
    };

/**
 * Whether a request's headers could carry a valid signature, or why not. `badRequest`, when given, says which header
 * the scheme requires besides the signature is missing or malformed: that request is answered 400 with it (not the
 * one 401, which is kept for what a forger could learn from).
 */
export type Precheck = { plausible: true } | { plausible: false; reason: string; badRequest?: string };

/** How an incoming webhook proves who sent it. */
export interface SignatureScheme {
  /** `standard-webhooks` or `github`. */
  readonly name: string;
  /**
   * What can be checked before the body is read: the signature headers are there once each and well formed, and a
   * signed time is within the tolerance. A request that fails it is refused without its body being read, so an
   * unsigned request costs no HMAC. Never throws on any input.
   */
  precheck(headers: IncomingHttpHeaders, nowMs: number): Precheck;
  /** Checks the request's signature against the shared secrets at `nowMs`. Never throws on any input. */
  verify(request: SignedRequest, nowMs: number): Verification;
}

/** The header's value when the request has it exactly once, else undefined (absent or given twice). */
export function singleHeader(headers: IncomingHttpHeaders, name: string): string | undefined {
  const value = headers[name];
  return typeof value === 'string' ? value : undefined;
}

/**
 * Whether `given` equals one of `expected`, in time that depends only on the lengths: every candidate is compared
 * with `timingSafeEqual`, none skipped once one matched.
 */
export function matchesAny(given: Buffer, expected: readonly Buffer[]): boolean {
  let matched = false;
  for (const candidate of expected) {
    if (candidate.byteLength === given.byteLength && timingSafeEqual(candidate, given)) matched = true;
  }
  return matched;
}
