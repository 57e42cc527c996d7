import { describe, expect, it } from 'vitest';
import type { CorrelationResult } from '../client/correlation-result.js';
import { correlateResults } from '../correlation/correlate.js';
import { STRATEGY_THRESHOLDS } from '../correlation/strategies.js';
import { ValidationError } from '../errors/validation-error.js';
import type { FeedResult } from '../feeds/feed-result.js';
import { type StixIndicator, stixIndicatorId, THREATLIB_STIX_IDENTITY } from './stix-objects.js';
import { toStixBundle } from './to-stix-bundle.js';

const BUNDLE_ID = 'bundle--6e4c7b1a-3c8a-4b8e-9d3a-1f2e3d4c5b6a';

function feedResult(feed: string, fields: Partial<FeedResult>): FeedResult {
  return {
    feed,
    indicator: 'evil.com',
    type: 'domain',
    status: 'ok',
    verdict: 'malicious',
    score: 1,
    categories: [],
    tags: [],
    malwareFamilies: [],
    references: [],
    evidence: [],
    durationMs: 1,
    cached: false,
    ...fields,
  };
}

/** What `client.correlate` resolves to, made with core's own correlation. */
function correlationResult(results: FeedResult[], startedAt = '2025-03-01T10:00:00.123Z'): CorrelationResult {
  const correlation = correlateResults({
    indicator: 'evil.com',
    type: 'domain',
    results,
    strategy: 'balanced',
    thresholds: STRATEGY_THRESHOLDS.balanced,
    weightOf: () => 1,
    recencyHalfLifeDays: 180,
    now: Date.parse(startedAt),
  });
  return { ...correlation, results, startedAt, durationMs: 12 };
}

const RESULTS = [
  feedResult('feed_otx', {
    score: 0.9,
    categories: ['Phishing'],
    tags: ['open proxy'],
    malwareFamilies: ['Emotet'],
    references: ['https://otx.alienvault.com/indicator/domain/evil.com', 'not a url', 'javascript:alert(1)'],
  }),
  feedResult('feed_urls', { score: 0.7, verdict: 'suspicious', categories: ['Phishing'] }),
  feedResult('list:allow', { verdict: 'clean', score: 0, categories: ['ignored: not flagging'] }),
  feedResult('feed_abuse', { status: 'timeout', verdict: 'unknown', score: 0 }),
];

function onlyIndicator(bundle: ReturnType<typeof toStixBundle>): StixIndicator {
  const indicators = bundle.objects.filter((o): o is StixIndicator => o.type === 'indicator');
  expect(indicators).toHaveLength(1);
  return indicators[0] as StixIndicator;
}

