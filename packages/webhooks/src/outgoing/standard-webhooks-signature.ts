import { createHmac } from 'node:crypto';

/** The headers a Standard Webhooks sender puts on a request. */
export interface StandardWebhooksHeaders {
  'webhook-id': string;
  'webhook-timestamp': string;
  'webhook-signature'?: string;
}

/**
 * The Standard Webhooks headers of one attempt: `webhook-id` (the same on every attempt), `webhook-timestamp` (this
 * attempt's time, in seconds, so that a retry hours later is still within the receiver's tolerance) and, with a key,
 * `webhook-signature: v1,<base64 of HMAC-SHA256(key, "<id>.<timestamp>.<body>")>`.
 */
export function standardWebhooksHeaders(
  messageId: string,
  nowMs: number,
  body: string,
  key: Buffer | undefined,
): StandardWebhooksHeaders {
  const timestamp = String(Math.floor(nowMs / 1000));
  if (!key) return { 'webhook-id': messageId, 'webhook-timestamp': timestamp };
  const signature = createHmac('sha256', key).update(`${messageId}.${timestamp}.`).update(body).digest('base64');
  return { 'webhook-id': messageId, 'webhook-timestamp': timestamp, 'webhook-signature': `v1,${signature}` };
}
