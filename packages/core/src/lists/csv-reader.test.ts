import { describe, expect, it } from 'vitest';
import { readCsv } from './csv-reader.js';

describe('readCsv', () => {
  it('reads quoted fields with commas, doubled quotes and line breaks, and CRLF records', () => {
    const rows = [...readCsv('a,"b,c","say ""hi"""\r\n"multi\r\nline",x\r\n')];
    expect(rows).toEqual([
      { kind: 'record', line: 1, fields: ['a', 'b,c', 'say "hi"'] },
      { kind: 'record', line: 2, fields: ['multi\r\nline', 'x'] },
    ]);
  });

  it('reports comments and skips blank lines, keeping line numbers right', () => {
    const rows = [...readCsv('# header, of sorts\n\n1,2\n#c\n3,\n')];
    expect(rows).toEqual([
      { kind: 'comment', line: 1, text: ' header, of sorts' },
      { kind: 'record', line: 3, fields: ['1', '2'] },
      { kind: 'comment', line: 4, text: 'c' },
      { kind: 'record', line: 5, fields: ['3', ''] },
    ]);
  });

  it('treats # inside a record as data, and a line break inside quotes as part of the field', () => {
    const rows = [...readCsv('"x\n# not a comment",y\nz#1,w')];
    expect(rows).toEqual([
      { kind: 'record', line: 1, fields: ['x\n# not a comment', 'y'] },
      { kind: 'record', line: 3, fields: ['z#1', 'w'] },
    ]);
  });

  it('reports malformed records and carries on', () => {
    const rows = [...readCsv('"a"b,c\nok,1\n"never closed\n')];
    expect(rows).toEqual([
      { kind: 'error', line: 1, reason: 'text follows a closing quote in the same field' },
      { kind: 'record', line: 2, fields: ['ok', '1'] },
      { kind: 'error', line: 3, reason: 'a quoted field is never closed' },
    ]);
  });
});