describe('toStixBundle', () => {
  it('writes a CorrelationResult as a STIX 2.1 indicator, created by the threatlib identity', () => {
    const correlation = correlationResult(RESULTS);
    const bundle = toStixBundle([correlation], { bundleId: BUNDLE_ID });
    expect(bundle.type).toBe('bundle');
    expect(bundle.id).toBe(BUNDLE_ID);
    expect(bundle.objects[0]).toEqual(THREATLIB_STIX_IDENTITY);
    expect(onlyIndicator(bundle)).toEqual({
      type: 'indicator',
      spec_version: '2.1',
      id: stixIndicatorId({ type: 'domain', value: 'evil.com' }),
      created_by_ref: THREATLIB_STIX_IDENTITY.id,
      created: '2025-03-01T10:00:00.123Z',
      modified: '2025-03-01T10:00:00.123Z',
      name: 'evil.com',
      description: `threatlib verdict: ${correlation.verdict}, confidence ${Math.round(correlation.confidence)}; flagged by feed_otx, feed_urls (2 of 3 sources that answered)`,
      indicator_types: [
        correlation.verdict === 'malicious' ? 'malicious-activity' : 'anomalous-activity',
        'anonymization',
      ],
      pattern: "[domain-name:value = 'evil.com']",
      pattern_type: 'stix',
      pattern_version: '2.1',
      valid_from: '2025-03-01T10:00:00.123Z',
      confidence: Math.round(correlation.confidence),
      labels: ['Phishing', 'open proxy', 'Emotet'],
      external_references: [
        {
          source_name: 'feed_otx',
          description: 'feed_otx says malicious (score 0.9)',
          url: 'https://otx.alienvault.com/indicator/domain/evil.com',
        },
        { source_name: 'feed_urls', description: 'feed_urls says suspicious (score 0.7)' },
        { source_name: 'list:allow', description: 'list:allow says clean (score 0)' },
      ],
    });
    expect(Number.isInteger(onlyIndicator(bundle).confidence)).toBe(true);
  });

  it('gives every bundle a new id unless one is given, and each indicator the same id every time', () => {
    const a = toStixBundle([correlationResult(RESULTS)]);
    const b = toStixBundle([correlationResult(RESULTS, '2026-01-01T00:00:00.000Z')]);
    expect(a.id).toMatch(/^bundle--[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(a.id).not.toBe(b.id);
    expect(onlyIndicator(a).id).toBe(onlyIndicator(b).id);
    expect(onlyIndicator(a).id).toMatch(
      /^indicator--[0-9a-f]{8}-[0-9a-f]{4}-5[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/,
    );
    // Named from the normalised indicator: another spelling of the same one is the same object.
    expect(stixIndicatorId({ type: 'hostname', value: 'EVIL.com.' })).toBe(onlyIndicator(a).id);
    expect(stixIndicatorId({ type: 'ip', value: '2001:DB8::1' })).toBe(
      stixIndicatorId({ type: 'ipv6', value: '2001:db8:0::1' }),
    );
    expect(stixIndicatorId({ type: 'domain', value: 'evil.com' })).not.toBe(
      stixIndicatorId({ type: 'domain', value: 'evil.net' }),
    );
  });

  it('maps each verdict to the indicator-type vocabulary', () => {
    const types = (verdict: 'malicious' | 'suspicious' | 'clean' | 'unknown') =>
      onlyIndicator(toStixBundle([{ indicator: '198.51.100.7', type: 'ip', confidence: 50, verdict }], { now: 0 }))
        .indicator_types;
    expect(types('malicious')).toEqual(['malicious-activity']);
    expect(types('suspicious')).toEqual(['anomalous-activity']);
    expect(types('clean')).toEqual(['benign']);
    expect(types('unknown')).toEqual(['unknown']);
  });

  it('takes a plain Correlation (the correlated event) at options.now, with its contributions as references', () => {
    const { results: _results, startedAt: _startedAt, durationMs: _durationMs, ...plain } = correlationResult(RESULTS);
    const indicator = onlyIndicator(toStixBundle([plain], { now: new Date('2025-05-05T05:05:05.5Z') }));
    expect(indicator.created).toBe('2025-05-05T05:05:05.500Z');
    expect(indicator.valid_from).toBe('2025-05-05T05:05:05.500Z');
    expect(indicator.external_references?.map((r) => r.source_name)).toEqual(['feed_otx', 'feed_urls', 'list:allow']);
    // Contributions carry no categories: no labels, and STIX forbids an empty list, so none at all.
    expect(indicator).not.toHaveProperty('labels');
  });

  it('leaves out labels and references when no source answered, and rounds the confidence', () => {
    const indicator = onlyIndicator(
      toStixBundle([{ indicator: 'bad@evil.com', type: 'email', confidence: 99.5, verdict: 'malicious' }], { now: 0 }),
    );
    expect(indicator).not.toHaveProperty('labels');
    expect(indicator).not.toHaveProperty('external_references');
    expect(indicator.confidence).toBe(100);
    expect(indicator.description).toBe('threatlib verdict: malicious, confidence 100; no source gave an answer');
    expect(indicator.created).toBe('1970-01-01T00:00:00.000Z');
  });

  it('writes an indicator given twice once: created from the earliest correlation, the rest from the latest', () => {
    const early = {
      indicator: 'evil.com',
      type: 'domain',
      confidence: 40,
      verdict: 'suspicious',
      startedAt: '2025-01-01T00:00:00Z',
    } as const;
    const late = {
      indicator: 'EVIL.COM',
      type: 'hostname',
      confidence: 90,
      verdict: 'malicious',
      startedAt: '2025-02-01T00:00:00Z',
    } as const;
    for (const order of [
      [early, late],
      [late, early],
    ]) {
      const indicator = onlyIndicator(toStixBundle(order));
      expect(indicator).toMatchObject({
        created: '2025-01-01T00:00:00.000Z',
        modified: '2025-02-01T00:00:00.000Z',
        valid_from: '2025-02-01T00:00:00.000Z',
        confidence: 90,
        indicator_types: ['malicious-activity'],
      });
    }
  });

  it('refuses input it cannot write, naming every problem and where', () => {
    const call = () =>
      toStixBundle(
        [
          { indicator: 'evil.com', type: 'ipv4', confidence: 50, verdict: 'malicious' },
          { indicator: '198.51.100.7', type: 'ipv4', confidence: 101, verdict: 'bad' as never },
          {
            indicator: '198.51.100.8',
            type: 'ipv5' as never,
            confidence: Number.NaN,
            verdict: 'clean',
            startedAt: 'yesterday',
          },
          null as never,
        ],
        { bundleId: 'bundle--x', now: 'soon' },
      );
    expect(call).toThrow(ValidationError);
    expect(call).toThrow(
      'Invalid STIX bundle input: options.bundleId: expected bundle--<UUID>, got "bundle--x"; options.now: is not a date; ' +
        '[0].indicator: not a valid ipv4: expected four dot-separated decimal octets',
    );
    try {
      call();
    } catch (error) {
      expect((error as ValidationError).issues.map((issue) => issue.path)).toEqual([
        'options.bundleId',
        'options.now',
        '[0].indicator',
        '[1].confidence',
        '[1].verdict',
        '[2].type',
        '[2].confidence',
        '[2].startedAt',
        '[3]',
      ]);
    }
    expect(() => toStixBundle(42 as never)).toThrow('Invalid STIX bundle input: expected a list of correlations');
  });

  it('refuses a value that is two lines (a second indicator smuggled in), naming it escaped; nothing is written', () => {
    const call = () =>
      toStixBundle(
        [
          { indicator: '192.0.2.1', type: 'ipv4', confidence: 90, verdict: 'malicious' },
          { indicator: '198.51.100.7\n0.0.0.0/0', type: 'ipv4', confidence: 90, verdict: 'malicious' },
          { indicator: 'evil.com\u2028other.com', type: 'domain', confidence: 90, verdict: 'malicious' },
        ],
        { now: 0 },
      );
    expect(call).toThrow(
      'Invalid STIX bundle input: [1].indicator: contains whitespace (U+000A); an indicator is a single token (got "198.51.100.7\\n0.0.0.0/0"); ' +
        '[2].indicator: contains whitespace (U+2028); an indicator is a single token (got "evil.com\\u2028other.com")',
    );
  });

  it('refuses a time STIX cannot write (a year outside 0000-9999)', () => {
    expect(() =>
      toStixBundle([
        {
          indicator: 'evil.com',
          type: 'domain',
          confidence: 1,
          verdict: 'clean',
          startedAt: '+010000-01-01T00:00:00Z',
        },
      ]),
    ).toThrow(/\[0\]\.startedAt: is not a date/);
  });
});
