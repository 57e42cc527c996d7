import { type IndicatorMessage, IndicatorMessageSchema } from '@threatlib/core';
import { recordIssues } from '@threatlib/core/integration';
import { UnprocessableMessageError } from '../errors/unprocessable-message-error.js';
import type { QueueMessage } from '../message/queue-message.js';

/**
 * The most bytes an incoming indicator message may have: 64 KiB. An indicator is at most 8 KiB, which leaves room
 * for the fields a producer adds (a correlation id); a larger message is dead-lettered before it is decoded.
 */
export const MAX_INDICATOR_MESSAGE_BYTES = 64 * 1024;

/**
 * Reads `{indicator, type?}` (core's `IndicatorMessageSchema`) from a message's content; `type` is any type name
 * core accepts, `ip` and `domain` included. Whether the indicator itself is valid is the scan's to say (it parses
 * it anyway; the pipeline turns its `InvalidIndicatorError` into an unprocessable message).
 *
 * @throws {UnprocessableMessageError} saying what is wrong: larger than {@link MAX_INDICATOR_MESSAGE_BYTES}, not
 *   JSON, not an object, no indicator, an unknown type. The processor dead-letters such a message with that reason.
 */
export function readIndicatorRequest(message: QueueMessage): IndicatorMessage {
  if (message.raw.byteLength > MAX_INDICATOR_MESSAGE_BYTES) {
    throw new UnprocessableMessageError(
      `the message is ${message.raw.byteLength} bytes; an indicator message is at most ${MAX_INDICATOR_MESSAGE_BYTES}`,
    );
  }
  const body = message.json<unknown>();
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw new UnprocessableMessageError(
      `expected a JSON object {"indicator": "...", "type"?: "..."}, got ${Array.isArray(body) ? 'an array' : body === null ? 'null' : typeof body}`,
    );
  }
  const parsed = IndicatorMessageSchema.safeParse(body);
  if (parsed.success) return parsed.data;
  const problems = recordIssues(parsed.error.issues).map((issue) => `"${issue.path}": ${issue.message}`);
  throw new UnprocessableMessageError(`invalid indicator message: ${problems.join('; ')}`);
}
