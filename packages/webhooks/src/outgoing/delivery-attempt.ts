import { retryAfter } from '@threatlib/core/integration';
import { type Dispatcher, request } from 'undici';
import { BlockedAddressError } from '../network/blocked-address-error.js';
import type { OutgoingEndpoint } from './outgoing-endpoint.js';
import { addStandardWebhooksHeaders } from './standard-webhooks-signature.js';

/** Most bytes of a receiver's answer read (the rest is discarded unread). */
const MAX_ANSWER_BYTES = 64 * 1024;
const USER_AGENT = 'threatlib-webhooks';

/** How one attempt ended. */
export type AttemptOutcome =
  | { kind: 'delivered'; statusCode: number }
  /** The receiver answered 410 Gone: the endpoint is disabled. */
  | { kind: 'gone'; statusCode: 410 }
  /** The network policy refused the address: no byte was sent, and trying again cannot help. */
  | { kind: 'blocked'; error: string }
  /**
   * The HTTP client refused the request as built (a header value it cannot send, from a delivery written before such
   * values were refused at `trigger`): no byte was sent, and trying again cannot help.
   */
  | { kind: 'unsendable'; error: string }
  /** Anything else: a non-2xx answer (a redirect included), a timeout, a network fault. Worth another attempt. */
  | { kind: 'failed'; error: string; statusCode?: number; retryAfterMs?: number }
  /** The manager is stopping: the attempt was cut short and stays due. */
  | { kind: 'aborted' };

/** What {@link attemptDelivery} needs. */
export interface AttemptInput {
  endpoint: OutgoingEndpoint;
  messageId: string;
  body: string;
  nowMs: number;
  dispatcher: Dispatcher;
  timeoutMs: number;
  /** Whether the manager is stopping: a request that fails then was cut short by it (the dispatcher destroyed). */
  stopping: () => boolean;
}

/**
 * POSTs one delivery: the body as JSON, the endpoint's headers as given, `webhook-id`, `webhook-timestamp` and (with a
 * secret) `webhook-signature` for this attempt. Redirects are not followed: a 3xx is a failure like any non-2xx.
 * Never throws.
 */
export async function attemptDelivery(input: AttemptInput): Promise<AttemptOutcome> {
  const { endpoint } = input;
  try {
    const headers: Record<string, string> = { 'user-agent': USER_AGENT, ...endpoint.headers };
    headers['content-type'] = 'application/json';
    addStandardWebhooksHeaders(headers, input.messageId, input.nowMs, input.body, endpoint.key);
    const response = await request(endpoint.url, {
      method: 'POST',
      headers,
      body: input.body,
      dispatcher: input.dispatcher,
      headersTimeout: input.timeoutMs,
      bodyTimeout: input.timeoutMs,
    });
    await response.body.dump({ limit: MAX_ANSWER_BYTES }).catch(() => undefined);
    const statusCode = response.statusCode;
    if (statusCode >= 200 && statusCode < 300) return { kind: 'delivered', statusCode };
    if (statusCode === 410) return { kind: 'gone', statusCode };
    const given = response.headers['retry-after'];
    const wait =
      given === undefined
        ? undefined
        : retryAfter({ 'retry-after': Array.isArray(given) ? (given[0] ?? '') : given }, input.nowMs);
    const redirect = statusCode >= 300 && statusCode < 400 ? ' (a redirect: not followed)' : '';
    return {
      kind: 'failed',
      statusCode,
      error: `the receiver answered HTTP ${statusCode}${redirect}`,
      ...(wait === undefined ? {} : { retryAfterMs: wait }),
    };
  } catch (error) {
    if (input.stopping()) return { kind: 'aborted' };
    const blocked = BlockedAddressError.find(error);
    if (blocked) return { kind: 'blocked', error: blocked.message };
    if ((error as { code?: string }).code === 'UND_ERR_INVALID_ARG') {
      return { kind: 'unsendable', error: `the request cannot be sent: ${(error as Error).message}` };
    }
    return { kind: 'failed', error: describeFailure(error, input.timeoutMs) };
  }
}

function describeFailure(error: unknown, timeoutMs: number): string {
  const code = (error as { code?: string }).code;
  if (code === 'UND_ERR_HEADERS_TIMEOUT' || code === 'UND_ERR_BODY_TIMEOUT') {
    return `no answer within ${timeoutMs} ms`;
  }
  if (code === 'UND_ERR_CONNECT_TIMEOUT') return 'the connection timed out';
  const cause = (error as { cause?: { code?: string } }).cause?.code;
  return `the request failed: ${cause ?? code ?? (error as Error)?.message ?? String(error)}`;
}
