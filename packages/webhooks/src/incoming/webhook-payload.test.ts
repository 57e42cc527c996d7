import { ProblemError } from '@threatlib/core/http-server';
import { describe, expect, it } from 'vitest';
import { readJsonBody, webhookMessage } from './webhook-payload.js';

function refusal(body: Buffer | string, depth = 32) {
  try {
    readJsonBody(Buffer.from(body), depth);
  } catch (error) {
    if (error instanceof ProblemError) return error.problem;
    throw error;
  }
  return undefined;
}

describe('readJsonBody', () => {
  it('reads JSON and keeps a "constructor" key as data', () => {
    expect(readJsonBody(Buffer.from('{"type":"x","data":{"constructor":1}}'), 32)).toEqual({
      type: 'x',
      data: { constructor: 1 },
    });
  });

  it('answers 400 saying why: not UTF-8, not JSON, empty, "__proto__", too deep (a million levels, no overflow)', () => {
    expect(refusal(Buffer.from([0x7b, 0xff, 0x7d]))).toMatchObject({
      status: 400,
      detail: 'the request body is not UTF-8',
    });
    expect(refusal('{"a":')).toMatchObject({ status: 400, detail: 'the request body is not valid JSON' });
    expect(refusal('')).toMatchObject({ status: 400, detail: 'the request body is empty' });
    expect(refusal('{"data":{"__proto__":{"admin":true}}}')).toMatchObject({
      status: 400,
      detail: expect.stringContaining('"__proto__"'),
    });
    expect(refusal(`${'['.repeat(33)}${']'.repeat(33)}`)).toMatchObject({
      status: 400,
      detail: 'the payload is nested deeper than 32 levels of arrays and objects',
    });
    expect(refusal(`${'['.repeat(32)}${']'.repeat(32)}`)).toBeUndefined();
    const n = 1_000_000;
    expect(refusal(`${'{"a":'.repeat(n)}1${'}'.repeat(n)}`)).toMatchObject({ status: 400 });
  });

  it('measures depth over objects and arrays alike', () => {
    const read = (text: string, depth: number) => readJsonBody(Buffer.from(text), depth);
    expect(read('{"a":[{"b":[1]}]}', 4)).toEqual({ a: [{ b: [1] }] });
    expect(() => read('{"a":[{"b":[1]}]}', 3)).toThrow();
    expect(read('"text"', 0)).toBe('text');
  });

  it('refuses a repeated key, which JSON.parse would resolve silently (the last wins)', () => {
    expect(refusal('{"type":"threat-update","data":{"indicator":"evil.example","indicator":"8.8.8.8"}}')).toMatchObject(
      {
        status: 400,
        detail: 'the payload repeats the key "indicator" in one object',
      },
    );
    // Escapes are decoded before keys are compared.
    expect(refusal('{"type":"a","\\u0074ype":"b"}')).toMatchObject({ detail: expect.stringContaining('"type"') });
  });
});

describe('webhookMessage', () => {
  it('reads a Standard Webhooks envelope as its type and data, and anything else as the whole payload', () => {
    const envelope = { type: 'threat-update', timestamp: '2026-01-01T00:00:00Z', data: { indicator: 'evil.example' } };
    expect(webhookMessage(envelope)).toEqual({
      type: 'threat-update',
      envelope: true,
      data: { indicator: 'evil.example' },
    });
    expect(webhookMessage({ type: 'threat-update', indicator: 'x' })).toEqual({
      type: 'threat-update',
      envelope: false,
      data: { type: 'threat-update', indicator: 'x' },
    });
    expect(webhookMessage({ indicator: 'x' })).toEqual({ type: undefined, envelope: false, data: { indicator: 'x' } });
    expect(webhookMessage([1])).toEqual({ type: undefined, envelope: false, data: [1] });
    expect(webhookMessage({ type: 3, data: 1 })).toEqual({
      type: undefined,
      envelope: false,
      data: { type: 3, data: 1 },
    });
  });
});
