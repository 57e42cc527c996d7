// Issue 17, point 6, for the Sentinel half: the STIX objects CloudSiemIntegration uploads pass the OASIS
// stix2-validator (every SHOULD an error, as core's STIX tests run it), and the Sentinel emulator's pattern checker
// agrees with the OASIS stix2-patterns validator, so the emulator neither lets through what Sentinel's STIX parser
// would refuse nor refuses what it takes. The validators come from e2e/tools/stix-validators.sh (PyPI, pinned, under
// .cache/): skipped when THREATLIB_E2E is unset, failing when it is set and they cannot run.
import { checkStixPattern } from '@threatlib/cloud-emulator';
import { parseIndicator, THREATLIB_STIX_IDENTITY, toStixBundle, toStixPattern } from '@threatlib/core';
import { describeWithOasisValidators, runOasisValidators } from '@threatlib/test-utils/python-tools';
import { expect, it } from 'vitest';
import { type SentinelIndicator, SentinelIndicatorSchema, toStixIndicatorObject } from './sentinel-indicator.js';

const objectOf = (input: SentinelIndicator) =>
  toStixIndicatorObject(SentinelIndicatorSchema.parse(input), new Date('2026-03-01T12:00:00.000Z'));

describeWithOasisValidators('the STIX that CloudSiemIntegration sends, checked by the OASIS validators', () => {
  it('createIndicator objects and concluded threats are valid STIX 2.1 with no warning', async () => {
    const hostile = parseIndicator("http://evil.com/it's\\here?q=']", 'url');
    const objects = [
      objectOf({
        pattern: "[ipv4-addr:value = '192.168.1.100']",
        labels: ['malicious-activity'],
        confidence: 85,
        threatTypes: ['malicious-activity'],
      }),
      objectOf({
        pattern: toStixPattern(hostile),
        labels: ["it's"],
        confidence: 40.6,
        threatTypes: ['anomalous-activity', 'anonymization'],
        description: 'from a test',
        validUntil: '2027-01-01T00:00:00Z',
      }),
      ...toStixBundle([{ indicator: 'evil.com', type: 'domain', confidence: 90, verdict: 'malicious' }], {
        now: Date.parse('2026-03-01T12:00:00Z'),
      }).objects.filter((o) => o.type === 'indicator'),
    ];
    const bundle = {
      type: 'bundle',
      id: 'bundle--6f1d1a8e-3f43-4b8e-9d35-0b8b6c6b1f61',
      objects: [THREATLIB_STIX_IDENTITY, ...objects],
    };
    const [verdict] = (await runOasisValidators({ bundles: [bundle] })).bundles;
    expect(verdict).toEqual({ valid: true, errors: [], warnings: [] });
  }, 120_000);

  it("the emulator's pattern checker agrees with stix2-patterns", async () => {
    const patterns = [
      "[ipv4-addr:value = '198.51.100.7']",
      "[file:hashes.'SHA-256' = 'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855']",
      toStixPattern(parseIndicator("http://evil.com/it's\\here?q=']", 'url')),
      "[domain-name:value = 'a.com' OR domain-name:value = 'b.com'] AND [ipv6-addr:value = '::1']",
      "[email-addr:value LIKE '%@evil.com'] FOLLOWEDBY [url:value MATCHES '^http'] WITHIN 60 SECONDS",
      "[network-traffic:dst_ref.value IN ('203.0.113.1', '203.0.113.2')] START t'2026-01-01T00:00:00Z' STOP t'2026-02-01T00:00:00Z'",
      "[file:name = 'x'] REPEATS 5 TIMES",
      "[ipv4-addr:value = '1.2.3.4'",
      "ipv4-addr:value = '1.2.3.4'",
      "[ipv4-addr:value = 'it's']",
      "[url:value = 'a\\b']",
      "[ipv4-addr = '1.2.3.4']",
      '[ipv4-addr:value = 1.2.3.4]',
      "[file:hashes.SHA-256 = 'x']",
    ];
    const oasis = (await runOasisValidators({ patterns })).patterns;
    const emulator = patterns.map((pattern) => {
      try {
        checkStixPattern(pattern);
        return true;
      } catch {
        return false;
      }
    });
    expect(emulator).toEqual(oasis.map((verdict) => verdict.errors.length === 0));
  }, 120_000);
});
