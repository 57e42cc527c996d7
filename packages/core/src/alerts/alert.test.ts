import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ValidationError } from '../errors/validation-error.js';
import { parseRecord } from '../records/parse-record.js';
import { type AlertInput, AlertInputSchema } from './alert.js';
import { MemoryAlertStore, normaliseAlert } from './memory-alert-store.js';

const NOW = new Date('2026-03-01T12:00:00Z');

/** The alert as the interface document writes it. */
const documented: AlertInput = {
  title: 'Malicious domain detected',
  severity: 'high',
  description: 'Domain flagged by threat intelligence',
  indicators: [{ type: 'domain', value: 'malicious-site.com', confidence: 95 }],
  timestamp: '2026-03-01T11:59:00.000Z',
};

/** What `client.correlate` returns, as far as an alert reads it. */
const correlation = {
  indicator: '198.51.100.7',
  type: 'ipv4',
  confidence: 88.4,
  verdict: 'malicious',
  isThreat: true,
  riskScore: 9,
  consensus: 2,
  contributions: [
    { feed: 'feed_abuse', verdict: 'malicious' },
    { feed: 'feed_otx', verdict: 'clean' },
    { feed: 'feed_cti', verdict: 'suspicious' },
  ],
  results: [],
};

const problem = (input: unknown): string => {
  try {
    parseRecord(AlertInputSchema, input, 'alert');
  } catch (error) {
    expect(error).toBeInstanceOf(ValidationError);
    return (error as ValidationError).message;
  }
  throw new Error('expected a ValidationError');
};

describe('an alert in the documented form', () => {
  it('is stored as given, with an id and no deliveries yet', async () => {
    const store = new MemoryAlertStore({ now: () => NOW });
    const alert = await store.add(documented);
    expect(alert).toEqual({ ...documented, id: expect.any(String), deliveries: [] });
    expect(await store.get(alert.id)).toEqual(alert);
  });

  it('takes the severity in any case and keeps it in lower case', () => {
    expect(parseRecord(AlertInputSchema, { ...documented, severity: 'CRITICAL' }, 'alert').severity).toBe('critical');
  });

  it("takes indicator type 'ip' and keeps the precise type", () => {
    const alert = parseRecord(
      AlertInputSchema,
      { ...documented, indicators: [{ type: 'ip', value: '8.8.8.8', confidence: 70 }] },
      'alert',
    );
    expect(alert.indicators).toEqual([{ type: 'ipv4', value: '8.8.8.8', confidence: 70 }]);
  });

  it('keeps the optional fields the library adds', () => {
    const deliveries = [{ integration: 'siem', status: 'failed', attempts: 3, lastError: 'HTTP 503' }] as const;
    const alert = parseRecord(
      AlertInputSchema,
      { ...documented, id: 'a-1', source: 'threatlib', riskScore: 8, metadata: { ticket: 7 }, deliveries },
      'alert',
    );
    expect(alert).toMatchObject({ id: 'a-1', source: 'threatlib', riskScore: 8, metadata: { ticket: 7 }, deliveries });
  });

  it.each([
    [{ severity: 'severe' }, 'severity: expected one of informational, low, medium, high, critical, got "severe"'],
    [{ severity: 8 }, 'severity: expected one of informational, low, medium, high, critical'],
    [{ severity: undefined }, 'severity: required: one of informational, low, medium, high, critical'],
    [{ title: '' }, 'title: required: a short title'],
    [{ timestamp: 'now' }, 'timestamp: expected an ISO 8601 date-time'],
    [{ indicators: ['malicious-site.com'] }, 'indicators[0]: '],
    [{ indicators: [{ type: 'ip', value: 'malicious-site.com' }] }, 'indicators[0].value: not a valid ip'],
    [{ indicators: [{ type: 'fqdn', value: 'malicious-site.com' }] }, 'indicators[0].type: expected one of'],
    [{ priority: 'high' }, 'priority: unknown field'],
    [{ deliveries: [{ integration: 'siem', status: 'lost', attempts: 1 }] }, 'deliveries[0].status: '],
  ])('refuses %j, naming the field', (change, message) => {
    expect(problem({ ...documented, ...change })).toContain(message);
  });
});

// Issue 21, finding 4: the record schema copied metadata by assignment, so a "__proto__" key (an ordinary key in
// parsed JSON: a queue message, a file) disappeared without a word. The REST server refuses it; so does every way in.
describe("an alert's metadata", () => {
  it.each([
    ['{"__proto__":{"isAdmin":true}}', 'at __proto__'],
    ['{"ticket":7,"context":{"__proto__":{"isAdmin":true}}}', 'at context.__proto__'],
    ['{"list":[{"__proto__":1}]}', 'at list[0].__proto__'],
  ])('with %s is refused, naming where', async (json, where) => {
    const message = problem({ ...documented, metadata: JSON.parse(json) });
    expect(message).toBe(`Invalid alert: metadata: the key "__proto__" is refused (${where}); rename it`);
    const store = new MemoryAlertStore();
    await expect(store.add({ ...documented, metadata: JSON.parse(json) })).rejects.toThrow(ValidationError);
  });

  it('keeps "constructor" and "prototype" as the keys they are', () => {
    const metadata = JSON.parse('{"constructor":{"prototype":{"x":1}}}');
    const alert = parseRecord(AlertInputSchema, { ...documented, metadata }, 'alert');
    expect(JSON.stringify(alert.metadata)).toBe('{"constructor":{"prototype":{"x":1}}}');
  });
});

