import { type Alert, AlertInputSchema } from '@threatlib/core';
import { isNormalisedAlert, normaliseAlert } from '@threatlib/core/integration';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { cefEventForAlert } from './alert-cef.js';
import { jsonForAlert } from './alert-json.js';
import { leefEventForAlert } from './alert-leef.js';
import { formatCef } from './cef.js';
import { parseCef } from './cef-parser.js';
import { EventFormatError } from './event-format-error.js';
import { formatAlert } from './event-formats.js';
import { hostileAlert } from './hostile-alerts.test-suite.js';

// Finding 5 of issue 21: a stored alert read back from a shared database may hold an indicator value threatlib
// never accepted. It is checked where it is written: refused, naming it, never written nor silently dropped.
const stored: Alert = {
  id: 'a1',
  title: 'Blocked address',
  severity: 'high',
  indicators: [
    { type: 'ipv4', value: '192.0.2.1', confidence: 90 },
    { type: 'ipv4', value: '198.51.100.7\n0.0.0.0/0', confidence: 90 },
  ],
  timestamp: '2026-01-01T00:00:00.000Z',
  deliveries: [],
};

function refusal(write: () => unknown): EventFormatError {
  try {
    write();
  } catch (error) {
    if (EventFormatError.isInstance(error)) return error;
    throw error;
  }
  throw new Error('not refused');
}

describe('indicator values are checked where an event is written', () => {
  it.each(['cef', 'leef', 'json'] as const)('%s refuses the alert, naming the value (escaped) and where', (format) => {
    const error = refusal(() => formatAlert(stored, format));
    expect(error.message).toBe(
      `${format.toUpperCase()}: indicators[1].value: Invalid indicator "198.51.100.7\\n0.0.0.0/0": contains whitespace (U+000A); an indicator is a single token`,
    );
    expect(error.isRetryable).toBe(false);
  });

  it('names every bad value, a type that does not match, and an unknown type', () => {
    const alert = {
      ...stored,
      indicators: [
        { type: 'domain', value: '198.51.100.7' },
        { type: 'ipv4', value: '0.0.0.0/0' },
        { type: '__proto__', value: 'evil.com' },
        { type: 'url', value: 'http://evil.com/\u2028x' },
      ],
    } as unknown as Alert;
    const message = refusal(() => cefEventForAlert(alert)).message;
    expect(message).toMatch(/indicators\[0\]\.value: Invalid indicator "198\.51\.100\.7": not a valid domain/);
    expect(message).toMatch(/indicators\[1\]\.value: Invalid indicator "0\.0\.0\.0\/0"/);
    expect(message).toMatch(/indicators\[2\]\.value: .*unknown indicator type "__proto__"/);
    expect(message).toContain('indicators[3].value: Invalid indicator "http://evil.com/\\u2028x"');
  });

  it('writes a valid value in its normalised form, in the dictionary field and in the JSON of every indicator', () => {
    const alert: Alert = { ...stored, indicators: [{ type: 'ipv6', value: '2001:DB8:0:0:0:0:0:1', confidence: 90 }] };
    const parsed = parseCef(formatCef(cefEventForAlert(alert)));
    expect(parsed.extension.c6a1).toBe('2001:db8::1');
    expect(JSON.parse(parsed.extension.cs1 as string)).toEqual([
      { type: 'ipv6', value: '2001:db8::1', confidence: 90 },
    ]);
    expect(leefEventForAlert(alert).attributes.indicator).toBe('2001:db8::1');
    expect(JSON.parse(jsonForAlert(alert)).indicators[0].value).toBe('2001:db8::1');
  });

  it.each(['cef', 'leef', 'json'] as const)(
    "%s refuses a severity that is not one of core's (constructor, toString)",
    (format) => {
      for (const severity of ['constructor', 'toString', 'severe']) {
        const error = refusal(() => formatAlert({ ...stored, indicators: [], severity } as unknown as Alert, format));
        expect(error.message).toBe(
          `${format.toUpperCase()}: severity must be one of informational, low, medium, high, critical, got "${severity}"`,
        );
      }
    },
  );
});

// A record core made (`isNormalisedAlert`) is written without parsing its indicators a second time: its values are
// already what `parseIndicator` makes of them, so the event is the one an unbranded copy (checked again) gives.
describe('writtenIndicators of a record core made', () => {
  it('writes the same CEF, LEEF and JSON as for a copy whose indicators are checked again', () => {
    fc.assert(
      fc.property(hostileAlert, (alert) => {
        // A stored alert may hold what an input may not (an empty title): those are not records core makes.
        fc.pre(AlertInputSchema.safeParse(alert).success);
        const record = normaliseAlert(alert, new Date(0));
        expect(isNormalisedAlert(record)).toBe(true);
        const copy = structuredClone(record);
        expect(isNormalisedAlert(copy)).toBe(false);
        expect(jsonForAlert(record)).toBe(jsonForAlert(copy));
        expect(cefEventForAlert(record)).toStrictEqual(cefEventForAlert(copy));
        expect(leefEventForAlert(record)).toStrictEqual(leefEventForAlert(copy));
      }),
      { numRuns: 300 },
    );
  });
});
