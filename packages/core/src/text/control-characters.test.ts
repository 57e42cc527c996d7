import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  CONTROL_OR_SEPARATOR,
  codePointName,
  escapeControlCharacters,
  lineSafeJson,
  quoteForDisplay,
} from './control-characters.js';

/** Every C0 control, DEL, every C1 control, U+2028 and U+2029. */
const EVERY_CONTROL = [
  ...Array.from({ length: 0x20 }, (_, i) => String.fromCharCode(i)),
  ...Array.from({ length: 0x21 }, (_, i) => String.fromCharCode(0x7f + i)),
  '\u2028',
  '\u2029',
];

/** Text mixing every control and separator with ordinary and non-ASCII characters. */
const hostileText = fc.string({
  unit: fc.oneof(fc.constantFrom(...EVERY_CONTROL), fc.string({ minLength: 1, maxLength: 1 }), fc.constant('💥')),
  maxLength: 40,
});

describe('CONTROL_OR_SEPARATOR', () => {
  it.each(EVERY_CONTROL.map((c) => [codePointName(c), c]))('matches %s', (_name, c) => {
    expect(CONTROL_OR_SEPARATOR.test(`a${c}b`)).toBe(true);
  });

  it('leaves printable text, non-ASCII letters and emoji alone', () => {
    expect(CONTROL_OR_SEPARATOR.test('evil.example é 漢字 💥 \u00a0 ~')).toBe(false);
  });
});

describe('lineSafeJson', () => {
  it('escapes what JSON.stringify leaves raw (DEL, C1 with NEL, U+2028, U+2029); the value is the same', () => {
    const value = { title: 'a\u0085b\u2028c\u2029d\u007fe\u009f', '\u2028key': ['\u0000'] };
    const json = lineSafeJson(JSON.stringify(value));
    expect(json).toBe('{"title":"a\\u0085b\\u2028c\\u2029d\\u007fe\\u009f","\\u2028key":["\\u0000"]}');
    expect(JSON.parse(json)).toEqual(value);
  });

  it('any JSON value becomes one line without a raw control or separator, and parses back the same', () => {
    fc.assert(
      fc.property(fc.jsonValue(), hostileText, (value, text) => {
        const subject = { value, text, [text]: text };
        const json = lineSafeJson(JSON.stringify(subject));
        expect(CONTROL_OR_SEPARATOR.test(json)).toBe(false);
        expect(JSON.parse(json)).toEqual(JSON.parse(JSON.stringify(subject)));
      }),
    );
  });
});

describe('quoteForDisplay', () => {
  it('quotes, cuts, and shows every control and separator as an escape', () => {
    expect(quoteForDisplay('198.51.100.7\n0.0.0.0/0')).toBe('"198.51.100.7\\n0.0.0.0/0"');
    expect(quoteForDisplay('a\u0000b\u0085c\u2028d')).toBe('"a\\u0000b\\u0085c\\u2028d"');
    expect(quoteForDisplay('x'.repeat(5_000_000), 10)).toBe(`"${'x'.repeat(10)}…"`);
  });

  it('never holds a raw control or separator, whatever the text', () => {
    fc.assert(
      fc.property(hostileText, (text) => {
        expect(CONTROL_OR_SEPARATOR.test(quoteForDisplay(text))).toBe(false);
      }),
    );
  });
});

describe('escapeControlCharacters', () => {
  it('writes \\n, \\r, \\t and \\uXXXX for the rest; other text as it is', () => {
    expect(escapeControlCharacters('a\r\nb\tc\u0000d\u000be\u0085f\u2029g')).toBe(
      'a\\r\\nb\\tc\\u0000d\\u000be\\u0085f\\u2029g',
    );
    expect(escapeControlCharacters('C:\\temp é')).toBe('C:\\temp é');
  });

  it('never leaves a raw control or separator, whatever the text', () => {
    fc.assert(
      fc.property(hostileText, (text) => {
        expect(CONTROL_OR_SEPARATOR.test(escapeControlCharacters(text))).toBe(false);
      }),
    );
  });
});
