// Odd and hostile requests to the TAXII routes: each gets a 2xx or a 4xx (a TAXII error message wherever a TAXII
// route answers), never a 5xx.
import { connect } from 'node:net';
import { describe, expect, it } from 'vitest';
import { indicator, ROOT, serveTaxii } from '../test-support/serve-taxii.js';
import { TAXII_MEDIA_TYPE } from './media-types.js';

const OBJECTS = 'collections/inbox/objects/';
const ID = (n: number) => `indicator--00000000-0000-4000-8000-${String(n).padStart(12, '0')}`;

/** The status; a 4xx from a TAXII route must be a TAXII error message. */
async function answered(response: Response): Promise<number> {
  expect(response.status, await response.clone().text()).toBeLessThan(500);
  if (response.status >= 400 && response.headers.get('content-type') === TAXII_MEDIA_TYPE) {
    expect(await response.json()).toMatchObject({ title: expect.any(String), http_status: String(response.status) });
  }
  return response.status;
}

/** Sends raw bytes (a request line fetch would refuse to send) and returns the status line's code. */
function raw(port: number, request: string | Buffer): Promise<number> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1', () => socket.end(request));
    let data = '';
    socket.on('data', (chunk) => {
      data += chunk.toString('latin1');
    });
    socket.on('error', reject);
    socket.on('close', () => resolve(Number(/^HTTP\/1\.1 (\d{3})/.exec(data)?.[1] ?? 0)));
  });
}

