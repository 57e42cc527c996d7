import type { Alert } from '@threatlib/core';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { cefEventForAlert } from './alert-cef.js';
import { jsonForAlert } from './alert-json.js';
import { leefEventForAlert } from './alert-leef.js';
import { formatCef } from './cef.js';
import { parseCef } from './cef-parser.js';
import { formatLeef } from './leef.js';
import { parseLeef } from './leef-parser.js';

// Finding 7 of issue 21: NUL, VT, FF, NEL, U+2028 and U+2029 stood raw in CEF and LEEF lines, and receivers end a
// record at NUL or NEL. Every control and separator character, in every field an alert fills, must come out escaped
// or replaced, so the event is one record wherever it is read.

/** A raw control or separator character; the LEEF tests remove the tabs that delimit first. */
const RAW_CONTROL = /[\p{Cc}\u2028\u2029]/u;

const CHARACTERS: ReadonlyArray<readonly [string, string]> = [
  ['NUL', '\u0000'],
  ['TAB', '\t'],
  ['LF', '\n'],
  ['VT', '\u000b'],
  ['FF', '\u000c'],
  ['CR', '\r'],
  ['ESC', '\u001b'],
  ['DEL', '\u007f'],
  ['NEL', '\u0085'],
  ['CSI (C1)', '\u009b'],
  ['LINE SEPARATOR', '\u2028'],
  ['PARAGRAPH SEPARATOR', '\u2029'],
];

const base: Alert = {
  id: 'a1',
  title: 'Suspicious domain',
  severity: 'high',
  description: 'seen in phishing mail',
  indicators: [{ type: 'domain', value: 'evil.com', confidence: 90, source: 'feed_otx', sources: ['list:ipsum'] }],
  timestamp: '2026-01-01T00:00:00.000Z',
  source: 'threatlib',
  riskScore: 8,
  deliveries: [],
};

/** The alert with `text` in one field. */
const FIELDS: ReadonlyArray<readonly [string, (text: string) => Alert]> = [
  ['title', (text) => ({ ...base, title: `before${text}after` })],
  ['description', (text) => ({ ...base, description: `before${text}after` })],
  ['source', (text) => ({ ...base, source: `before${text}after` })],
  ['id', (text) => ({ ...base, id: `before${text}after` })],
  ['an indicator source', (text) => ({ ...base, indicators: [{ ...base.indicators[0], source: `s${text}t` }] })],
  ['indicator sources', (text) => ({ ...base, indicators: [{ ...base.indicators[0], sources: [`s${text}t`] }] })],
] as ReadonlyArray<readonly [string, (text: string) => Alert]>;

const CASES = CHARACTERS.flatMap(([name, c]) => FIELDS.map(([field, make]) => [name, field, make(c)] as const));

describe('control and separator characters in every field of an alert', () => {
  it.each(CASES)('%s in %s: CEF writes one record without it raw, which the strict parser reads', (_c, _f, alert) => {
    const line = formatCef(cefEventForAlert(alert));
    expect(line).not.toMatch(RAW_CONTROL);
    expect(parseCef(line).extension.externalId).toBeDefined();
  });

  it.each(CASES)('%s in %s: LEEF 1.0 writes one record without it raw', (_c, _f, alert) => {
    const line = formatLeef(leefEventForAlert(alert, { version: '1.0' }));
    expect(line.replaceAll('\t', '')).not.toMatch(RAW_CONTROL);
    expect(parseLeef(line).attributes.alertId).toBeDefined();
  });

  it.each(CASES)('%s in %s: LEEF 2.0 writes one record without it raw', (_c, _f, alert) => {
    const line = formatLeef(leefEventForAlert(alert, { version: '2.0', delimiter: '^' }));
    expect(line.replaceAll('\t', '')).not.toMatch(RAW_CONTROL);
    expect(parseLeef(line).attributes.alertId).toBeDefined();
  });

  it.each(CASES)('%s in %s: JSON writes one line without it raw, and the same value', (_c, _f, alert) => {
    const line = jsonForAlert(alert);
    expect(line).not.toMatch(RAW_CONTROL);
    const { deliveries: _deliveries, ...record } = alert;
    expect(JSON.parse(line)).toEqual(record);
  });

  it('writes line breaks as the format’s \\n, a tab as CEF’s space or LEEF’s \\t, other controls as U+FFFD', () => {
    const alert = { ...base, description: 'a\u0000b\u0085c\u2028d\u2029e\u000bf\u000cg\th\u007fi\r\nj' };
    expect(parseCef(formatCef(cefEventForAlert(alert))).extension.msg).toBe('a\ufffdb\nc\nd\ne\nf\ng h\ufffdi\r\nj');
    expect(parseLeef(formatLeef(leefEventForAlert(alert))).attributes.description).toBe(
      'a\ufffdb\nc\nd\ne\nf\ng\th\ufffdi\r\nj',
    );
    // The title is a header field in CEF: one line, each run of breaks and tabs a space.
    const titled = { ...base, title: 'Phishing\r\n\u2028wave\u0085now\u0000!' };
    expect(parseCef(formatCef(cefEventForAlert(titled))).name).toBe('Phishing wave now\ufffd!');
  });

  it('any text in any field gives exactly one record line with no raw control or separator character', () => {
    const unit = fc.oneof(
      fc.constantFrom(...CHARACTERS.map(([, c]) => c), '|', '\\', '=', '^', ' k=', '\\n'),
      fc.string({ maxLength: 1 }),
    );
    const text = fc.string({ unit, maxLength: 30 });
    fc.assert(
      fc.property(fc.constantFrom(...FIELDS.map(([, make]) => make)), text, (make, value) => {
        const alert = make(value);
        expect(formatCef(cefEventForAlert(alert))).not.toMatch(RAW_CONTROL);
        expect(formatLeef(leefEventForAlert(alert)).replaceAll('\t', '')).not.toMatch(RAW_CONTROL);
        expect(jsonForAlert(alert)).not.toMatch(RAW_CONTROL);
      }),
      { numRuns: 2000 },
    );
  });
});
