import { describe, expect, it } from 'vitest';
import { parseRecord } from './parse-record.js';
import { IndicatorMessageSchema, ProcessedMessageSchema } from './queue-messages.js';

describe('IndicatorMessageSchema', () => {
  it('accepts the documented {indicator, type}, with ip among the types', () => {
    expect(parseRecord(IndicatorMessageSchema, { indicator: '8.8.8.8', type: 'ip' }, 'message')).toEqual({
      indicator: '8.8.8.8',
      type: 'ip',
    });
    expect(parseRecord(IndicatorMessageSchema, { indicator: 'evil.com', type: 'domain' }, 'message')).toEqual({
      indicator: 'evil.com',
      type: 'domain',
    });
  });

  it('detects the type when none is given, and ignores fields of the producer', () => {
    expect(parseRecord(IndicatorMessageSchema, { indicator: 'evil.com', requestId: 7 }, 'message')).toEqual({
      indicator: 'evil.com',
    });
  });

  it.each([
    [{}, 'indicator: required'],
    [{ indicator: 4 }, 'indicator: expected a string'],
    [{ indicator: ' ' }, 'indicator: must not be empty'],
    [{ indicator: '8.8.8.8', type: 'address' }, 'type: expected one of ipv4, ipv6, domain'],
  ])('refuses %j, naming the field', (content, message) => {
    expect(() => parseRecord(IndicatorMessageSchema, content, 'message')).toThrow(message);
  });

  // A queue message is anyone's JSON: a refusal must be a ValidationError (the message is dead-lettered at once),
  // never a RangeError from quoting the value (the message would be retried, then dead-lettered as "exhausted").
  it('refuses a type nested far past the stack, or megabytes long, with a short message', () => {
    const deep = JSON.parse(`{"indicator":"8.8.8.8","type":${'['.repeat(100_000)}${']'.repeat(100_000)}}`);
    expect(() => parseRecord(IndicatorMessageSchema, deep, 'message')).toThrow(
      'type: expected one of ipv4, ipv6, domain, url, md5, sha1, sha256, email, ip, hostname, got an array',
    );
    const long = { indicator: '8.8.8.8', type: 't'.repeat(1_000_000) };
    expect(() => parseRecord(IndicatorMessageSchema, long, 'message')).toThrow(
      expect.objectContaining({ message: expect.stringMatching(/got "t{100}…"$/) }),
    );
  });
});

describe('ProcessedMessageSchema', () => {
  it('accepts {indicator, results, processedAt}', () => {
    const message = {
      indicator: '8.8.8.8',
      results: [{ feed: 'feed_otx', status: 'ok', verdict: 'clean', score: 0 }],
      processedAt: '2026-01-01T00:00:00.000Z',
    };
    expect(parseRecord(ProcessedMessageSchema, message, 'processed message')).toEqual(message);
    expect(() => parseRecord(ProcessedMessageSchema, { ...message, processedAt: 1 }, 'processed message')).toThrow(
      'processedAt: ',
    );
  });
});
