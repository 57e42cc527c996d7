import { INDICATOR_TYPES, type IndicatorType, isIndicatorType } from '@threatlib/core';
import { UnprocessableMessageError } from '../errors/unprocessable-message-error.js';
import type { QueueMessage } from '../message/queue-message.js';

/** What an incoming pipeline message asks for. */
export interface IndicatorRequest {
  /** The indicator as sent (the scan normalises it). */
  indicator: string;
  type?: IndicatorType;
}

/**
 * Reads `{indicator, type?}` from a message's content. Whether the indicator itself is valid is the scan's to say
 * (it parses it anyway; the pipeline turns its `InvalidIndicatorError` into an unprocessable message).
 *
 * @throws {UnprocessableMessageError} saying what is wrong: not JSON, not an object, no indicator, an unknown type.
 *   The processor dead-letters such a message with that reason.
 */
export function readIndicatorRequest(message: QueueMessage): IndicatorRequest {
  const body = message.json<unknown>();
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw new UnprocessableMessageError(
      `expected a JSON object {"indicator": "...", "type"?: "..."}, got ${Array.isArray(body) ? 'an array' : body === null ? 'null' : typeof body}`,
    );
  }
  const { indicator, type } = body as Record<string, unknown>;
  if (indicator === undefined) throw new UnprocessableMessageError('no "indicator" field in the message');
  if (typeof indicator !== 'string' || indicator.trim() === '') {
    throw new UnprocessableMessageError(`"indicator" must be a non-empty string, got ${JSON.stringify(indicator)}`);
  }
  if (type !== undefined && !isIndicatorType(type)) {
    throw new UnprocessableMessageError(
      `"type" must be one of ${INDICATOR_TYPES.join(', ')}, got ${JSON.stringify(type)}`,
    );
  }
  return type === undefined ? { indicator } : { indicator, type };
}
