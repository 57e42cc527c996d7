// Acceptance of issue 17, point 3: hostile values (quotes, backslashes, unicode, `]`) survive toStixBundle and
// fromStixBundle exactly, for every indicator type and whatever core's parser accepts.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { INDICATOR_TYPES } from '../indicators/indicator.js';
import { fromStixBundle } from './from-stix-bundle.js';
import { readStixPattern } from './read-stix-pattern.js';
import { correlationOf, hostileIndicator, hostileIndicatorOf, hostileLabel } from './stix-arbitraries.test-suite.js';
import { stixIndicatorId } from './stix-objects.js';
import { stixStringLiteral, toStixPattern } from './stix-pattern.js';
import { toStixBundle } from './to-stix-bundle.js';

/**
 * Any Unicode scalar value as a string, as `fc.string({unit: 'binary'})` draws them, with the characters a literal
 * must escape drawn more often. Not fast-check's 'binary' unit itself: making that one builds a map of all 1.1 million
 * code points (about 3 s of one core, once per process), which ran inside this test's time limit.
 */
const anyCharacter = fc.oneof(
  {
    weight: 4,
    arbitrary: fc
      .integer({ min: 0, max: 0x10ffff - 0x800 })
      .map((n) => String.fromCodePoint(n < 0xd800 ? n : n + 0x800)),
  },
  { weight: 1, arbitrary: fc.constantFrom("'", '\\', ']', '[', '\n', '\r', '\u2028', '\u0000') },
);

describe('STIX round trip', () => {
  it.each(INDICATOR_TYPES)('a hostile %s comes back from a bundle exactly', (type) => {
    fc.assert(
      fc.property(
        hostileIndicatorOf(type),
        fc.array(hostileLabel, { maxLength: 3 }),
        fc.integer({ min: 0, max: 100 }),
        (indicator, labels, confidence) => {
          const bundle = toStixBundle([correlationOf(indicator, { labels, confidence })]);
          const read = fromStixBundle(JSON.stringify(bundle));
          expect(read.skipped).toEqual([]);
          expect(read.indicators).toEqual([
            {
              id: stixIndicatorId(indicator),
              type: indicator.type,
              value: indicator.value,
              confidence,
              labels: [...new Set(labels.map((label) => label.trim()))],
            },
          ]);
        },
      ),
      { numRuns: 200 },
    );
  });

  it('a bundle of many hostile indicators comes back whole, one per distinct indicator, in order', () => {
    fc.assert(
      fc.property(fc.array(hostileIndicator, { minLength: 1, maxLength: 30 }), (indicators) => {
        const bundle = toStixBundle(indicators.map((indicator) => correlationOf(indicator)));
        const read = fromStixBundle(JSON.stringify(bundle));
        const distinct = [...new Map(indicators.map((i) => [`${i.type}:${i.value}`, i])).values()];
        expect(read.skipped).toEqual([]);
        expect(read.indicators.map(({ type, value }) => ({ type, value }))).toEqual(
          distinct.map(({ type, value }) => ({ type, value })),
        );
      }),
      { numRuns: 100 },
    );
  });

  it("a pattern's literal holds any text at all, newlines and lone quotes included, and reads back as it was", () => {
    fc.assert(
      fc.property(
        fc.oneof(
          fc.string({ unit: anyCharacter, maxLength: 60 }),
          fc.string({ unit: fc.constantFrom("'", '\\', ']', '[', '\n', '\r', '\u2028', '\u0000', 'a'), maxLength: 20 }),
        ),
        (text) => {
          const reading = readStixPattern(`[url:value = ${stixStringLiteral(text)}]`);
          expect(reading).toEqual({
            ok: true,
            parts: [{ ok: true, comparison: { objectType: 'url', path: ['value'], value: text } }],
          });
        },
      ),
      { numRuns: 500 },
    );
  });

  it("toStixPattern's patterns read back as the indicator", () => {
    fc.assert(
      fc.property(hostileIndicator, (indicator) => {
        const reading = readStixPattern(toStixPattern(indicator));
        expect(reading.ok && reading.parts.map((part) => part.ok && part.comparison.value)).toEqual([indicator.value]);
      }),
      { numRuns: 300 },
    );
  });

  it('the generators do produce the hostile characters the test is about', () => {
    const values = fc.sample(hostileIndicator, { numRuns: 2000, seed: 17 }).map((i) => i.value);
    for (const needle of ["'", '\\', ']', '😀', '\u202e']) {
      expect(
        values.some((value) => value.includes(needle)),
        `a value containing ${JSON.stringify(needle)}`,
      ).toBe(true);
    }
    const types = new Set(fc.sample(hostileIndicator, { numRuns: 500, seed: 17 }).map((i) => i.type));
    expect(types).toEqual(new Set(INDICATOR_TYPES));
  });
});