describe('the TAXII routes under odd input', () => {
  it('Accept headers with parameters, quality values, other versions, charsets and garbage: 200 or 406', async () => {
    const { taxii } = await serveTaxii();
    const accepts = [
      'application/taxii+json;version=2.1;q=1',
      'application/taxii+json;version=2.1;q=0',
      'application/taxii+json;version=2.1;q=0.001',
      'application/taxii+json;version=2.1;q=1.5',
      'application/taxii+json;version=2.1;q=-1',
      'application/taxii+json;version=2.0',
      'application/taxii+json;version=3',
      'application/taxii+json;version=',
      'application/taxii+json;version',
      'application/taxii+json;;;version=2.1',
      'application/taxii+json;charset=utf-8',
      'application/taxii+json;charset=iso-8859-1',
      'application/vnd.oasis.taxii+json;version=2.0',
      'application/taxii+json;version="2.1',
      `application/taxii+json;${'a=b;'.repeat(1000)}`,
      `${'*/*,'.repeat(2000)}`,
      'application/taxii+json, application/taxii+json;q=0',
      '\t*/*\t',
      'ümlaut/ü',
    ];
    const statuses = new Map<number, number>();
    for (const accept of accepts) {
      const status = await answered(await taxii('/taxii2/', { headers: { accept } }));
      statuses.set(status, (statuses.get(status) ?? 0) + 1);
    }
    expect([...statuses.keys()].sort()).toEqual([200, 406]);
  });

  it('query strings: repeated, huge, malformed and unknown parameters are 400s, not crashes', async () => {
    const { taxii } = await serveTaxii();
    await taxii(OBJECTS, {
      method: 'POST',
      body: JSON.stringify({ objects: [indicator(1, "[ipv4-addr:value = '192.0.2.1']")] }),
    });
    const queries: Array<[string, number]> = [
      ['limit=1&limit=2', 400],
      ['added_after=2026-01-01T00:00:00Z&added_after=2026-01-02T00:00:00Z', 400],
      ['next=a&next=b', 400],
      ['match[type]=indicator&match[type]=malware', 200],
      ['limit=0', 400],
      ['limit=-1', 400],
      ['limit=1e3', 400],
      ['limit=99999999999', 400],
      ['limit=100000', 200],
      ['limit=%F0%9F%98%80', 400],
      ['added_after=yesterday', 400],
      ['added_after=2026-02-30T00:00:00Z', 400],
      ['added_after=2026-01-01T00:00:00%2B01:00', 400],
      [`match[id]=${Array.from({ length: 150 }, (_, i) => ID(i)).join(',')}`, 400],
      [`match[type]=${'a'.repeat(300)}`, 400],
      ['match[type]=', 400],
      ['match[type]=,,,', 400],
      ['match[id]=indicator--%C3%BC', 400],
      ['match[version]=newest', 400],
      ['match[spec_version]=latest', 400],
      ['match[foo]=bar', 400],
      ['match[=x', 400],
      ['match]]=x', 200],
      [`next=${'x'.repeat(2000)}`, 400],
      ['next=%F0%9F%98%80.%F0%9F%98%80', 400],
      ['next=', 400],
      ['%zz=%zz', 200],
      ['__proto__=x&constructor=y', 200],
    ];
    for (const [query, expected] of queries) {
      expect(await answered(await taxii(`${OBJECTS}?${query}`)), query).toBe(expected);
    }
    // A query string past what the server reads is refused by the HTTP layer, not the route.
    expect(await answered(await taxii(`${OBJECTS}?match[type]=${'a'.repeat(20_000)}`))).toBe(431);
  });

  it('paths: unicode, percent-encoded and raw bytes, traversal, unknown ids and collections', async () => {
    const { taxii, base } = await serveTaxii();
    for (const path of [
      'collections/%C3%BC/',
      'collections/inbox/objects/indicator--%C3%BC/',
      `collections/inbox/objects/${encodeURIComponent('indicator--00000000-0000-4000-8000-00000000000ü')}/versions/`,
      'collections/inbox/objects/%E2%80%AE/',
      'collections/../collections/',
      'collections/inbox/objects/%2e%2e/',
      `collections/inbox/objects/${'a'.repeat(2000)}/`,
      'collections/inbox/objects/%zz/',
      'status/%00/',
    ]) {
      expect(await answered(await taxii(path)), path).toBeGreaterThanOrEqual(200);
    }
    const port = Number(new URL(base).port);
    const line = (target: Buffer) =>
      Buffer.concat([
        Buffer.from('GET '),
        target,
        Buffer.from(` HTTP/1.1\r\nHost: x\r\nAccept: ${TAXII_MEDIA_TYPE}\r\n\r\n`),
      ]);
    for (const target of [
      Buffer.from(`${ROOT}collections/\xff\xfe/`, 'latin1'),
      Buffer.from(`${ROOT}collections/ü/`, 'utf8'),
      Buffer.from(`${ROOT}collections/inbox/objects/indicator--😀/`, 'utf8'),
    ]) {
      const status = await raw(port, line(target));
      expect(status).toBeGreaterThanOrEqual(400);
      expect(status).toBeLessThan(500);
    }
  });

  it('bodies: deep, repeated keys, __proto__, wrong shapes, odd objects and patterns: 4xx or a status that says why', async () => {
    const { taxii, scan } = await serveTaxii();
    const bodies: Array<[string, number]> = [
      [`${'['.repeat(100_000)}${']'.repeat(100_000)}`, 400],
      ['{"objects": [], "objects": []}', 400],
      ['{"__proto__": {"polluted": true}, "objects": []}', 400],
      ['', 400],
      ['\uFEFF{"objects": []}', 202],
      ['null', 422],
      ['"objects"', 422],
      ['{"objects": null}', 422],
      ['{"objects": [null, 1, "x", [], {}, {"type": 5}, {"type": "indicator", "id": 5}]}', 202],
      [`{"objects": [{"type": "${'a'.repeat(10_000)}", "id": "x"}]}`, 202],
    ];
    for (const [body, expected] of bodies) {
      expect(await answered(await taxii(OBJECTS, { method: 'POST', body })), body.slice(0, 40)).toBe(expected);
    }
    const hostile = [
      indicator(1, `${'('.repeat(20_000)}[ipv4-addr:value = '192.0.2.9']${')'.repeat(20_000)}`),
      indicator(2, `[url:value = '${'x'.repeat(100_000)}']`),
      indicator(3, "[domain-name:value = 'ünïcödé-example.com']"),
      indicator(4, 42 as unknown as string),
      indicator(5, "[ipv4-addr:value = '192.0.2.0/24']", {
        valid_until: 'not a time',
        valid_from: '9999-12-31T23:59:59Z',
      }),
      { ...indicator(6, "[ipv4-addr:value = '192.0.2.6']"), modified: '0000-01-01T00:00:00Z' },
      { ...indicator(7, "[ipv4-addr:value = '192.0.2.7']"), id: 'indicator--00000000-0000-4000-8000-00000000000😀' },
    ];
    const status = (await (
      await taxii(OBJECTS, { method: 'POST', body: JSON.stringify({ objects: hostile }) })
    ).json()) as { success_count: number; failure_count: number };
    expect(status).toMatchObject({ status: 'complete', total_count: 7 });
    expect(status.success_count + status.failure_count).toBe(7);
    expect((await scan('192.0.2.9')).isThreat).toBe(false);
    // Content-Type parameters TAXII allows, in any case and quoting.
    const charset = await taxii(OBJECTS, {
      method: 'POST',
      body: JSON.stringify({ objects: [] }),
      headers: { 'content-type': 'Application/TAXII+json; charset="UTF-8"; version="2.1"' },
    });
    expect(await answered(charset)).toBe(202);
    // HEAD answers as GET without a body.
    const head = await taxii(OBJECTS, { method: 'HEAD' });
    expect(head.status).toBe(200);
    expect(await head.text()).toBe('');
  });
});
