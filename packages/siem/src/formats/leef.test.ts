import { describe, expect, it } from 'vitest';
import { EventFormatError } from './event-format-error.js';
import { formatLeef, type LeefEvent, type LeefEventInput, resolveLeefDelimiter } from './leef.js';
import { parseLeef } from './leef-parser.js';

const v1: LeefEventInput = {
  version: '1.0',
  vendor: 'Microsoft',
  product: 'MSExchange',
  productVersion: '4.0 SP1',
  eventId: '15345',
  attributes: {
    src: '192.0.2.0',
    dst: '172.50.123.1',
    sev: '5',
    cat: 'anomaly',
    msg: 'there are spaces in this message',
  },
};
const v2: LeefEventInput = {
  version: '2.0',
  vendor: 'Lancope',
  product: 'StealthWatch',
  productVersion: '1.0',
  eventId: '41',
  delimiter: '^',
  attributes: { src: '10.0.1.8', dst: '10.0.0.5', sev: '5', srcPort: '81', dstPort: '21' },
};

function errorOf(run: () => unknown): EventFormatError {
  try {
    run();
  } catch (error) {
    if (EventFormatError.isInstance(error)) return error;
    throw error;
  }
  throw new Error('expected an EventFormatError');
}

describe('LEEF as IBM defines it', () => {
  it('writes and reads IBM’s LEEF 1.0 example, attributes separated by tabs', () => {
    const line = formatLeef(v1);
    expect(line).toBe(
      'LEEF:1.0|Microsoft|MSExchange|4.0 SP1|15345|src=192.0.2.0\tdst=172.50.123.1\tsev=5\tcat=anomaly\tmsg=there are spaces in this message',
    );
    expect(parseLeef(line)).toEqual({ ...v1, delimiter: '\t' });
  });

  it('writes and reads IBM’s LEEF 2.0 example with its caret delimiter', () => {
    const line = formatLeef(v2);
    expect(line).toBe('LEEF:2.0|Lancope|StealthWatch|1.0|41|^|src=10.0.1.8^dst=10.0.0.5^sev=5^srcPort=81^dstPort=21');
    expect(parseLeef(line)).toEqual(v2);
  });

  it.each([
    ['x09', '\t'],
    ['0x09', '\t'],
    ['x5E', '^'],
    ['0x5e', '^'],
    ['~', '~'],
  ])('reads a LEEF 2.0 delimiter written %s', (field, delimiter) => {
    const line = `LEEF:2.0|V|P|1|E|${field}|a=1${delimiter}b=x y`;
    expect(parseLeef(line)).toMatchObject({ delimiter, attributes: { a: '1', b: 'x y' } });
  });

  it('reads LEEF 2.0 without its optional delimiter field as tab-delimited', () => {
    expect(parseLeef('LEEF:2.0|V|P|1|E|a=1\tb=2|3')).toMatchObject({
      delimiter: '\t',
      attributes: { a: '1', b: '2|3' },
    });
  });

  it('names a tab delimiter in hex (x09) and escapes tabs in values as \\t', () => {
    const line = formatLeef({ ...v2, delimiter: '\t', attributes: { msg: 'a\tb' } });
    expect(line).toBe('LEEF:2.0|Lancope|StealthWatch|1.0|41|x09|msg=a\\tb');
    expect(parseLeef(line).attributes).toEqual({ msg: 'a\tb' });
  });

  it('writes a LEEF 2.0 event whose values hold the delimiter with a tab delimiter instead', () => {
    const event = { ...v2, attributes: { msg: 'up ^ down', other: 'x' } };
    expect(resolveLeefDelimiter(event)).toBe('\t');
    const line = formatLeef(event);
    expect(line).toBe('LEEF:2.0|Lancope|StealthWatch|1.0|41|x09|msg=up ^ down\tother=x');
    expect(parseLeef(line)).toEqual({ ...event, delimiter: '\t' });
  });

  it('escapes pipes and backslashes in the header, and backslashes and line breaks in values', () => {
    const event: LeefEvent = {
      version: '2.0',
      vendor: 'a|b',
      product: 'c\\d',
      productVersion: '1',
      eventId: 'e=f',
      delimiter: '^',
      attributes: { msg: 'C:\\dir\nline two\r', eq: 'a=b=c', pipe: 'x|y' },
    };
    const line = formatLeef(event);
    expect(line).toBe('LEEF:2.0|a\\|b|c\\\\d|1|e=f|^|msg=C:\\\\dir\\nline two\\r^eq=a=b=c^pipe=x|y');
    expect(parseLeef(line)).toEqual(event);
  });

  it('keeps empty values and non-ASCII text', () => {
    const event = { ...v2, attributes: { a: '', b: 'Ünïcödé 💥', c: ' ' } };
    expect(parseLeef(formatLeef(event))).toEqual(event);
  });

  it.each([
    [{ vendor: 'a\nb' }, 'vendor has the control or line-separator character U+000A'],
    [{ eventId: 'a\rb' }, 'eventId has the control or line-separator character U+000D'],
    [{ product: 'a\u0000b' }, 'product has the control or line-separator character U+0000'],
    [{ productVersion: '1\u0085' }, 'productVersion has the control or line-separator character U+0085'],
    [{ eventId: 'a\u2028b' }, 'eventId has the control or line-separator character U+2028'],
    [{ vendor: 'a\u2029b' }, 'vendor has the control or line-separator character U+2029'],
    [{ attributes: { 'a\u0000b': 'x' } }, 'attribute key "a\\u0000b" must be non-empty'],
    [{ attributes: { 'a\u0085b': 'x' } }, 'attribute key "a\\u0085b" must be non-empty'],
    [{ version: '3.0' }, 'version must be 1.0 or 2.0'],
    [{ attributes: { 'a b': 'x' } }, 'attribute key "a b" must be non-empty'],
    [{ attributes: { 'a=b': 'x' } }, 'attribute key "a=b"'],
    [{ attributes: { '': 'x' } }, 'attribute key ""'],
    [{ delimiter: '|' }, 'delimiter cannot be "|"'],
    [{ delimiter: '=' }, 'delimiter cannot be "="'],
    [{ delimiter: '\\' }, 'delimiter cannot be "\\\\"'],
    [{ delimiter: '\n' }, 'delimiter cannot be the control character "\\n"'],
    [{ delimiter: '\u0000' }, 'delimiter cannot be the control character "\\u0000"'],
    [{ delimiter: '\u000b' }, 'delimiter cannot be the control character "\\u000b"'],
    [{ delimiter: '^^' }, 'delimiter must be one US-ASCII character'],
    [{ delimiter: '¦' }, 'delimiter must be one US-ASCII character'],
  ])('refuses to write %j', (change, message) => {
    expect(errorOf(() => formatLeef({ ...v2, ...change } as LeefEventInput)).message).toContain(message);
  });
});

