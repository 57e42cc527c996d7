import type { Alert } from '@threatlib/core';
import { indicatorForOutput } from '@threatlib/core/integration';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { CEF_INDICATOR_FIELD, cefEventForAlert } from './alert-cef.js';
import { jsonForAlert } from './alert-json.js';
import { leefEventForAlert } from './alert-leef.js';
import { type CefEvent, formatCef } from './cef.js';
import { parseCef } from './cef-parser.js';
import { EventFormatError } from './event-format-error.js';
import { oneLine } from './field-characters.js';
import {
  CONTROL_CHARACTERS,
  cefValueAfter,
  hostile,
  hostileAlert,
  leefValueAfter,
  RAW_CONTROL,
} from './hostile-alerts.test-suite.js';
import { formatLeef, type LeefEventInput, resolveLeefDelimiter } from './leef.js';
import { parseLeef } from './leef-parser.js';

const ALERTS = 1000;

/** Header text: hostile, but one line of text (no control or separator character: both formats refuse them there). */
const headerText = hostile().map((text) => text.replace(/[\p{Cc}\u2028\u2029]/gu, ''));
const cefKey = fc.string({ unit: fc.constantFrom(...'abcXYZ019'), minLength: 1, maxLength: 6 });
const leefKey = fc.string({ unit: fc.constantFrom(...'abcXYZ019._-^~#é'), minLength: 1, maxLength: 6 });

const cefEvent: fc.Arbitrary<CefEvent> = fc.record({
  version: fc.constantFrom(0 as const, 1 as const),
  deviceVendor: headerText,
  deviceProduct: headerText,
  deviceVersion: headerText,
  deviceEventClassId: headerText,
  name: headerText,
  severity: fc.constantFrom('0', '3', '7', '10', 'Unknown', 'Very-High'),
  extension: fc.dictionary(cefKey, hostile({ maxLength: 40 }), { maxKeys: 8 }),
});

const leefEvent: fc.Arbitrary<LeefEventInput> = fc.record(
  {
    version: fc.constantFrom('1.0' as const, '2.0' as const),
    vendor: headerText,
    product: headerText,
    productVersion: headerText,
    eventId: headerText,
    delimiter: fc.constantFrom('^', '\t', '~', '#', ' ', ';', 'x'),
    attributes: fc.dictionary(leefKey, hostile({ maxLength: 40 }), { maxKeys: 8 }),
  },
  { requiredKeys: ['version', 'vendor', 'product', 'productVersion', 'eventId', 'attributes'] },
);

/** `record` with each value mapped by `map`. */
function mapValues(record: Record<string, string>, map: (value: string) => string): Record<string, string> {
  return Object.fromEntries(Object.entries(record).map(([key, value]) => [key, map(value)]));
}

describe('format → strict parse → the same event', () => {
  it('CEF, for any event with hostile header fields and values: one line, no raw control character', () => {
    fc.assert(
      fc.property(cefEvent, (event) => {
        const line = formatCef(event);
        expect(line).not.toMatch(RAW_CONTROL);
        expect(parseCef(line)).toEqual({ ...event, extension: mapValues(event.extension, cefValueAfter) });
      }),
      { numRuns: 2000 },
    );
  });

  it('CEF refuses a header field with any control or separator character rather than write it', () => {
    const field = fc.constantFrom('deviceVendor', 'deviceProduct', 'deviceVersion', 'deviceEventClassId', 'name');
    fc.assert(
      fc.property(cefEvent, field, hostile(), fc.constantFrom(...CONTROL_CHARACTERS), (event, name, text, c) => {
        expect(() => formatCef({ ...event, [name]: `${text}${c}` })).toThrow(EventFormatError);
      }),
    );
  });

  it('LEEF 1.0 and 2.0, for any event with hostile header fields and values, whatever delimiter is asked for', () => {
    fc.assert(
      fc.property(leefEvent, (event) => {
        const { delimiter: _asked, ...rest } = event;
        const delimiter = resolveLeefDelimiter(event);
        const line = formatLeef(event);
        // The only raw control character: the tab that delimits, when it does.
        expect(delimiter === '\t' ? line.replaceAll('\t', '') : line).not.toMatch(RAW_CONTROL);
        expect(parseLeef(line)).toEqual({
          ...rest,
          delimiter,
          attributes: mapValues(event.attributes, leefValueAfter),
        });
      }),
      { numRuns: 2000 },
    );
  });

  it('LEEF refuses a header field with any control or separator character rather than write it', () => {
    const field = fc.constantFrom('vendor', 'product', 'productVersion', 'eventId');
    fc.assert(
      fc.property(leefEvent, field, hostile(), fc.constantFrom(...CONTROL_CHARACTERS), (event, name, text, c) => {
        expect(() => formatLeef({ ...event, [name]: `${text}${c}` })).toThrow(EventFormatError);
      }),
    );
  });
});

