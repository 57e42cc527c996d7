import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { CEF_INDICATOR_FIELD, cefEventForAlert, oneLine } from './alert-cef.js';
import { jsonForAlert } from './alert-json.js';
import { leefEventForAlert } from './alert-leef.js';
import { type CefEvent, formatCef } from './cef.js';
import { parseCef } from './cef-parser.js';
import { EventFormatError } from './event-format-error.js';
import { hostile, hostileAlert } from './hostile-alerts.test-suite.js';
import { formatLeef, type LeefEventInput, resolveLeefDelimiter } from './leef.js';
import { parseLeef } from './leef-parser.js';

const ALERTS = 1000;

/** Header text: hostile, but one line (the only thing both formats refuse in a header). */
const headerText = hostile().map((text) => text.replace(/[\r\n]/g, ''));
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

describe('format → strict parse → the same event', () => {
  it('CEF, for any event with hostile header fields and values', () => {
    fc.assert(
      fc.property(cefEvent, (event) => {
        expect(parseCef(formatCef(event))).toEqual(event);
      }),
      { numRuns: 2000 },
    );
  });

  it('CEF refuses a header field with a line break rather than write it', () => {
    fc.assert(
      fc.property(cefEvent, hostile(), fc.constantFrom('\n', '\r'), (event, text, lineBreak) => {
        expect(() => formatCef({ ...event, name: `${text}${lineBreak}` })).toThrow(EventFormatError);
      }),
    );
  });

  it('LEEF 1.0 and 2.0, for any event with hostile header fields and values, whatever delimiter is asked for', () => {
    fc.assert(
      fc.property(leefEvent, (event) => {
        const { delimiter: _asked, ...rest } = event;
        expect(parseLeef(formatLeef(event))).toEqual({ ...rest, delimiter: resolveLeefDelimiter(event) });
      }),
      { numRuns: 2000 },
    );
  });
});

describe(`${ALERTS} generated hostile alerts`, () => {
  it('parse back exactly from CEF with the strict parser', () => {
    fc.assert(
      fc.property(hostileAlert, (alert) => {
        const event = cefEventForAlert(alert);
        const parsed = parseCef(formatCef(event));
        expect(parsed).toEqual(event);
        // And what was parsed is the alert's, value for value.
        expect(parsed.name).toBe(oneLine(alert.title));
        expect(Number(parsed.severity)).toBeGreaterThanOrEqual(1);
        expect(parsed.extension.externalId).toBe(alert.id);
        expect(parsed.extension.cat).toBe(alert.severity);
        expect(parsed.extension.rt).toBe(String(Date.parse(alert.timestamp)));
        expect(parsed.extension.msg).toBe(alert.description);
        expect(parsed.extension.cs4).toBe(alert.source);
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
        const parsed = parseLeef(formatLeef(event));
        expect(parsed).toEqual({ ...rest, delimiter: resolveLeefDelimiter(event) });
        const { attributes } = parsed;
        expect(attributes.title).toBe(alert.title);
        expect(attributes.alertId).toBe(alert.id);
        expect(attributes.description).toBe(alert.description);
        expect(attributes.devTime).toBe(new Date(alert.timestamp).toISOString());
        expect(attributes.alertSource).toBe(alert.source);
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

  it('parse back exactly from JSON', () => {
    fc.assert(
      fc.property(hostileAlert, (alert) => {
        const { deliveries: _deliveries, ...record } = alert;
        expect(JSON.parse(jsonForAlert(alert))).toEqual(record);
      }),
      { numRuns: ALERTS },
    );
  });
});
