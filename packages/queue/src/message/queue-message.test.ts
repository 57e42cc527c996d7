import { describe, expect, it } from 'vitest';
import { UnprocessableMessageError } from '../errors/unprocessable-message-error.js';
import { createQueueMessage } from './queue-message.js';

const message = (raw: Buffer) =>
  createQueueMessage({ source: 'q', raw, headers: {}, attempt: 1, id: undefined, key: undefined });

describe('QueueMessage', () => {
  it('has the body as a string in content, so the documented JSON.parse(message.content) works', () => {
    const received = message(Buffer.from('{"indicator":"8.8.8.8","type":"ip"}'));
    const { indicator, type } = JSON.parse(received.content) as { indicator: string; type: string };
    expect([indicator, type]).toEqual(['8.8.8.8', 'ip']);
    expect(typeof received.content).toBe('string');
  });

  it('keeps the bytes as delivered in raw, and decodes content as UTF-8', () => {
    const bytes = Buffer.from('{"indicator":"münchen.de"}', 'utf8');
    const received = message(bytes);
    expect(received.raw).toBe(bytes);
    expect(received.content).toBe('{"indicator":"münchen.de"}');
    expect(received.json()).toEqual({ indicator: 'münchen.de' });
  });

  it('json() refuses a body that is not JSON as unprocessable, wherever it is called from', () => {
    const { json } = message(Buffer.from('not JSON'));
    expect(() => json()).toThrow(UnprocessableMessageError);
  });

  it('json() refuses a repeated key, which JSON.parse would resolve silently (the last wins, other readers keep the first)', () => {
    const received = message(Buffer.from('{"indicator":"8.8.8.8","type":"ip","indicator":"45.148.10.240"}'));
    expect(() => received.json()).toThrow(UnprocessableMessageError);
    expect(() => received.json()).toThrow(/the key "indicator" appears twice in the object at "the top level"/);
    // Escapes are decoded before keys are compared.
    expect(() => message(Buffer.from('{"type":"ip","\\u0074ype":"url"}')).json()).toThrow(/"type" appears twice/);
  });

  it('json() refuses nesting past the limit before parsing, naming where, with no stack overflow', () => {
    const deep = `{"indicator":"8.8.8.8","meta":${'['.repeat(100_000)}${']'.repeat(100_000)}}`;
    expect(() => message(Buffer.from(deep)).json()).toThrow(/nested deeper than 32 levels at/);
    const ok = `{"indicator":"8.8.8.8","meta":${'['.repeat(31)}${']'.repeat(31)}}`;
    expect(message(Buffer.from(ok)).json()).toMatchObject({ indicator: '8.8.8.8' });
  });

  // Issue 21, finding 4: the REST server and the webhook receiver refuse it; a handler merging a message into an
  // object would have it replace that object's prototype.
  it.each([
    ['{"indicator":"8.8.8.8","__proto__":{"isAdmin":true}}', '__proto__'],
    ['{"indicator":"8.8.8.8","meta":{"list":[{"__proto__":{}}]}}', 'meta.list[0].__proto__'],
    ['{"indicator":"8.8.8.8","\\u005f_proto__":{"isAdmin":true}}', '__proto__'],
  ])('json() refuses a "__proto__" key at any depth, however it is spelt: %s', (text, at) => {
    const received = message(Buffer.from(text));
    expect(() => received.json()).toThrow(UnprocessableMessageError);
    expect(() => received.json()).toThrow(`the key "__proto__" at ${JSON.stringify(at)} is refused`);
    // The documented way still reads the text as it is.
    expect(received.content).toBe(text);
  });

  it('json() keeps "constructor" and "prototype" as the keys they are', () => {
    expect(message(Buffer.from('{"constructor":{"prototype":1}}')).json()).toEqual(
      JSON.parse('{"constructor":{"prototype":1}}'),
    );
  });
});
