import {
  type Alert,
  AlertSchema,
  INDICATOR_TYPES,
  type IndicatorType,
  parseIndicator,
  SEVERITIES,
} from '@threatlib/core';
import fc from 'fast-check';
import type { CefEvent } from './cef.js';
import { type LeefEvent, type LeefEventInput, resolveLeefDelimiter } from './leef.js';

/**
 * Every control and separator character a receiver may end a record at or show as a break: the C0 controls (NUL,
 * TAB, LF, VT, FF, CR...), DEL, the C1 controls (NEL among them), U+2028 and U+2029.
 */
export const CONTROL_CHARACTERS: readonly string[] = [
  ...Array.from({ length: 0x20 }, (_, i) => String.fromCharCode(i)),
  ...Array.from({ length: 0x21 }, (_, i) => String.fromCharCode(0x7f + i)),
  '\u2028',
  '\u2029',
];

/** A raw control or separator character anywhere in a line. */
export const RAW_CONTROL = /[\p{Cc}\u2028\u2029]/u;

/**
 * One "character" of hostile text: mostly what CEF, LEEF and syslog treat specially (`|`, `\`, `=`, line breaks,
 * tabs, `^`, spaces, escape look-alikes, header look-alikes, NUL, a line separator), every other control and
 * separator character, then any printable ASCII, then non-ASCII (accents, CJK, an emoji outside the BMP).
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
  { weight: 2, arbitrary: fc.constantFrom(...CONTROL_CHARACTERS) },
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

const label = fc.stringMatching(/^[a-z0-9](?:[a-z0-9-]{0,10}[a-z0-9])?$/);
const domain = fc
  .tuple(fc.array(label, { minLength: 1, maxLength: 3 }), fc.constantFrom('com', 'net', 'org', 'de', 'co.uk', 'jp'))
  .map(([labels, tld]) => `${labels.join('.')}.${tld}`);
const hex = (length: number) => fc.stringMatching(new RegExp(`^[0-9a-f]{${length}}$`));
const CANDIDATES: Readonly<Record<IndicatorType, fc.Arbitrary<string>>> = {
  ipv4: fc.ipV4(),
  ipv6: fc.ipV6(),
  domain,
  url: fc
    .tuple(fc.constantFrom('http', 'https'), domain, fc.stringMatching(/^[a-z0-9/._~-]{0,12}$/))
    .map(([scheme, host, path]) => `${scheme}://${host}/${path}`),
  email: fc.tuple(fc.stringMatching(/^[a-z0-9.+_-]{1,10}$/), domain).map(([local, host]) => `${local}@${host}`),
  md5: hex(32),
  sha1: hex(40),
  sha256: hex(64),
};

/** An indicator record's `{type, value}` as a stored alert holds it: one valid indicator, normalised. */
const indicatorOf = fc.constantFrom(...INDICATOR_TYPES).chain((type) =>
  CANDIDATES[type]
    .map((text) => {
      try {
        return parseIndicator(text, type).value;
      } catch {
        return undefined;
      }
    })
    .filter((value): value is string => value !== undefined)
    .map((value) => ({ type, value })),
);

/**
 * Stored alerts (valid for `AlertSchema`) whose every text field is made by `text`; indicator values are valid,
 * normalised indicators of their type (what CEF, LEEF and JSON accept), their sources made by `text`.
 */
export function alertsOf(text: Text): fc.Arbitrary<Alert> {
  const indicator = fc
    .record(
      {
        ref: indicatorOf,
        confidence: number(0, 100),
        source: text({ minLength: 1, maxLength: 12 }),
        sources: fc.array(text({ minLength: 1, maxLength: 12 }), { maxLength: 3 }),
      },
      { requiredKeys: ['ref'] },
    )
    .map(({ ref, ...rest }) => ({ ...ref, ...rest }));
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
 * Stored alerts whose every text field is hostile: title, description, id, source and indicator sources (indicator
 * values are valid indicators: an invalid one refuses the event, see `writtenIndicators`).
 */
export const hostileAlert: fc.Arbitrary<Alert> = alertsOf(hostile);

/**
 * What a CEF extension value reads back as after `formatCef` and a parse: line breaks of every kind (VT, FF, NEL,
 * U+2028, U+2029 as well) are LF (CR stays CR), a tab a space, every other control character U+FFFD.
 */
export function cefValueAfter(text: string): string {
  return text.replace(/[\p{Cc}\u2028\u2029]/gu, (c) =>
    c === '\r' ? c : /[\n\v\f\u0085\u2028\u2029]/u.test(c) ? '\n' : c === '\t' ? ' ' : '\ufffd',
  );
}

/** What a LEEF value reads back as: as {@link cefValueAfter}, but a tab stays a tab (written `\t`). */
export function leefValueAfter(text: string): string {
  return text.replace(/[\p{Cc}\u2028\u2029]/gu, (c) =>
    c === '\r' || c === '\t' ? c : /[\n\v\f\u0085\u2028\u2029]/u.test(c) ? '\n' : '\ufffd',
  );
}

/** `event` as the strict parser reads it back from `formatCef`: its extension values as {@link cefValueAfter}. */
export function cefEventAfter(event: CefEvent): CefEvent {
  const extension = Object.fromEntries(Object.entries(event.extension).map(([k, v]) => [k, cefValueAfter(v)]));
  return { ...event, extension };
}

/**
 * `event` as the strict parser reads it back from `formatLeef`: the delimiter it was written with, its attribute
 * values as {@link leefValueAfter}.
 */
export function leefEventAfter(event: LeefEventInput): LeefEvent {
  const attributes = Object.fromEntries(Object.entries(event.attributes).map(([k, v]) => [k, leefValueAfter(v)]));
  return { ...event, delimiter: resolveLeefDelimiter(event), attributes };
}
