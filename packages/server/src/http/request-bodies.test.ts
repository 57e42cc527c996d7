import { ALERT_METADATA_MAX_BYTES } from '@threatlib/core';
import { describe, expect, it } from 'vitest';
import { json, LISTED, post, serveForTest } from '../test-support/serve.js';

const deepArray = (depth: number, inner = '1') => `${'['.repeat(depth)}${inner}${']'.repeat(depth)}`;
const deepObject = (depth: number, inner = '1') => `${'{"a":'.repeat(depth)}${inner}${'}'.repeat(depth)}`;

/** Every route that takes a body, with a valid body in which `value` (JSON text) takes a free-form place. */
const BODY_ROUTES: Array<[string, (value: string) => string]> = [
  ['/api/v1/threats/scan', (value) => `{"indicator":${value}}`],
  ['/api/v1/correlate', (value) => `{"indicator":"${LISTED}","type":${value}}`],
  ['/api/v1/threats/batch', (value) => `{"indicators":["${LISTED}",${value}]}`],
  ['/api/v1/alerts', (value) => `{"title":"t","severity":"high","metadata":{"deep":${value}}}`],
];

const DEEP_VALUES: Array<[string, string]> = [
  ['arrays 2,000 deep', deepArray(2_000)],
  ['objects 2,000 deep', deepObject(2_000)],
  ['arrays 400,000 deep', deepArray(400_000)],
  ['objects and arrays alternating 50,000 deep', `${'{"a":['.repeat(25_000)}1${']}'.repeat(25_000)}`],
];

describe('request bodies nested too deep are a 400 naming the limit, never a 5xx', () => {
  it('the reported case: alert metadata nested 2,000 deep in a 4 KB body', async () => {
    const { call } = await serveForTest();
    const body = `{"title":"t","severity":"high","metadata":${deepObject(2_000)}}`;
    expect(body.length).toBeLessThan(14_000);
    const response = await call('/api/v1/alerts', post(body));
    expect(response.status).toBe(400);
    expect(response.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    expect(await json(response)).toMatchObject({
      type: 'https://threatlib.dev/problems/validation',
      detail: expect.stringMatching(/nested deeper than 32 levels .*at metadata\.a\.a/),
    });
  });

  it.each(BODY_ROUTES)('%s: deep arrays and objects at the top and inside a field', async (path, within) => {
    const { call } = await serveForTest();
    for (const [name, value] of DEEP_VALUES) {
      for (const body of [value, within(value)]) {
        const response = await call(path, post(body));
        expect(response.status, `${name} (${body.slice(0, 40)}...)`).toBe(400);
        expect((await json(response)).detail).toMatch(/nested deeper than 32 levels/);
      }
    }
  });

  it('a body within the limit is accepted, and the limit is an option', async () => {
    const { call } = await serveForTest({ jsonDepthLimit: 8 });
    const alert = (metadata: string) => post(`{"title":"t","severity":"high","metadata":${metadata}}`);
    // The body is one level, the metadata object seven more: eight in all.
    expect((await call('/api/v1/alerts', alert(deepObject(7)))).status).toBe(201);
    expect((await call('/api/v1/alerts', alert(deepObject(8)))).status).toBe(400);
  });
});

describe('duplicate keys in a body are refused naming the key', () => {
  it('at the top: two indicators, of which JSON.parse would keep the second silently', async () => {
    const { call } = await serveForTest();
    const response = await call('/api/v1/threats/scan', post(`{"indicator":"198.51.100.7","indicator":"${LISTED}"}`));
    expect(response.status).toBe(400);
    const body = await json(response);
    expect(body).toMatchObject({
      type: 'https://threatlib.dev/problems/validation',
      detail: expect.stringContaining('the key "indicator" twice'),
      errors: [{ path: '', message: expect.stringContaining('"indicator"') }],
    });
  });

  it('inside metadata, with the path of the object and keys compared decoded', async () => {
    const { call } = await serveForTest();
    const response = await call(
      '/api/v1/alerts',
      post('{"title":"t","severity":"high","metadata":{"tags":[{"k":1},{"k":1,"\\u006b":2}]}}'),
    );
    expect(response.status).toBe(400);
    expect(await json(response)).toMatchObject({ errors: [{ path: 'metadata.tags.1' }] });
    const fine = await call(
      '/api/v1/alerts',
      post('{"title":"t","severity":"high","metadata":{"a":{"k":1},"b":{"k":1}}}'),
    );
    expect(fine.status).toBe(201);
  });
});

describe('alert metadata is capped in size', () => {
  const sized = (bytes: number) => ({ blob: 'x'.repeat(bytes - '{"blob":""}'.length) });

  it(`accepts ${ALERT_METADATA_MAX_BYTES} bytes and refuses one more, saying so`, async () => {
    const { call } = await serveForTest();
    const alert = (metadata: unknown) => post({ title: 't', severity: 'high', metadata });
    expect(JSON.stringify(sized(ALERT_METADATA_MAX_BYTES)).length).toBe(ALERT_METADATA_MAX_BYTES);
    expect((await call('/api/v1/alerts', alert(sized(ALERT_METADATA_MAX_BYTES)))).status).toBe(201);
    const over = await call('/api/v1/alerts', alert(sized(ALERT_METADATA_MAX_BYTES + 1)));
    expect(over.status).toBe(400);
    expect(await json(over)).toMatchObject({
      errors: [{ path: 'metadata', message: expect.stringMatching(/at most 65536 bytes as JSON; this is 65537/) }],
    });
  });

  it('refuses wide metadata (60,000 keys, 800 KB) by its size', async () => {
    const { call } = await serveForTest();
    const metadata = Object.fromEntries(Array.from({ length: 60_000 }, (_, i) => [`key${i}`, i]));
    const response = await call('/api/v1/alerts', post({ title: 't', severity: 'high', metadata }));
    expect(response.status).toBe(400);
    expect((await json(response)).errors[0].path).toBe('metadata');
  });
});

describe('a refusal stays small whatever the body', () => {
  it.each([
    ['40,000 unknown keys', '/api/v1/threats/scan', { indicator: LISTED, ...keys(40_000) }],
    ['200,000 wrong items', '/api/v1/alerts', { title: 't', severity: 'high', indicators: Array(200_000).fill(1) }],
    ['a 900 KB indicator', '/api/v1/threats/scan', { indicator: 'a'.repeat(900_000) }],
    ['a 900 KB title', '/api/v1/alerts', { title: 'x'.repeat(900_000), severity: 'high' }],
  ])('%s', async (_name, path, body) => {
    const { call } = await serveForTest();
    const response = await call(path, post(body));
    expect(response.status).toBe(400);
    const text = await response.text();
    expect(text.length).toBeLessThan(4_096);
    expect(text).not.toContain('aaaaaaaaaa');
    expect(text).not.toContain('xxxxxxxxxx');
  });
});

function keys(n: number): Record<string, number> {
  return Object.fromEntries(Array.from({ length: n }, (_, i) => [`unknown${i}`, i]));
}
