import { type Alert, AlertSchema, INDICATOR_TYPES, SEVERITIES } from '@threatlib/core';
import fc from 'fast-check';

/**
 * One "character" of hostile text: mostly what CEF, LEEF and syslog treat specially (`|`, `\`, `=`, line breaks,
 * tabs, `^`, spaces, escape look-alikes, header look-alikes, NUL, a line separator), then any printable ASCII, then
 * non-ASCII (accents, CJK, an emoji outside the BMP).
 */
const hostileUnit = fc.oneof(
  {
    weight: 5,
    arbitrary: fc.constantFrom(
      '|',
      '\\',
      '=',
      '\n',
      '\r',
      '\r\n',
      '\t',
      '^',
      ' ',
      '  ',
      '\\n',
      '\\=',
      '\\|',
      'x09',
      ' k=',
      '|CEF:0|',
      'LEEF:2.0|',
      '"',
      '\0',
      '\u2028',
    ),
  },
  { weight: 3, arbitrary: fc.string({ unit: 'grapheme-ascii', minLength: 1, maxLength: 1 }) },
  { weight: 2, arbitrary: fc.constantFrom('é', 'ü', 'ß', '漢字', 'Ω', '💥', '\u00a0', 'ﬁ') },
);

/** Hostile text (see {@link hostileUnit}), possibly empty. */
export const hostile = (constraints: { minLength?: number; maxLength?: number } = {}) =>
  fc.string({ unit: hostileUnit, maxLength: 24, ...constraints });

/**
 * Text that no CEF rule touches: letters, digits, spaces inside, punctuation other than `\`, `=`, `|` and `"`
 * (which JSON would escape), and non-ASCII; never ending in a space.
 */
export const plain = (constraints: { minLength?: number; maxLength?: number } = {}) =>
  fc
    .string({
      unit: fc.constantFrom(..."abcXYZ0189 .,:;/_-+*?!@#$%&()[]{}<>~^'".split(''), 'é', '漢', '💥'),
      maxLength: 24,
      ...constraints,
    })
    .map((text) => text.trimEnd())
    .filter((text) => text.length >= (constraints.minLength ?? 0));

/** A number as alerts hold it, never `-0` (which JSON cannot carry). */
const number = (min: number, max: number) => fc.double({ min, max, noNaN: true }).map((n) => n + 0);

type Text = (constraints?: { minLength?: number; maxLength?: number }) => fc.Arbitrary<string>;

/** Stored alerts (valid for `AlertSchema`) whose every text field is made by `text`. */
export function alertsOf(text: Text): fc.Arbitrary<Alert> {
  const indicator = fc.record(
    {
      type: fc.constantFrom(...INDICATOR_TYPES),
      value: text({ minLength: 1 }),
      confidence: number(0, 100),
      source: text({ minLength: 1, maxLength: 12 }),
      sources: fc.array(text({ minLength: 1, maxLength: 12 }), { maxLength: 3 }),
    },
    { requiredKeys: ['type', 'value'] },
  );
  return fc
    .record(
      {
        id: text({ minLength: 1 }),
        title: text(),
        severity: fc.constantFrom(...SEVERITIES),
        description: text({ maxLength: 60 }),
        indicators: fc.array(indicator, { maxLength: 4 }),
        timestamp: fc
          .date({ min: new Date('2000-01-01T00:00:00Z'), max: new Date('2099-12-31T23:59:59Z'), noInvalidDate: true })
          .map((date) => date.toISOString()),
        source: text({ minLength: 1, maxLength: 12 }),
        riskScore: number(1, 10),
      },
      { requiredKeys: ['id', 'title', 'severity', 'indicators', 'timestamp'] },
    )
    .map((fields) => AlertSchema.parse({ ...fields, deliveries: [] }));
}

/**
 * Stored alerts whose every text field is hostile: title, description, id, source, indicator values and sources.
 */
export const hostileAlert: fc.Arbitrary<Alert> = alertsOf(hostile);