// Issue 21, finding 4: the parser assigned each attribute, so a "__proto__" attribute became the result's prototype.
describe('LEEF attributes named like prototype keys', () => {
  it('are written and read back as attributes', () => {
    const attributes = JSON.parse('{"__proto__":"x","constructor":"y","prototype":"z"}') as Record<string, string>;
    const line = formatLeef({ ...v2, delimiter: '^', attributes });
    expect(line).toBe('LEEF:2.0|Lancope|StealthWatch|1.0|41|^|__proto__=x^constructor=y^prototype=z');
    const parsed = parseLeef(line).attributes;
    expect(Object.keys(parsed)).toEqual(['__proto__', 'constructor', 'prototype']);
    expect(Object.getPrototypeOf(parsed)).toBe(Object.prototype);
    expect(Object.getOwnPropertyDescriptor(parsed, '__proto__')?.value).toBe('x');
  });
});

describe('the strict LEEF parser', () => {
  it.each([
    ['no LEEF prefix', 'CEF:0|v|p|1|100|n|5|', 'expected "LEEF:1.0|" or "LEEF:2.0|"', 0],
    ['an unknown version', 'LEEF:1|V|P|1|E|a=1', 'expected "LEEF:1.0|" or "LEEF:2.0|"', 0],
    ['a header without its closing pipe', 'LEEF:1.0|V|P|1|E', 'the header ends before eventId', 16],
    ['an escape the header does not have', 'LEEF:1.0|V|P\\^|1|E|', '"\\" in product must escape', 12],
    ['a line break in the header', 'LEEF:1.0|V\n|P|1|E|', 'vendor has a line break', 10],
    ['"|" named as the delimiter', 'LEEF:2.0|V|P|1|E|x7C|a=1', 'the delimiter cannot be "|"', 17],
    ['"=" named as the delimiter', 'LEEF:2.0|V|P|1|E|=|a=1', 'the delimiter cannot be "="', 17],
    ['a tab left in a LEEF 1.0 value', 'LEEF:1.0|V|P|1|E|a=x\ty', 'an attribute without "="', 21],
    ['the delimiter left in a LEEF 2.0 value', 'LEEF:2.0|V|P|1|E|^|a=x^y^b=2', 'an attribute without "="', 23],
    ['a doubled delimiter', 'LEEF:1.0|V|P|1|E|a=1\t\tb=2', 'an empty attribute', 21],
    ['a trailing delimiter', 'LEEF:1.0|V|P|1|E|a=1\t', 'an empty attribute (a trailing', 17],
    ['a key with a space', 'LEEF:1.0|V|P|1|E|a b=1', 'attribute key "a b"', 17],
    ['an empty key', 'LEEF:1.0|V|P|1|E|=1', 'attribute key ""', 17],
    ['an escape LEEF values do not have', 'LEEF:1.0|V|P|1|E|a=x\\=y', '"\\" in a value must start', 20],
    ['a trailing lone backslash', 'LEEF:1.0|V|P|1|E|a=x\\', '"\\" in a value must start', 20],
    ['a raw line break in a value', 'LEEF:1.0|V|P|1|E|a=x\ny', 'a line break in a value', 20],
    ['a key given twice', 'LEEF:1.0|V|P|1|E|a=1\ta=2', 'attribute key "a" is given twice', 21],
  ])('refuses %s, saying where', (_title, line, message, position) => {
    const error = errorOf(() => parseLeef(line));
    expect(error.message).toContain(message);
    expect(error.position).toBe(position);
  });

  it('reads a header with no attributes', () => {
    expect(parseLeef('LEEF:1.0|V|P|1|E|').attributes).toEqual({});
    expect(parseLeef('LEEF:2.0|V|P|1|E|^|')).toMatchObject({ delimiter: '^', attributes: {} });
  });
});
