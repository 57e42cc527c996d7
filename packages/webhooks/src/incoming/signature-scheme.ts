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
      /** The message's id (`webhook-id`, `X-GitHub-Delivery`), when the request has one: replays are keyed on it. */
      messageId: string | undefined;
      /** Epoch ms until which a replay of this message would still verify: how long to remember its id. */
      replayableUntil: number;
    }
  | {
      verified: false;
      /** What failed, for the operator's log only (never answered): no secret, signature or header value in it. */
      reason: string;
    };

/** Whether a request's headers could carry a valid signature, or why not. */
export type Precheck = { plausible: true } | { plausible: false; reason: string };

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
