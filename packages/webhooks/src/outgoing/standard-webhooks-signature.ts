import { createHmac, type KeyObject } from 'node:crypto';

/**
 * Writes the Standard Webhooks headers of one attempt into `headers`: `webhook-id` (the same on every attempt),
 * `webhook-timestamp` (this attempt's time, in seconds, so that a retry hours later is still within the receiver's
 * tolerance) and, with a key, `webhook-signature: v1,<base64 of HMAC-SHA256(key, "<id>.<timestamp>.<body>")>`.
 */
export function addStandardWebhooksHeaders(
  headers: Record<string, string>,
  messageId: string,
  nowMs: number,
  body: string,
  key: KeyObject | undefined,
): void {
  const timestamp = String(Math.floor(nowMs / 1000));
  headers['webhook-id'] = messageId;
  headers['webhook-timestamp'] = timestamp;
  if (key) {
    const signature = createHmac('sha256', key).update(`${messageId}.${timestamp}.`).update(body).digest('base64');
    headers['webhook-signature'] = `v1,${signature}`;
  }
}
