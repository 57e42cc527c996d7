// The OpenAPI document describes the feed results a scan really carries: since core's lookups are bounded, a feed
// held back by a rate limit answers `rate_limited` with `error.retryAt` (when it reopens), and one that does not
// answer in time answers `timeout`. A client reading the document must find both.
import { type FeedEmulator, startFeedEmulator } from '@threatlib/feed-emulator';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Json, json, post, serveForTest, testClient } from '../test-support/serve.js';

const IP = '198.51.100.91';
let emulator: FeedEmulator;

beforeAll(async () => {
  emulator = await startFeedEmulator();
});
afterAll(async () => {
  await emulator.close();
});

/**
 * Checks answers against the published document's own schemas (JSON Schema 2020-12, as OpenAPI 3.1 uses), formats
 * included: `validate('ScanResponse', body)` lists what in `body` the document does not allow.
 */
function validatorOf(document: Json) {
  const ajv = new Ajv2020({ strict: false, allErrors: true });
  addFormats.default(ajv);
  ajv.addSchema(document, 'openapi.json');
  return (component: string, value: unknown) => {
    const check = ajv.getSchema(`openapi.json#/components/schemas/${component}`);
    if (!check) throw new Error(`the document has no schema ${component}`);
    return check(value) ? [] : (check.errors ?? []).map((e) => `${e.instancePath} ${e.message}`);
  };
}

/** The keys of `value` that the JSON schema `schema` (an object schema of the document) does not declare. */
const undeclared = (value: Record<string, unknown>, schema: Json) =>
  Object.keys(value).filter((key) => !(key in (schema.properties ?? {})));

describe('FeedResult in the OpenAPI document', () => {
  it('declares what a rate-limited and a timed-out feed answer: error.retryAt, and the timeout status', {
    timeout: 30_000,
  }, async () => {
    // AbuseIPDB answers 429 with Retry-After; CrowdSec never answers, and the lookup's time limit cuts it.
    emulator.script(IP, { behaviour: 'rate_limited', feeds: ['feed_abuse'] });
    emulator.script(IP, { behaviour: 'hang', feeds: ['feed_cti'] });
    const entry = (feed: 'feed_abuse' | 'feed_cti') => ({ key: `key-${feed}`, endpoint: emulator.endpoints[feed] });
    const client = testClient({
      sources: ['feed_abuse', 'feed_cti'],
      apiKeys: { feed_abuse: entry('feed_abuse'), feed_cti: entry('feed_cti') },
      caching: { enabled: false },
      performance: { lookupTimeout: 1_500 },
    });
    const { base, call } = await serveForTest({}, client);
    const document = await json(fetch(`${base}/api/v1/openapi.json`));
    const validate = validatorOf(document);
    const feedResult = document.components.schemas.FeedResult;

    // With its explanation (`explain: true`), which the document declares too.
    const scan = await call('/api/v1/threats/scan', post({ indicator: IP, explain: true }));
    expect(scan.status).toBe(200);
    const answer = (await scan.json()) as Json;
    const { results } = answer;
    const abuse = results.find((r: Json) => r.feed === 'feed_abuse');
    const cti = results.find((r: Json) => r.feed === 'feed_cti');
    expect(abuse).toMatchObject({ status: 'rate_limited', error: { retryAt: expect.any(String) } });
    expect(new Date(abuse.error.retryAt).toISOString()).toBe(abuse.error.retryAt);
    expect(cti.status).toBe('timeout');

    // The whole answer is valid against the published ScanResponse, and each result against FeedResult.
    expect(validate('ScanResponse', answer)).toEqual([]);
    expect(answer.explanation.failures.map((f: Json) => f.feed)).toEqual(expect.arrayContaining(['feed_abuse']));
    for (const result of results) expect(validate('FeedResult', result), result.feed).toEqual([]);

    // Every field of every result, and of its error, is one the document declares, with a status it lists.
    for (const result of results) {
      expect(undeclared(result, feedResult), result.feed).toEqual([]);
      if (result.error) expect(undeclared(result.error, feedResult.properties.error), result.feed).toEqual([]);
      expect(feedResult.properties.status.enum).toContain(result.status);
    }
    expect(feedResult.properties.error.properties.retryAt).toMatchObject({ type: 'string', format: 'date-time' });
    expect(feedResult.properties.status.description).toMatch(/timeout \(no answer within .*lookupTimeout/);
    // A correlation's answer is valid against CorrelationResponse, its failures' statuses from the same list.
    const correlation = await call('/api/v1/correlate', post({ indicator: IP, type: 'ip' }));
    expect(correlation.status).toBe(200);
    const correlated = (await correlation.json()) as Json;
    expect(correlated.failures.map((f: Json) => f.status)).toContain('rate_limited');
    expect(validate('CorrelationResponse', correlated)).toEqual([]);
    expect(document.components.schemas.CorrelationResponse.properties.failures.items.properties.status.enum).toEqual(
      feedResult.properties.status.enum,
    );
  });
});
