// Issue 17, point 6 and its acceptance: every indicator type's pattern and a 1,000-indicator bundle pass the OASIS
// validators (stix2-patterns, and stix2-validator with every SHOULD an error); so do the hostile bundles the
// round-trip tests make. And the harness can fail: deliberately bad patterns and bundles are rejected.
import { describeWithOasisValidators, runOasisValidators } from '@threatlib/test-utils/python-tools';
import fc from 'fast-check';
import { expect, it } from 'vitest';
import { INDICATOR_TYPES, type IndicatorType } from '../indicators/indicator.js';
import { parseIndicator } from '../indicators/parse-indicator.js';
import { correlationOf, hostileIndicator, hostileIndicatorOf, hostileLabel } from './stix-arbitraries.test-suite.js';
import { toStixPattern } from './stix-pattern.js';
import { type StixCorrelationInput, toStixBundle } from './to-stix-bundle.js';

const PLAIN: Readonly<Record<IndicatorType, string>> = {
  ipv4: '198.51.100.7',
  ipv6: '2001:db8::1',
  domain: 'evil.com',
  url: 'http://evil.com/login.php?next=/',
  email: 'bad@evil.com',
  md5: 'd41d8cd98f00b204e9800998ecf8427e',
  sha1: 'da39a3ee5e6b4b0d3255bfef95601890afd80709',
  sha256: 'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855',
};

/** A thousand distinct indicators, cycling through every type, with references, labels and every verdict. */
function thousandCorrelations(): StixCorrelationInput[] {
  const verdicts = ['malicious', 'suspicious', 'clean', 'unknown'] as const;
  return Array.from({ length: 1000 }, (_, n) => {
    const type = INDICATOR_TYPES[n % INDICATOR_TYPES.length] as IndicatorType;
    const hex = (length: number) => n.toString(16).padStart(length, '0');
    const value = {
      ipv4: `198.51.${Math.floor(n / 256) % 256}.${n % 256}`,
      ipv6: `2001:db8::${hex(4)}`,
      domain: `host-${n}.evil.com`,
      url: `https://evil.com/${n}/it's?q=a\\b#]`,
      email: `o'brien+${n}@evil.com`,
      md5: hex(32),
      sha1: hex(40),
      sha256: hex(64),
    }[type];
    const verdict = verdicts[n % verdicts.length] as (typeof verdicts)[number];
    return {
      indicator: value,
      type,
      // 1 to 100 with decimals, as correlate gives: a fraction under 1 would be a 0..1 score, which is refused.
      confidence: 1 + ((n * 7.3) % 99),
      verdict,
      startedAt: new Date(Date.UTC(2025, 0, 1) + n * 1000).toISOString(),
      results: [
        {
          feed: 'feed_otx',
          status: 'ok',
          verdict: verdict === 'clean' ? 'clean' : 'malicious',
          score: 0.9,
          categories: ['Phishing', n % 3 === 0 ? 'Open Proxy' : 'Botnet C2'],
          tags: ['apt'],
          malwareFamilies: n % 5 === 0 ? ['Emotet'] : [],
          references: [`https://otx.alienvault.com/indicator/${type}/${encodeURIComponent(value)}`],
        },
        { feed: 'list:ipsum', status: 'ok', verdict: 'malicious', score: 1, references: [] },
        { feed: 'feed_abuse', status: 'rate_limited', verdict: 'unknown', score: 0 },
      ],
    };
  });
}

describeWithOasisValidators('the OASIS STIX validators', () => {
  it("accept every indicator type's pattern, plain and hostile, and the alias forms", async () => {
    const patterns = [
      ...INDICATOR_TYPES.map((type) => toStixPattern({ type, value: PLAIN[type] })),
      toStixPattern({ type: 'ip', value: '198.51.100.7' }),
      toStixPattern({ type: 'ip', value: '2001:DB8::2' }),
      toStixPattern({ type: 'hostname', value: 'Bücher.de' }),
      ...INDICATOR_TYPES.flatMap((type) =>
        fc.sample(hostileIndicatorOf(type), { numRuns: 40, seed: 17 }).map((indicator) => toStixPattern(indicator)),
      ),
    ];
    const verdicts = await runOasisValidators({ patterns });
    expect(verdicts.patterns).toHaveLength(patterns.length);
    expect(verdicts.patterns.filter((verdict) => verdict.errors.length > 0)).toEqual([]);
  }, 120_000);

  it('accept a 1,000-indicator bundle with no error and no warning', async () => {
    const bundle = toStixBundle(thousandCorrelations());
    expect(bundle.objects.filter((object) => object.type === 'indicator')).toHaveLength(1000);
    const [verdict] = (await runOasisValidators({ bundles: [JSON.stringify(bundle)] })).bundles;
    expect(verdict).toEqual({ valid: true, errors: [], warnings: [] });
  }, 120_000);

  it('accept the bundles of hostile indicators the round-trip tests make, and a bundle of plain Correlations', async () => {
    const hostile = fc
      .sample(
        fc.tuple(fc.array(hostileIndicator, { minLength: 1, maxLength: 40 }), fc.array(hostileLabel, { maxLength: 3 })),
        {
          numRuns: 10,
          seed: 17,
        },
      )
      .map(([indicators, labels]) => toStixBundle(indicators.map((indicator) => correlationOf(indicator, { labels }))));
    const plain = toStixBundle(
      thousandCorrelations()
        .slice(0, 50)
        .map(({ results: _results, startedAt: _startedAt, ...correlation }) => correlation),
    );
    const verdicts = await runOasisValidators({ bundles: [...hostile, plain].map((bundle) => JSON.stringify(bundle)) });
    for (const verdict of verdicts.bundles) expect(verdict).toEqual({ valid: true, errors: [], warnings: [] });
  }, 120_000);

  it('reject a bad pattern and a bad bundle, so a pass means something', async () => {
    const good = toStixBundle([correlationOf(parseIndicator('evil.com'))]);
    const [identity, indicator] = good.objects;
    const badBundles = [
      // An unquoted hyphenated hash name, as a hand-written pattern might have it.
      { ...good, objects: [identity, { ...indicator, pattern: `[file:hashes.SHA-256 = '${PLAIN.sha256}']` }] },
      // A confidence out of range, and valid_from missing.
      { ...good, objects: [identity, { ...indicator, confidence: 101, valid_from: undefined }] },
      // A SHOULD broken (no description): an error under --strict.
      { ...good, objects: [identity, { ...indicator, description: undefined }] },
    ];
    const verdicts = await runOasisValidators({
      patterns: [
        `[file:hashes.SHA-256 = '${PLAIN.sha256}']`,
        "[url:value = 'a\\nb']",
        "[url:value = 'it's']",
        "[file:hashes.MD5 = 'not a hash']",
      ],
      bundles: badBundles.map((bundle) => JSON.stringify(bundle)),
    });
    for (const verdict of verdicts.patterns) expect(verdict.errors, verdict.pattern).not.toEqual([]);
    for (const verdict of verdicts.bundles) {
      expect(verdict.valid).toBe(false);
      expect(verdict.errors).not.toEqual([]);
    }
    expect(verdicts.bundles[2]?.errors.join('\n')).toMatch(/name and description properties SHOULD be present/);
  }, 120_000);
});
