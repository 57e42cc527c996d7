import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { type AlertInput, AlertInputSchema } from './alert.js';
import { fastAlertInput } from './alert-fast-path.js';
import { normaliseAlert } from './memory-alert-store.js';

// The schema is the contract; the fast path is checked against it on arbitrary alerts of the documented form, valid
// and mutated into invalid ones, and on forms it leaves to the schema.

const indicatorValues = fc.oneof(
  fc.constantFrom(
    '198.51.100.7',
    '2001:DB8:0:0:0:0:0:1',
    'Evil.Example',
    'evil[.]example',
    'hxxp://evil[.]com/x',
    'https://user@example.com/path?q=1',
    'a@b.example',
    'd41d8cd98f00b204e9800998ecf8427e',
    'da39a3ee5e6b4b0d3255bfef95601890afd80709',
    'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855',
    ' 10.0.0.1 ',
    '10.0.0.1/24',
    '256.1.1.1',
    'two words',
    'x\u0000y',
    '',
    'ü.example',
    'a'.repeat(8193),
  ),
  fc.string({ maxLength: 30 }),
);
const indicatorType = fc.constantFrom(
  'ip',
  'hostname',
  'ipv4',
  'ipv6',
  'domain',
  'url',
  'md5',
  'sha1',
  'sha256',
  'email',
);
const shortString = fc.string({ minLength: 1, maxLength: 12 });

const indicator = fc.record(
  {
    type: indicatorType,
    value: indicatorValues,
    confidence: fc.oneof(fc.integer({ min: 0, max: 100 }), fc.double({ min: 1, max: 100, noNaN: true })),
    source: shortString,
    sources: fc.array(shortString, { maxLength: 3 }),
  },
  { requiredKeys: ['type', 'value'] },
);

const timestamps = fc
  .date({ min: new Date('0001-01-01T00:00:00Z'), max: new Date('9999-12-31T23:59:59Z'), noInvalidDate: true })
  .map((d) => d.toISOString());

const alert = fc.record(
  {
    id: fc.string({ minLength: 1, maxLength: 20 }),
    title: fc.oneof(fc.string({ minLength: 1, maxLength: 40 }), fc.constant('  padded title  ')),
    severity: fc.constantFrom('informational', 'low', 'medium', 'high', 'critical', 'HIGH', 'Critical'),
    description: fc.string({ maxLength: 40 }),
    indicators: fc.array(indicator, { maxLength: 4 }),
    timestamp: timestamps,
    source: fc.string({ maxLength: 20 }),
    riskScore: fc.double({ min: 1, max: 10, noNaN: true }),
    metadata: fc.dictionary(fc.string({ maxLength: 8 }), fc.jsonValue({ maxDepth: 2 }), { maxKeys: 4 }),
  },
  { requiredKeys: ['title'] },
);

/** Metadata the schema may refuse (or take in a way the fast path must match). */
function hostileMetadata(): unknown[] {
  const cycle: Record<string, unknown> = { a: 1 };
  cycle.self = cycle;
  const withSymbol = { a: 1, [Symbol('s')]: 2 };
  const hidden = Object.defineProperty({ a: 1 }, 'b', { value: 2, enumerable: false });
  return [
    JSON.parse('{"a":{"__proto__":{"x":1}}}'),
    JSON.parse('{"__proto__":1}'),
    Object.assign(Object.create(null), { a: 1 }),
    { constructor: () => 1 },
    { constructor: 'text' },
    { big: 1n },
    cycle,
    withSymbol,
    hidden,
    { text: 'x'.repeat(70_000) },
    { toJSON: () => 'x' },
    [1, 2],
    new Map([['a', 1]]),
    new Date(0),
    null,
    'text',
  ];
}

/** Values of every kind, for a field or an indicator's field to be replaced with. */
const anything = fc.oneof(
  fc.anything({ maxDepth: 1 }),
  fc.constantFrom(
    '',
    ' ',
    'a'.repeat(200),
    'a'.repeat(201),
    'a'.repeat(500),
    'a'.repeat(501),
    ` ${'a'.repeat(500)} `,
    'x'.repeat(20_001),
    0,
    0.5,
    11,
    -1,
    101,
    Number.NaN,
    Number.POSITIVE_INFINITY,
    'hıgh',
    'K',
    'HİGH',
    'high ',
    '2025-02-29T00:00:00.000Z',
    '2024-02-29T00:00:00.000Z',
    '2025-06-01T24:00:00.000Z',
    '2100-02-29T00:00:00.000Z',
    '2000-02-29T23:59:59.999Z',
    '0000-02-29T00:00:00.000Z',
    '1900-02-29T00:00:00.000Z',
    '2025-04-31T00:00:00.000Z',
    '2025-13-01T00:00:00.000Z',
    '2025-00-10T00:00:00.000Z',
    '2025-06-00T00:00:00.000Z',
    '2025-06-01T23:60:00.000Z',
    '2025-06-01T12:00:60.000Z',
    '2025-06-01T12:00:00Z',
    '2025-06-01T12:00:00.000+02:00',
    [],
    [{}],
    new Date(0),
    Object.create(null),
    undefined,
  ),
);

const FIELDS = ['id', 'title', 'severity', 'description', 'indicators', 'timestamp', 'source', 'riskScore', 'metadata'];

