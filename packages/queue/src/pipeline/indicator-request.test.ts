import { describe, expect, it } from 'vitest';
import { UnprocessableMessageError } from '../errors/unprocessable-message-error.js';
import { createQueueMessage } from '../message/queue-message.js';
import { MAX_INDICATOR_MESSAGE_BYTES, readIndicatorRequest } from './indicator-request.js';

const message = (body: string) =>
  createQueueMessage({
    source: 'q',
    raw: Buffer.from(body),
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

  it("reads the documented {indicator, type: 'ip'} and {type: 'domain'}", () => {
    expect(readIndicatorRequest(message('{"indicator":"8.8.8.8","type":"ip"}'))).toEqual({
      indicator: '8.8.8.8',
      type: 'ip',
    });
    expect(readIndicatorRequest(message('{"indicator":"evil.com","type":"domain"}'))).toEqual({
      indicator: 'evil.com',
      type: 'domain',
    });
  });

  it('says what is wrong with a malformed message, naming the field', () => {
    expect(reason('hello')).toMatch(/^message is not JSON .*"hello"$/);
    expect(reason('[1]')).toBe('expected a JSON object {"indicator": "...", "type"?: "..."}, got an array');
    expect(reason('{"type":"ipv4"}')).toBe('invalid indicator message: "indicator": required');
    expect(reason('{"indicator":42}')).toBe('invalid indicator message: "indicator": expected a string');
    expect(reason('{"indicator":"1.2.3.4","type":"address"}')).toMatch(
      /^invalid indicator message: "type": expected one of ipv4, ipv6, domain, .*, ip, hostname, got "address"$/,
    );
  });

  // Found against a real broker: such a message was retried to its last attempt and dead-lettered as "exhausted"
  // (RangeError), or its megabytes were decoded and parsed, where a malformed message is dead-lettered at once.
  it('dead-letters at once a type nested far past the stack, saying what it is', () => {
    const deep = `{"indicator":"8.8.8.8","type":${'['.repeat(30_000)}${']'.repeat(30_000)}}`;
    expect(Buffer.byteLength(deep)).toBeLessThan(MAX_INDICATOR_MESSAGE_BYTES);
    // Refused before it is parsed, naming where; a shallow wrong type still gets the record's own message.
    expect(reason(deep)).toMatch(/^message JSON refused: nested deeper than 32 levels at "\\"type\\" > 0 > 0/);
    expect(reason('{"indicator":"8.8.8.8","type":[[1]]}')).toMatch(/"type": expected one of .*, got an array$/);
  });

  it(`refuses a message over ${MAX_INDICATOR_MESSAGE_BYTES} bytes before decoding it, saying so`, () => {
    const padded = (bytes: number) => {
      const body = `{"indicator":"8.8.8.8","pad":"${'a'.repeat(bytes)}"}`;
      return `${body.slice(0, -2 - (body.length - bytes))}"}`;
    };
    expect(Buffer.byteLength(padded(MAX_INDICATOR_MESSAGE_BYTES))).toBe(MAX_INDICATOR_MESSAGE_BYTES);
    expect(readIndicatorRequest(message(padded(MAX_INDICATOR_MESSAGE_BYTES)))).toEqual({ indicator: '8.8.8.8' });
    const big = message(padded(20_000_000));
    expect(reason(padded(MAX_INDICATOR_MESSAGE_BYTES + 1))).toBe(
      `the message is ${MAX_INDICATOR_MESSAGE_BYTES + 1} bytes; an indicator message is at most ${MAX_INDICATOR_MESSAGE_BYTES}`,
    );
    let decoded = false;
    const spy = Object.create(big, {
      content: {
        get: () => {
          decoded = true;
          return big.content;
        },
      },
    });
    expect(() => readIndicatorRequest(spy)).toThrow('the message is 20000000 bytes');
    expect(decoded).toBe(false);
  });
});
