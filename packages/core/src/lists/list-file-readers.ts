// How a local list's text is read: plain lines, a CSV column (found by index or by name), a STIX bundle, and the
// report of what was skipped.
import { readStixBundleEntries } from '../stix/read-stix-bundle.js';
import { readCsv } from './csv-reader.js';
import { stixEntryRule } from './host-rules.js';
import type { MatcherRule } from './indicator-matcher.js';
import { ListLoadError } from './list-load-error.js';
import type { LocalListMatchMode } from './local-list.js';
import { MAX_REPORTED_SKIPS, type SkippedEntry } from './warninglist.js';

// After whitespace only, so that a URL's `#fragment` stays part of the URL.
const TRAILING_COMMENT = /\s+#.*$/s;

/**
 * The rules of a STIX bundle: one per value its indicators' patterns name. Skipped entries are numbered by their
 * 1-based position in the bundle's `objects` and named by their STIX id.
 */
export function readStixList(
  text: string,
  source: string,
  match: LocalListMatchMode,
): { rules: MatcherRule<number | undefined>[]; skips: SkipReport } {
  const read = readStixBundleEntries(text, Date.now());
  if (!read.ok) {
    const problems = read.issues.map((issue) => (issue.path ? `${issue.path}: ${issue.message}` : issue.message));
    throw new ListLoadError(source, `not a STIX bundle: ${problems.join('; ')}`);
  }
  const skips = new SkipReport();
  const rules: MatcherRule<number | undefined>[] = [];
  for (const skip of read.value.skipped) skips.add(skip.index + 1, skip.id, skip.reason);
  for (const entry of read.value.entries) {
    for (const found of entry.values) {
      const result = stixEntryRule(found, match);
      if (result.ok) rules.push(result.rule);
      else skips.add(entry.index + 1, entry.id, result.reason);
    }
  }
  return { rules, skips };
}

/** The entries of a plain list: one a line, `#` comments and blank lines left out. */
export function readPlain(text: string, add: (line: number, text: string) => void): void {
  const lines = text.split(/\r\n|\n|\r/);
  lines.forEach((raw, index) => {
    const content = raw.replace(TRAILING_COMMENT, '').trim();
    if (content === '' || content.startsWith('#')) return;
    add(index + 1, content);
  });
}

/**
 * The entries of a CSV list, from the column `column` names (an index, or a name in the header row or the comment
 * line before it); rows without a value there are skipped.
 */
export function readCsvColumn(
  text: string,
  column: string | number | undefined,
  source: string,
  add: (line: number, text: string) => void,
  skips: SkipReport,
): void {
  let index = typeof column === 'number' ? column : typeof column === 'string' ? undefined : 0;
  let lastComment: string | undefined;
  for (const row of readCsv(text)) {
    if (row.kind === 'comment') {
      lastComment = row.text;
      continue;
    }
    if (row.kind === 'error') {
      skips.add(row.line, '', row.reason);
      continue;
    }
    if (index === undefined) {
      const name = String(column);
      const inRow = findColumn(row.fields, name);
      if (inRow !== undefined) {
        index = inRow;
        continue;
      }
      const commentHeader = lastComment === undefined ? undefined : firstRecord(lastComment);
      index = commentHeader === undefined ? undefined : findColumn(commentHeader, name);
      if (index === undefined) {
        const seen = [...row.fields, ...(commentHeader ?? [])].map((field) => JSON.stringify(field.trim())).join(', ');
        throw new ListLoadError(
          source,
          `CSV column ${JSON.stringify(name)} is not in the header row (line ${row.line}) or the comment line before ` +
            `it; found ${seen || 'no column names'}`,
        );
      }
    }
    const cell = row.fields[index];
    if (cell === undefined || cell.trim() === '') {
      skips.add(row.line, row.fields.join(','), `has no value in column ${index}`);
      continue;
    }
    add(row.line, cell.trim());
  }
}

function findColumn(fields: readonly string[], name: string): number | undefined {
  const wanted = name.trim();
  const exact = fields.findIndex((field) => field.trim() === wanted);
  if (exact !== -1) return exact;
  const folded = fields.findIndex((field) => field.trim().toLowerCase() === wanted.toLowerCase());
  return folded === -1 ? undefined : folded;
}

function firstRecord(text: string): readonly string[] | undefined {
  for (const row of readCsv(text.trim())) if (row.kind === 'record') return row.fields;
  return undefined;
}

/** Counts skipped lines and keeps the first few, so a load reports what it dropped. */
export class SkipReport {
  count = 0;
  readonly first: SkippedEntry[] = [];

  add(line: number, entry: string, reason: string): void {
    this.count += 1;
    if (this.first.length < MAX_REPORTED_SKIPS) this.first.push({ line, entry: entry.slice(0, 100), reason });
  }
}
