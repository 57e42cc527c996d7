/**
 * One row read by {@link readCsv}: a record (its fields), a comment line (its text after `#`), or a record that
 * could not be read (and why). `line` is the 1-based line the row starts on.
 */
export type CsvRow =
  | { readonly kind: 'record'; readonly line: number; readonly fields: readonly string[] }
  | { readonly kind: 'comment'; readonly line: number; readonly text: string }
  | { readonly kind: 'error'; readonly line: number; readonly reason: string };

/**
 * Reads comma-separated values as RFC 4180 defines them: fields may be quoted with `"`, a quoted field may hold
 * commas, line breaks and doubled quotes (`""`), and records end with CRLF or LF. Beyond the RFC, a line starting
 * with `#` is a comment (abuse.ch exports such as URLhaus begin with `#` lines, the last naming the columns) and
 * blank lines are skipped. A malformed record (text after a closing quote, or a quote never closed) is reported as
 * an `error` row and reading carries on with the next line.
 *
 * @example
 * ```ts
 * [...readCsv('# id,url\n1,"http://evil.example/a,b"\n')];
 * // [{ kind: 'comment', line: 1, text: ' id,url' }, { kind: 'record', line: 2, fields: ['1', 'http://evil.example/a,b'] }]
 * ```
 */
export function* readCsv(text: string): Generator<CsvRow> {
  let at = 0;
  let line = 1;
  while (at < text.length) {
    const start = line;
    const first = text[at];
    if (first === '\n' || first === '\r') {
      at += first === '\r' && text[at + 1] === '\n' ? 2 : 1;
      line += 1;
      continue;
    }
    if (first === '#') {
      const end = lineEnd(text, at);
      yield { kind: 'comment', line: start, text: text.slice(at + 1, end) };
      at = skipLineBreak(text, end);
      line += 1;
      continue;
    }

    const fields: string[] = [];
    let error: string | undefined;
    for (;;) {
      let field = '';
      if (text[at] === '"') {
        at += 1;
        let closed = false;
        while (at < text.length) {
          const character = text[at] ?? '';
          if (character === '"') {
            if (text[at + 1] === '"') {
              field += '"';
              at += 2;
              continue;
            }
            at += 1;
            closed = true;
            break;
          }
          if (character === '\n' || (character === '\r' && text[at + 1] !== '\n')) line += 1;
          field += character;
          at += 1;
        }
        if (!closed) {
          error = 'a quoted field is never closed';
          break;
        }
        // Spaces between a closing quote and the comma are common in hand-edited files and harmless.
        while (text[at] === ' ' || text[at] === '\t') at += 1;
        const after = text[at];
        if (after !== undefined && after !== ',' && after !== '\n' && after !== '\r') {
          error = 'text follows a closing quote in the same field';
          at = lineEnd(text, at);
        }
      } else {
        while (at < text.length && text[at] !== ',' && text[at] !== '\n' && text[at] !== '\r') {
          field += text[at];
          at += 1;
        }
      }
      fields.push(field);
      if (text[at] === ',' && error === undefined) {
        at += 1;
        continue;
      }
      break;
    }
    if (error === undefined) yield { kind: 'record', line: start, fields };
    else yield { kind: 'error', line: start, reason: error };
    if (at < text.length) {
      at = skipLineBreak(text, at);
      line += 1;
    }
  }
}

function lineEnd(text: string, from: number): number {
  let end = from;
  while (end < text.length && text[end] !== '\n' && text[end] !== '\r') end += 1;
  return end;
}

function skipLineBreak(text: string, at: number): number {
  if (text[at] === '\r') return text[at + 1] === '\n' ? at + 2 : at + 1;
  if (text[at] === '\n') return at + 1;
  return at;
}