describe('an alert in the webhook-handler form {title, indicator, correlation}', () => {
  it('becomes the same record: the indicator with the confidence and flagging sources, severity from the risk score', async () => {
    const store = new MemoryAlertStore({ now: () => NOW });
    const alert = await store.add({ title: 'High confidence threat detected', indicator: '198.51.100.7', correlation });
    expect(alert).toEqual({
      id: expect.any(String),
      title: 'High confidence threat detected',
      severity: 'critical',
      riskScore: 9,
      indicators: [{ type: 'ipv4', value: '198.51.100.7', confidence: 88.4, sources: ['feed_abuse', 'feed_cti'] }],
      timestamp: NOW.toISOString(),
      deliveries: [],
    });
  });

  it('derives the severity from the confidence when the correlation has no risk score', () => {
    const alert = parseRecord(
      AlertInputSchema,
      { title: 't', indicator: 'evil.com', correlation: { confidence: 85, sources: ['feed_urls'] } },
      'alert',
    );
    expect(alert).toMatchObject({
      severity: 'critical',
      riskScore: 9,
      indicators: [{ type: 'domain', value: 'evil.com', confidence: 85, sources: ['feed_urls'] }],
    });
  });

  it('keeps a severity given with it', () => {
    const alert = parseRecord(
      AlertInputSchema,
      { title: 't', severity: 'Low', indicator: '8.8.8.8', correlation },
      'a',
    );
    expect(alert.severity).toBe('low');
  });

  it.each([
    [{ correlation: { ...correlation, confidence: 'high' } }, 'correlation.confidence: '],
    [{ indicator: 'not an indicator' }, 'indicator: contains whitespace'],
    [{ indicators: [] }, 'indicator: give either indicators (a list) or indicator (with its correlation), not both'],
    [{ correlation: undefined }, 'severity: required'],
  ])('refuses %j, naming the field', (change, message) => {
    expect(problem({ title: 't', indicator: '198.51.100.7', correlation, ...change })).toContain(message);
  });
});

describe('the alert store', () => {
  it('lists by minimum severity name, newest first', async () => {
    const store = new MemoryAlertStore({ now: () => NOW });
    for (const severity of ['informational', 'low', 'medium', 'high', 'critical']) {
      await store.add({ title: severity, severity, indicators: [] });
    }
    const titles = async (minSeverity: never) =>
      (await store.list({ minSeverity })).items.map((alert) => alert.severity);
    expect(await titles('high' as never)).toEqual(['critical', 'high']);
    expect(await titles('MEDIUM' as never)).toEqual(['critical', 'high', 'medium']);
    await expect(store.list({ minSeverity: 7 as never })).rejects.toThrow(
      'Invalid alert query: minSeverity: expected one of informational, low, medium, high, critical, got 7',
    );
  });

  it('refuses an id it already holds', async () => {
    const store = new MemoryAlertStore();
    await store.add({ ...documented, id: 'a-1' });
    await expect(store.add({ ...documented, id: 'a-1' })).rejects.toThrow('id: an alert with id a-1 is already stored');
  });
});

describe("an alert's timestamp", () => {
  it('is the ISO 8601 text of the same instant, in UTC with milliseconds, whatever form it was given in', () => {
    // Every calendar field in and out of range, so some are refused; each accepted one must come out as toISOString
    // writes the instant, whether it was given in that form already (kept as it is) or not (parsed and written).
    const pad = (n: number, width: number) => String(n).padStart(width, '0');
    const fields = fc.record({
      year: fc.integer({ min: 0, max: 9999 }),
      month: fc.integer({ min: 0, max: 13 }),
      day: fc.integer({ min: 0, max: 32 }),
      hour: fc.integer({ min: 0, max: 24 }),
      minute: fc.integer({ min: 0, max: 60 }),
      second: fc.integer({ min: 0, max: 60 }),
      ms: fc.integer({ min: 0, max: 999 }),
      offset: fc.constantFrom('Z', '+00:00', '+05:30', '-08:00'),
      fraction: fc.constantFrom(3, 0, 1, 6),
    });
    fc.assert(
      fc.property(fields, (f) => {
        const fraction = f.fraction === 0 ? '' : `.${pad(f.ms, 3).padEnd(f.fraction, '0').slice(0, f.fraction)}`;
        const given = `${pad(f.year, 4)}-${pad(f.month, 2)}-${pad(f.day, 2)}T${pad(f.hour, 2)}:${pad(f.minute, 2)}:${pad(f.second, 2)}${fraction}${f.offset}`;
        let timestamp: string;
        try {
          timestamp = normaliseAlert({ title: 't', severity: 'low', timestamp: given }, NOW).timestamp;
        } catch (error) {
          expect(error).toBeInstanceOf(ValidationError);
          return;
        }
        expect(timestamp).toBe(new Date(given).toISOString());
      }),
      { numRuns: 5_000 },
    );
  });
});