describe(`${ALERTS} generated hostile alerts`, () => {
  it('parse back exactly from CEF with the strict parser', () => {
    fc.assert(
      fc.property(hostileAlert, (alert) => {
        const event = cefEventForAlert(alert);
        const line = formatCef(event);
        expect(line).not.toMatch(RAW_CONTROL);
        const parsed = parseCef(line);
        expect(parsed).toEqual({ ...event, extension: mapValues(event.extension, cefValueAfter) });
        // And what was parsed is the alert's, value for value.
        expect(parsed.name).toBe(oneLine(alert.title));
        expect(parsed.name).not.toMatch(RAW_CONTROL);
        expect(Number(parsed.severity)).toBeGreaterThanOrEqual(1);
        expect(parsed.extension.externalId).toBe(cefValueAfter(alert.id));
        expect(parsed.extension.cat).toBe(alert.severity);
        expect(parsed.extension.rt).toBe(String(Date.parse(alert.timestamp)));
        expect(parsed.extension.msg).toBe(
          alert.description === undefined ? undefined : cefValueAfter(alert.description),
        );
        expect(parsed.extension.cs4).toBe(alert.source === undefined ? undefined : cefValueAfter(alert.source));
        expect(parsed.extension.cfp2).toBe(alert.riskScore === undefined ? undefined : String(alert.riskScore));
        const [first] = alert.indicators;
        if (first) {
          expect(parsed.extension[CEF_INDICATOR_FIELD[first.type]]).toBe(first.value);
          expect(parsed.extension.cfp1).toBe(first.confidence === undefined ? undefined : String(first.confidence));
          expect(JSON.parse(parsed.extension.cs1 as string)).toEqual(alert.indicators);
        }
      }),
      { numRuns: ALERTS },
    );
  });

  it.each([
    ['LEEF 1.0', { version: '1.0' as const }],
    ['LEEF 2.0 with ^', { version: '2.0' as const, delimiter: '^' }],
    ['LEEF 2.0 with a tab (x09)', { version: '2.0' as const, delimiter: '\t' }],
  ])('parse back exactly from %s with the strict parser', (_title, options) => {
    fc.assert(
      fc.property(hostileAlert, (alert) => {
        const event = leefEventForAlert(alert, options);
        const { delimiter: _asked, ...rest } = event;
        const line = formatLeef(event);
        expect(line.replaceAll('\t', '')).not.toMatch(RAW_CONTROL);
        const parsed = parseLeef(line);
        expect(parsed).toEqual({
          ...rest,
          delimiter: resolveLeefDelimiter(event),
          attributes: mapValues(event.attributes, leefValueAfter),
        });
        const { attributes } = parsed;
        expect(attributes.title).toBe(leefValueAfter(alert.title));
        expect(attributes.alertId).toBe(leefValueAfter(alert.id));
        expect(attributes.description).toBe(
          alert.description === undefined ? undefined : leefValueAfter(alert.description),
        );
        expect(attributes.devTime).toBe(new Date(alert.timestamp).toISOString());
        expect(attributes.alertSource).toBe(alert.source === undefined ? undefined : leefValueAfter(alert.source));
        const [first] = alert.indicators;
        if (first) {
          expect(attributes.indicator).toBe(first.value);
          expect(attributes.indicatorType).toBe(first.type);
          expect(JSON.parse(attributes.indicators as string)).toEqual(alert.indicators);
        }
      }),
      { numRuns: ALERTS },
    );
  });

  it('parse back exactly from JSON, which is one line with no raw control or separator character', () => {
    fc.assert(
      fc.property(hostileAlert, (alert) => {
        const { deliveries: _deliveries, ...record } = alert;
        const line = jsonForAlert(alert);
        expect(line).not.toMatch(RAW_CONTROL);
        expect(JSON.parse(line)).toEqual(record);
      }),
      { numRuns: ALERTS },
    );
  });
});

describe('an alert whose indicator value is not one indicator of its type', () => {
  // What a stored alert read back from a shared database may hold: hostile text as an indicator's value.
  const poisoned = fc
    .tuple(hostileAlert, fc.nat(), hostile({ minLength: 1 }))
    .filter(([alert]) => alert.indicators.length > 0)
    .map(([alert, at, text]) => {
      const i = at % alert.indicators.length;
      const indicators = alert.indicators.map((indicator, j) =>
        j === i ? { ...indicator, value: `${indicator.value}${text}` } : indicator,
      );
      return { alert: { ...alert, indicators }, i };
    })
    .filter(({ alert, i }) => {
      const indicator = alert.indicators[i];
      try {
        return indicator === undefined || indicatorForOutput(indicator.type, indicator.value) === undefined;
      } catch {
        return true;
      }
    });

  it.each([
    ['CEF', (alert: Alert) => formatCef(cefEventForAlert(alert))],
    ['LEEF', (alert: Alert) => formatLeef(leefEventForAlert(alert))],
    ['JSON', (alert: Alert) => jsonForAlert(alert)],
  ])('is refused by %s, naming the value and where it is', (_format, write) => {
    fc.assert(
      fc.property(poisoned, ({ alert, i }) => {
        let refusal: unknown;
        try {
          write(alert);
        } catch (error) {
          refusal = error;
        }
        expect(EventFormatError.isInstance(refusal)).toBe(true);
        const message = (refusal as EventFormatError).message;
        expect(message).toContain(`indicators[${i}].value: Invalid indicator "`);
        expect(message).not.toMatch(RAW_CONTROL);
        expect((refusal as EventFormatError).isRetryable).toBe(false);
      }),
      { numRuns: 300 },
    );
  });
});
