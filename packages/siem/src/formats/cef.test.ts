import { describe, expect, it } from 'vitest';
import { type CefEvent, formatCef } from './cef.js';
import { parseCef } from './cef-parser.js';
import { EventFormatError } from './event-format-error.js';

const base: CefEvent = {
  version: 0,
  deviceVendor: 'security',
  deviceProduct: 'threatmanager',
  deviceVersion: '1.0',
  deviceEventClassId: '100',
  name: 'worm successfully stopped',
  severity: '10',
  extension: {},
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

describe('CEF as the Implementation Standard writes it', () => {
  // The standard's own examples, "Character Encoding" section.
  it.each([
    [
      'a pipe in the header is escaped, one in the extension is not',
      { ...base, name: 'detected a | in message', extension: { src: '10.0.0.1', act: 'blocked a |', dst: '1.1.1.1' } },
      'CEF:0|security|threatmanager|1.0|100|detected a \\| in message|10|src=10.0.0.1 act=blocked a | dst=1.1.1.1',
    ],
    [
      'a backslash is escaped in the header and in the extension',
      { ...base, name: 'detected a \\ in packet', extension: { src: '10.0.0.1', act: 'blocked a \\', dst: '1.1.1.1' } },
      'CEF:0|security|threatmanager|1.0|100|detected a \\\\ in packet|10|src=10.0.0.1 act=blocked a \\\\ dst=1.1.1.1',
    ],
    [
      'an equal sign is escaped in the extension only',
      { ...base, name: 'detected a = in message', extension: { src: '10.0.0.1', act: 'blocked a =', dst: '1.1.1.1' } },
      'CEF:0|security|threatmanager|1.0|100|detected a = in message|10|src=10.0.0.1 act=blocked a \\= dst=1.1.1.1',
    ],
    [
      'line breaks in an extension value are \\n and \\r',
      {
        ...base,
        name: 'Detected a threat. No action needed.',
        extension: { src: '10.0.0.1', msg: 'Detected a threat.\n No action\r needed.' },
      },
      'CEF:0|security|threatmanager|1.0|100|Detected a threat. No action needed.|10|src=10.0.0.1 msg=Detected a threat.\\n No action\\r needed.',
    ],
    [
      'a value may hold spaces, as a file name does',
      { ...base, extension: { fileName: 'c:\\Program Files\\ArcSight' } },
      'CEF:0|security|threatmanager|1.0|100|worm successfully stopped|10|fileName=c:\\\\Program Files\\\\ArcSight',
    ],
  ])('%s', (_title, event, line) => {
    expect(formatCef(event)).toBe(line);
    expect(parseCef(line)).toEqual(event);
  });

  it('writes the pipe after Severity even with no extension, and reads it back', () => {
    expect(formatCef(base)).toBe('CEF:0|security|threatmanager|1.0|100|worm successfully stopped|10|');
    expect(parseCef('CEF:0|security|threatmanager|1.0|100|worm successfully stopped|10|')).toEqual(base);
  });

  it('keeps empty values, spaces at either end of a value, and non-ASCII text', () => {
    const event = { ...base, name: 'Ünïcödé 💥', extension: { a: '', b: ' x ', c: 'é=ü', d: '' } };
    const line = formatCef(event);
    expect(line).toBe('CEF:0|security|threatmanager|1.0|100|Ünïcödé 💥|10|a= b= x  c=é\\=ü d=');
    expect(parseCef(line)).toEqual(event);
  });

  it('takes the severity words and CEF version 1', () => {
    const event = { ...base, version: 1 as const, severity: 'Very-High' };
    expect(parseCef(formatCef(event))).toEqual(event);
  });

  it.each([
    [{ name: 'two\nlines' }, 'name has the control or line-separator character U+000A'],
    [{ deviceVendor: 'a\rb' }, 'deviceVendor has the control or line-separator character U+000D'],
    [{ deviceProduct: 'a\u0000b' }, 'deviceProduct has the control or line-separator character U+0000'],
    [{ deviceVersion: '1\u0085' }, 'deviceVersion has the control or line-separator character U+0085'],
    [{ deviceEventClassId: 'a\u2028b' }, 'deviceEventClassId has the control or line-separator character U+2028'],
    [{ name: 'a\u2029b' }, 'name has the control or line-separator character U+2029'],
    [{ name: 'a\u000bb' }, 'name has the control or line-separator character U+000B'],
    [{ name: 'a\u000cb' }, 'name has the control or line-separator character U+000C'],
    [{ name: 'a\tb' }, 'name has the control or line-separator character U+0009'],
    [{ severity: '11' }, 'severity must be an integer 0 to 10'],
    [{ severity: 'high' }, 'severity must be an integer 0 to 10'],
    [{ version: 2 }, 'version must be 0 or 1'],
    [{ extension: { 'bad key': 'x' } }, 'extension key "bad key" must be letters and digits only'],
    [{ extension: { 'a=b': 'x' } }, 'extension key "a=b"'],
    [{ extension: { '': 'x' } }, 'extension key ""'],
  ])('refuses to write %j', (change, message) => {
    expect(errorOf(() => formatCef({ ...base, ...change } as CefEvent)).message).toContain(message);
  });
});

describe('the strict CEF parser', () => {
  const head = 'CEF:0|v|p|1|100|n|5|';

  it.each([
    ['no CEF prefix', 'LEEF:1.0|v|p|1|100|', 'expected "CEF:0|" or "CEF:1|"', 0],
    ['an unknown version', 'CEF:2|v|p|1|100|n|5|', 'expected "CEF:0|" or "CEF:1|"', 0],
    ['a missing pipe after Severity', 'CEF:0|v|p|1|100|n|5', 'the header ends before severity', 19],
    ['too few header fields', 'CEF:0|v|p|1|100|n', 'the header ends before name', 17],
    ['an escape the header does not have', 'CEF:0|v|p|1|100|a \\= b|5|', '"\\" in name must escape', 18],
    ['a backslash ending a header field', 'CEF:0|v|p\\|1|100|n|5|', 'the header ends before severity', 21],
    ['a line break in the header', 'CEF:0|v|p|1|100|a\nb|5|', 'name has a line break', 17],
    ['a severity CEF does not define', 'CEF:0|v|p|1|100|n|high|', 'severity must be 0 to 10', 18],
    ['an unescaped "=" in a value', `${head}src=10.0.0.1 act=a=b`, 'an "=" in an extension value must be escaped', 38],
    ['an "=" with no key before it', `${head}act=blocked =x`, 'an "=" in an extension value must be escaped', 32],
    ['an escaped pipe in the extension', `${head}act=a \\| b`, '"\\" in an extension value must escape', 26],
    ['a tab escape, which CEF does not have', `${head}act=a\\tb`, '"\\" in an extension value must escape', 25],
    ['a trailing lone backslash', `${head}act=a\\`, '"\\" in an extension value must escape', 25],
    ['a raw line break in a value', `${head}msg=a\nb`, 'a line break in an extension value', 25],
    ['a space before the first key', `${head} src=1.1.1.1`, 'the extension must start with key=', 20],
    ['a key that is not letters and digits', `${head}src_ip=1.1.1.1`, 'the extension must start with key=', 20],
    ['a pair without "="', `${head}src`, 'the extension must start with key=', 20],
    ['a key given twice', `${head}src=1.1.1.1 src=2.2.2.2`, 'extension key "src" is given twice', 32],
  ])('refuses %s, saying where', (_title, line, message, position) => {
    const error = errorOf(() => parseCef(line));
    expect(error.message).toContain(message);
    expect(error.position).toBe(position);
  });

  it('reads an escaped "=" followed by letters as part of the value, not as a key', () => {
    expect(parseCef(`${head}msg=x a\\=b c=d`).extension).toEqual({ msg: 'x a=b', c: 'd' });
  });
});
