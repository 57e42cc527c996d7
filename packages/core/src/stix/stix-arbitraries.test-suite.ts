// Indicators with hostile values, for the STIX round-trip property tests and the OASIS validator tests: every one of
// core's indicator types, with quotes, backslashes, `]`, `[`, percent signs and non-ASCII (combining marks, emoji,
// right-to-left overrides, zero-width joiners) wherever core's parser lets them through. Candidates are made per
// type and kept only when `parseIndicator` accepts them, so each is a value threatlib can really hold.
import fc from 'fast-check';
import { InvalidIndicatorError } from '../errors/invalid-indicator-error.js';
import type { Indicator, IndicatorType } from '../indicators/indicator.js';
import { parseIndicator } from '../indicators/parse-indicator.js';
import type { StixCorrelationInput } from './to-stix-bundle.js';

/** Characters that STIX quoting, JSON or URL handling could get wrong. */
const HOSTILE_PIECES = [
  "'",
  '\\',
  ']',
  '[',
  '"',
  '%',
  '%27',
  "\\'",
  "''",
  'ü',
  'ß',
  '日本',
  'e\u0301',
  '😀',
  '\u202e',
  '\u200d',
  '/',
  '=',
  '&',
  ';',
  'OR',
  ' AND',
  '*/',
  '//',
  'x',
  '1',
] as const;

const hostileText = (maxLength: number) =>
  fc.array(fc.constantFrom(...HOSTILE_PIECES), { maxLength }).map((pieces) => pieces.join(''));

const label = fc.stringMatching(/^[a-z0-9-]{1,12}$/);
const unicodeLabel = fc.constantFrom('bücher', '例え', 'пример', 'straße', 'xn--bcher-kva', 'münchen');
const suffix = fc.constantFrom('com', 'net', 'org', 'de', 'co.uk', 'jp', 'рф');
const domainText = fc
  .tuple(fc.array(fc.oneof(label, unicodeLabel), { minLength: 1, maxLength: 3 }), suffix)
  .map(([labels, tld]) => `${labels.join('.')}.${tld}`);

const hex = (length: number) =>
  fc
    .array(fc.constantFrom(...'0123456789abcdefABCDEF'), { minLength: length, maxLength: length })
    .map((digits) => digits.join(''));

const candidates: Readonly<Record<IndicatorType, fc.Arbitrary<string>>> = {
  ipv4: fc.ipV4(),
  ipv6: fc.oneof(
    fc.ipV6(),
    fc.ipV4().map((v4) => `::ffff:${v4}`),
  ),
  domain: domainText,
  url: fc
    .tuple(
      fc.constantFrom('http', 'https', 'ftp', 'HTTP'),
      fc.oneof(
        domainText,
        fc.ipV4(),
        fc.ipV6().map((v6) => `[${v6}]`),
      ),
      fc.option(fc.integer({ min: 1, max: 65535 }), { nil: undefined }),
      hostileText(8),
      fc.option(hostileText(6), { nil: undefined }),
      fc.option(hostileText(6), { nil: undefined }),
    )
    .map(
      ([scheme, host, port, path, query, fragment]) =>
        `${scheme}://${host}${port === undefined ? '' : `:${port}`}/${path}${query === undefined ? '' : `?${query}`}${fragment === undefined ? '' : `#${fragment}`}`,
    ),
  email: fc
    .tuple(
      fc.array(fc.constantFrom("'", 'ü', '😀', '\u202e', 'a', 'b', '+', '{', '}', '~', '.', '!', '#', '|'), {
        minLength: 1,
        maxLength: 12,
      }),
      domainText,
    )
    .map(([local, domain]) => `${local.join('')}@${domain}`),
  md5: hex(32),
  sha1: hex(40),
  sha256: hex(64),
};

function accepted(text: string, type: IndicatorType): Indicator | undefined {
  try {
    return parseIndicator(text, type);
  } catch (error) {
    if (InvalidIndicatorError.isInstance(error)) return undefined;
    throw error;
  }
}

/** An indicator of `type` that core's parser accepts, with a hostile value wherever the type allows one. */
export function hostileIndicatorOf(type: IndicatorType): fc.Arbitrary<Indicator> {
  return candidates[type]
    .map((text) => accepted(text, type))
    .filter((indicator): indicator is Indicator => indicator !== undefined);
}

/** An indicator of any of core's types, as {@link hostileIndicatorOf} makes them. */
export const hostileIndicator: fc.Arbitrary<Indicator> = fc.oneof(
  ...(Object.keys(candidates) as IndicatorType[]).map((type) => hostileIndicatorOf(type)),
);

/** Labels, as feeds' categories and tags might carry them: anything but blank. */
export const hostileLabel = fc
  .oneof(hostileText(5), fc.string({ unit: 'grapheme', maxLength: 10 }))
  .filter((text) => text.trim() !== '');

/** A correlation of `indicator` at `startedAt` that one feed flagged, with labels and a reference. */
export function correlationOf(
  indicator: Indicator,
  options: { confidence?: number; labels?: readonly string[]; startedAt?: string } = {},
): StixCorrelationInput {
  return {
    indicator: indicator.value,
    type: indicator.type,
    confidence: options.confidence ?? 80,
    verdict: 'malicious',
    startedAt: options.startedAt ?? '2025-06-01T12:00:00.000Z',
    results: [
      {
        feed: 'feed_otx',
        status: 'ok',
        verdict: 'malicious',
        score: 0.8,
        categories: [...(options.labels ?? [])],
        tags: [],
        malwareFamilies: [],
        references: [`https://otx.alienvault.com/indicator/${indicator.type}/${encodeURIComponent(indicator.value)}`],
      },
    ],
  };
}
