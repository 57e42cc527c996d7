import { describe, expect, it } from 'vitest';
import { UnprocessableMessageError } from '../errors/unprocessable-message-error.js';
import { createQueueMessage } from '../message/queue-message.js';
import { readIndicatorRequest } from './indicator-request.js';

const message = (body: string) =>
  createQueueMessage({
    source: 'q',
    content: Buffer.from(body),
    headers: {},
    attempt: 1,
    id: undefined,
    key: undefined,
  });

function reason(body: string): string {
  try {
    readIndicatorRequest(message(body));
  } catch (error) {
    expect(UnprocessableMessageError.isInstance(error)).toBe(true);
    return (error as Error).message;
  }
  throw new Error('expected the message to be refused');
}

describe('readIndicatorRequest', () => {
  it('reads {indicator, type}', () => {
    expect(readIndicatorRequest(message('{"indicator":"198.51.100.4","type":"ipv4"}'))).toEqual({
      indicator: '198.51.100.4',
      type: 'ipv4',
    });
    expect(readIndicatorRequest(message('{"indicator":"evil.example.net"}'))).toEqual({
      indicator: 'evil.example.net',
    });
  });

  it('says what is wrong with a malformed message', () => {
    expect(reason('hello')).toMatch(/^message is not JSON .*"hello"$/);
    expect(reason('[1]')).toBe('expected a JSON object {"indicator": "...", "type"?: "..."}, got an array');
    expect(reason('{"type":"ipv4"}')).toBe('no "indicator" field in the message');
    expect(reason('{"indicator":42}')).toBe('"indicator" must be a non-empty string, got 42');
    expect(reason('{"indicator":"1.2.3.4","type":"ip"}')).toMatch(/^"type" must be one of ipv4, ipv6, domain/);
  });
});