/** An alert with one field (of the alert, or of one of its indicators) replaced, removed or added. */
const mutated = fc
  .tuple(
    alert,
    fc.constantFrom(...FIELDS, 'extra', 'indicator.type', 'indicator.value', 'indicator.other', 'indicator.confidence'),
    fc.oneof(anything, fc.constantFrom(...hostileMetadata())),
    fc.boolean(),
  )
  .map(([base, field, value, remove]) => {
    const copy: Record<string, unknown> = { ...base };
    if (field.startsWith('indicator.')) {
      const key = field.slice('indicator.'.length);
      const first: Record<string, unknown> = { type: 'domain', value: 'evil.example', ...base.indicators?.[0] };
      if (remove) delete first[key];
      else first[key] = value;
      copy.indicators = [first, ...(base.indicators ?? []).slice(1)];
    } else if (remove) {
      delete copy[field];
    } else {
      copy[field] = value;
    }
    return copy;
  });

/** Forms the fast path leaves to the schema: the webhook-handler form, deliveries, other timestamps. */
const otherForms = fc.oneof(
  alert.map((base) => ({
    ...base,
    deliveries: [{ integration: 'siem', status: 'pending', attempts: 0 }],
  })),
  alert.map(({ indicators: _, severity: __, ...base }) => ({
    ...base,
    indicator: '198.51.100.7',
    correlation: { confidence: 90 },
  })),
  alert.map((base) => ({ ...base, timestamp: '2025-06-01T12:00:00+02:00' })),
);

function check(input: unknown): void {
  const fast = fastAlertInput(input);
  const zod = AlertInputSchema.safeParse(input);
  if (fast !== undefined) {
    expect(zod.success).toBe(true);
    expect(fast).toStrictEqual(zod.data);
    expect(JSON.stringify(fast)).toBe(JSON.stringify(zod.data));
  }
}

describe('fastAlertInput', () => {
  it('accepts every valid alert of the documented form, with what the schema makes of it', () => {
    fc.assert(
      fc.property(alert, (input) => {
        const zod = AlertInputSchema.safeParse(input);
        const fast = fastAlertInput(input);
        // On its form the fast path accepts exactly what the schema accepts.
        expect(fast !== undefined).toBe(zod.success);
        check(input);
      }),
      { numRuns: 2000 },
    );
  });

  it('refuses what the schema refuses: arbitrary mutations of a valid alert', () => {
    fc.assert(
      fc.property(mutated, (input) => {
        check(input);
        const zod = AlertInputSchema.safeParse(input);
        // Within its form (plain objects, known keys, a canonical timestamp) it accepts what the schema accepts.
        if (zod.success && inFastForm(input)) expect(fastAlertInput(input)).not.toBeUndefined();
      }),
      { numRuns: 5000 },
    );
  });

  it('leaves the other documented forms to the schema, and normaliseAlert still takes them', () => {
    fc.assert(
      fc.property(otherForms, (input) => {
        expect(fastAlertInput(input)).toBeUndefined();
        check(input);
      }),
      { numRuns: 300 },
    );
  });

  it('gives normaliseAlert the same record and the same errors as the schema alone', () => {
    const now = new Date('2025-06-01T00:00:00.000Z');
    const input: AlertInput = {
      id: 'a-1',
      title: ' Outbound connection ',
      severity: 'HIGH',
      description: 'seen',
      indicators: [
        { type: 'ip', value: '198.51.100.7', confidence: 90, source: 'fw', sources: ['abuseipdb'] },
        { type: 'hostname', value: 'Evil[.]Com' },
      ],
      timestamp: '2025-06-01T12:00:00.000Z',
      source: 'threatlib',
      riskScore: 7,
    };
    expect(fastAlertInput(input)).not.toBeUndefined();
    expect(normaliseAlert(input, now)).toStrictEqual({
      id: 'a-1',
      title: 'Outbound connection',
      severity: 'high',
      description: 'seen',
      indicators: [
        { type: 'ipv4', value: '198.51.100.7', confidence: 90, source: 'fw', sources: ['abuseipdb'] },
        { type: 'domain', value: 'evil.com' },
      ],
      timestamp: '2025-06-01T12:00:00.000Z',
      source: 'threatlib',
      riskScore: 7,
      deliveries: [],
    });
    const bad = { ...input, indicators: [{ type: 'ipv4', value: 'evil.example' }], riskScore: 0.5 };
    expect(fastAlertInput(bad)).toBeUndefined();
    expect(() => normaliseAlert(bad as never, now)).toThrow(
      /^Invalid alert: .*indicators\[0\]\.value: not a valid ipv4.*riskScore/,
    );
  });
});

/** Whether the fast path is meant to decide `input` (else it leaves it to the schema, valid or not). */
function inFastForm(input: Record<string, unknown>): boolean {
  const plain = (v: unknown) =>
    typeof v === 'object' && v !== null && [Object.prototype, null].includes(Object.getPrototypeOf(v));
  if (!plain(input) || Object.keys(input).some((k) => !FIELDS.includes(k))) return false;
  if (input.timestamp !== undefined && !/\.\d{3}Z$/.test(String(input.timestamp))) return false;
  const list = input.indicators;
  return !Array.isArray(list) || list.every((one) => plain(one));
}
