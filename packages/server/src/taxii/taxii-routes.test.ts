// The TAXII 2.1 server over HTTP: every route, with the media types, headers, paging and errors the specification
// asks for. The reference client's own run against it is in e2e/tests/taxii/.
import { describe, expect, it } from 'vitest';
import { hashPassword } from '../auth/password-hash.js';
import { type Json, json, LISTED, testClient } from '../test-support/serve.js';
import { indicator, ROOT, serveTaxii } from '../test-support/serve-taxii.js';
import { TAXII_MEDIA_TYPE } from './media-types.js';
import { INBOX_COLLECTION_ID, INDICATORS_COLLECTION_ID } from './taxii-collection.js';

const post = (objects: unknown[]) => ({ method: 'POST', body: JSON.stringify({ objects }) });

async function error(response: Response | Promise<Response>, status: number) {
  const r = await response;
  expect(r.status).toBe(status);
  expect(r.headers.get('content-type')).toBe(TAXII_MEDIA_TYPE);
  const body = await r.json();
  expect(body).toMatchObject({
    title: expect.any(String),
    description: expect.any(String),
    http_status: String(status),
  });
  return body as { title: string; description: string };
}

describe('TAXII 2.1 server information', () => {
  it('serves discovery at the prefix, the API root and its collections, as application/taxii+json;version=2.1', async () => {
    const { base, taxii } = await serveTaxii({ contact: 'soc@example.org' });
    const discovery = await taxii('/taxii2/');
    expect(discovery.status).toBe(200);
    expect(discovery.headers.get('content-type')).toBe('application/taxii+json;version=2.1');
    expect(await discovery.json()).toEqual({
      title: 'threatlib TAXII 2.1 server',
      contact: 'soc@example.org',
      default: `${base}${ROOT}`,
      api_roots: [`${base}${ROOT}`],
    });
    expect(await json(taxii(ROOT))).toMatchObject({
      versions: ['application/taxii+json;version=2.1'],
      max_content_length: 10 * 1024 * 1024,
    });
    const { collections } = await json(taxii('collections/'));
    expect(collections).toEqual([
      expect.objectContaining({ id: INDICATORS_COLLECTION_ID, alias: 'indicators', can_read: true, can_write: false }),
      expect.objectContaining({ id: INBOX_COLLECTION_ID, alias: 'inbox', can_read: true, can_write: true }),
    ]);
    expect(collections[0].media_types).toEqual(['application/stix+json;version=2.1']);
    expect(await json(taxii(`collections/${INBOX_COLLECTION_ID}/`))).toEqual(collections[1]);
    expect(await json(taxii('collections/inbox/'))).toEqual(collections[1]);
    await error(taxii('collections/nope/'), 404);
  });

  it('uses publicUrl in the discovery when given, and answers without an inbox when inbox is false', async () => {
    const { taxii } = await serveTaxii({
      publicUrl: 'https://intel.example.org/taxii2',
      apiRoot: 'root-1',
      inbox: false,
    });
    expect(await json(taxii('/taxii2/'))).toMatchObject({ api_roots: ['https://intel.example.org/taxii2/root-1/'] });
    expect((await json(taxii('/taxii2/root-1/collections/'))).collections).toHaveLength(1);
  });
});

describe('the indicators collection', () => {
  it("holds a STIX indicator for each threat the client concludes, beside threatlib's identity; read-only", async () => {
    const { taxii, scan } = await serveTaxii();
    expect((await scan(LISTED)).isThreat).toBe(true);
    expect((await scan('198.51.100.250')).isThreat).toBe(false);
    const { objects, more } = await json(taxii('collections/indicators/objects/'));
    expect(more).toBe(false);
    expect(objects.map((o: { type: string }) => o.type)).toEqual(['identity', 'indicator']);
    expect(objects[1]).toMatchObject({
      pattern: `[ipv4-addr:value = '${LISTED}']`,
      indicator_types: ['malicious-activity'],
      created_by_ref: objects[0].id,
      external_references: [expect.objectContaining({ source_name: 'list:example' })],
    });
    // Concluded again with the same evidence: no new version.
    await scan(LISTED);
    expect((await json(taxii('collections/indicators/manifest/'))).objects).toHaveLength(2);
    await error(
      taxii('collections/indicators/objects/', post([indicator(1, "[ipv4-addr:value = '198.51.100.1']")])),
      403,
    );
    await error(taxii(`collections/indicators/objects/${objects[1].id}/`, { method: 'DELETE' }), 403);
  });
});

describe('objects: paging, filters and versions', () => {
  it('pages with limit and next, each object once, with X-TAXII-Date-Added-First and -Last', async () => {
    const { taxii } = await serveTaxii();
    const posted = Array.from({ length: 250 }, (_, i) =>
      indicator(i + 1, `[ipv4-addr:value = '10.1.${i >> 8}.${i & 255}']`),
    );
    expect(await json(taxii('collections/inbox/objects/', post(posted)))).toMatchObject({
      status: 'complete',
      success_count: 250,
    });
    const manifest = (await json(taxii('collections/inbox/manifest/?limit=1000'))).objects as Array<{
      date_added: string;
    }>;
    expect(manifest).toHaveLength(250);
    const seen: string[] = [];
    let next: string | undefined;
    let pages = 0;
    do {
      const response = await taxii(
        `collections/inbox/objects/?limit=100${next ? `&next=${encodeURIComponent(next)}` : ''}`,
      );
      const page = (await response.json()) as { objects: Array<{ id: string }>; more: boolean; next?: string };
      const from = seen.length;
      seen.push(...page.objects.map((o: { id: string }) => o.id));
      expect(response.headers.get('x-taxii-date-added-first')).toBe(manifest[from]?.date_added);
      expect(response.headers.get('x-taxii-date-added-last')).toBe(manifest[seen.length - 1]?.date_added);
      expect(page.more).toBe(seen.length < 250);
      next = page.next;
      pages += 1;
    } while (next);
    expect(pages).toBe(3);
    expect(seen).toEqual(posted.map((o) => o.id));
    // added_after: the objects added after the 200th.
    const after = await json(taxii(`collections/inbox/objects/?added_after=${manifest[199]?.date_added}&limit=1000`));
    expect(after.objects).toHaveLength(50);
    expect(after.objects[0].id).toBe(posted[200]?.id);
  });

  it('filters on match[id], match[type], match[version] and match[spec_version], and serves an object and its versions', async () => {
    const { taxii } = await serveTaxii();
    const v1 = indicator(1, "[domain-name:value = 'one-example.com']");
    const v2 = { ...v1, modified: '2026-02-01T00:00:00.000Z' };
    const other = indicator(2, "[domain-name:value = 'two-example.com']");
    await taxii('collections/inbox/objects/', post([v1, other, v2]));
    const get = async (query: string) =>
      ((await json(taxii(`collections/inbox/objects/${query}`))).objects ?? []).map(
        (o: { id: string; modified: string }) => `${o.id.slice(-1)}:${o.modified.slice(5, 7)}`,
      );
    expect(await get('')).toEqual(['2:01', '1:02']);
    expect(await get('?match[version]=all')).toEqual(['1:01', '2:01', '1:02']);
    expect(await get('?match[version]=first')).toEqual(['1:01', '2:01']);
    expect(await get(`?match[id]=${v1.id}&match[version]=2026-01-01T00:00:00.000Z`)).toEqual(['1:01']);
    expect(await get('?match[type]=malware')).toEqual([]);
    expect(await get('?match[spec_version]=2.1&match[type]=indicator,malware')).toEqual(['2:01', '1:02']);
    expect(await get(`${v1.id}/`)).toEqual(['1:02']);
    expect(await get(`${v1.id}/?match[version]=all`)).toEqual(['1:01', '1:02']);
    const versions = await taxii(`collections/inbox/objects/${v1.id}/versions/`);
    expect(versions.headers.get('x-taxii-date-added-first')).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$/);
    expect(await versions.json()).toEqual({ more: false, versions: [v1.modified, v2.modified] });
    await error(taxii('collections/inbox/objects/indicator--00000000-0000-4000-8000-000000000099/'), 404);
    await error(taxii('collections/inbox/objects/not-an-id/versions/'), 404);
    await error(taxii(`collections/inbox/objects/${v1.id}/?match[type]=indicator`), 400);
  });
});

describe('the inbox collection', () => {
  it('takes a POST, answers 202 with a complete status (kept under status/), and later scans list its indicators', async () => {
    const { taxii, scan } = await serveTaxii();
    expect((await scan('192.0.2.77')).isThreat).toBe(false);
    const response = await taxii(
      'collections/inbox/objects/',
      post([
        indicator(1, "[ipv4-addr:value = '192.0.2.77']"),
        indicator(2, "[ipv4-addr:value = '192.0.2.1' AND ipv4-addr:value = '192.0.2.2']"),
        {
          type: 'identity',
          spec_version: '2.1',
          id: 'identity--00000000-0000-4000-8000-000000000001',
          created: '2026-01-01T00:00:00Z',
          modified: '2026-01-01T00:00:00Z',
          name: 'x',
          identity_class: 'organization',
        },
        { type: 'indicator', id: 'nope' },
      ]),
    );
    expect(response.status).toBe(202);
    expect(response.headers.get('content-type')).toBe(TAXII_MEDIA_TYPE);
    const status = (await response.json()) as Json;
    expect(status).toMatchObject({
      status: 'complete',
      total_count: 4,
      success_count: 3,
      failure_count: 1,
      pending_count: 0,
      failures: [{ id: 'nope', version: '', message: expect.stringMatching(/no valid id/) }],
    });
    expect(status.successes[0]).toMatchObject({ message: 'listed in "taxii-inbox"' });
    expect(status.successes[1].message).toMatch(/^stored, not listed \(pattern: .*AND/);
    expect(await json(taxii(`status/${status.id}/`))).toEqual(status);
    const scanned = await scan('192.0.2.77');
    expect(scanned.isThreat).toBe(true);
    expect(scanned.results.find((r) => r.feed === 'list:taxii-inbox')).toMatchObject({ status: 'ok' });
  });

  it('takes a revoking version and a DELETE off the list', async () => {
    const { taxii, scan } = await serveTaxii();
    const a = indicator(1, "[ipv4-addr:value = '192.0.2.10']");
    const b = indicator(2, "[ipv4-addr:value = '192.0.2.11']");
    await taxii('collections/inbox/objects/', post([a, b]));
    expect((await scan('192.0.2.10')).isThreat).toBe(true);
    await taxii('collections/inbox/objects/', post([{ ...a, modified: '2026-03-01T00:00:00.000Z', revoked: true }]));
    expect((await scan('192.0.2.10')).isThreat).toBe(false);
    const deleted = await taxii(`collections/inbox/objects/${b.id}/`, { method: 'DELETE' });
    expect(deleted.status).toBe(200);
    expect((await scan('192.0.2.11')).isThreat).toBe(false);
    await error(taxii(`collections/inbox/objects/${b.id}/`), 404);
  });
});

describe('TAXII authentication', () => {
  it("takes the client's own security.authentication, as the REST API does: HTTP Basic with its users", async () => {
    const client = testClient({
      security: {
        enforceHttps: false,
        authentication: { type: 'basic', users: { reader: await hashPassword('taxii-pa55word') } },
      },
    });
    const { taxii } = await serveTaxii({}, { authentication: undefined }, client);
    const basic = (password: string) => `Basic ${Buffer.from(`reader:${password}`).toString('base64')}`;
    expect((await taxii('/taxii2/', { token: null, headers: { authorization: basic('taxii-pa55word') } })).status).toBe(
      200,
    );
    await error(taxii('/taxii2/', { token: null, headers: { authorization: basic('wrong') } }), 401);
  });
});

describe('TAXII errors', () => {
  it('answers a wrong Accept 406, a wrong Content-Type 415, a large body 413, a non-envelope 422, all as TAXII errors', async () => {
    const { taxii } = await serveTaxii({ maxContentLength: 2048, maxObjectsPerRequest: 2 });
    expect((await error(taxii('/taxii2/', { headers: { accept: 'application/json' } }), 406)).description).toMatch(
      /answers application\/taxii\+json;version=2\.1 only/,
    );
    await error(taxii('/taxii2/', { headers: { accept: 'application/taxii+json;version=2.0' } }), 406);
    await error(
      taxii('collections/inbox/objects/', { ...post([]), headers: { 'content-type': 'application/json' } }),
      415,
    );
    await error(
      taxii('collections/inbox/objects/', {
        ...post([]),
        headers: { 'content-type': 'application/taxii+json;version=2.0' },
      }),
      415,
    );
    const large = await error(taxii('collections/inbox/objects/', { method: 'POST', body: 'x'.repeat(4096) }), 413);
    expect(large.description).toMatch(/max_content_length/);
    await error(taxii('collections/inbox/objects/', post([{}, {}, {}])), 413);
    await error(taxii('collections/inbox/objects/', { method: 'POST', body: '[]' }), 422);
    await error(taxii('collections/inbox/objects/', { method: 'POST', body: '{"objects": {}}' }), 422);
    await error(taxii('collections/inbox/objects/', { method: 'POST', body: '{"objects": [' }), 400);
  });

  it('refuses a next that was altered, expired, or is used for another query, with a 400 TAXII error', async () => {
    let now = Date.parse('2026-03-01T00:00:00Z');
    const { taxii } = await serveTaxii({ now: () => now, cursorTtlMs: 60_000 });
    await taxii(
      'collections/inbox/objects/',
      post([1, 2, 3].map((n) => indicator(n, `[ipv4-addr:value = '192.0.2.${n}']`))),
    );
    const { next } = await json(taxii('collections/inbox/objects/?limit=1'));
    expect(typeof next).toBe('string');
    const page2 = await json(taxii(`collections/inbox/objects/?limit=1&next=${encodeURIComponent(next)}`));
    expect(page2.objects[0].id).toBe(indicator(2, '').id);
    const tampered = `${next.slice(0, -3)}${next.endsWith('A') ? 'B' : 'A'}AA`;
    expect(
      (await error(taxii(`collections/inbox/objects/?limit=1&next=${encodeURIComponent(tampered)}`), 400)).description,
    ).toMatch(/not a cursor this server issued/);
    expect(
      (
        await error(
          taxii(`collections/inbox/objects/?limit=1&match[type]=indicator&next=${encodeURIComponent(next)}`),
          400,
        )
      ).description,
    ).toMatch(/issued for another query/);
    await error(taxii(`collections/inbox/manifest/?limit=1&next=${encodeURIComponent(next)}`), 400);
    now += 60_001;
    expect(
      (await error(taxii(`collections/inbox/objects/?limit=1&next=${encodeURIComponent(next)}`), 400)).description,
    ).toMatch(/expired/);
  });

  it('answers past the rate limit 429 with a TAXII error and Retry-After', async () => {
    const { taxii } = await serveTaxii({}, { rateLimit: { max: 3, windowMs: 60_000 } });
    for (let i = 0; i < 3; i++) expect((await taxii('/taxii2/')).status).toBe(200);
    const limited = await taxii('collections/');
    expect(limited.headers.get('retry-after')).toMatch(/^\d+$/);
    expect((await error(limited, 429)).description).toMatch(/at most 3 requests per 60 s/);
  });

  it('answers missing or wrong credentials 401 with a TAXII error and the challenge, and keeps statuses for a while', async () => {
    let now = Date.parse('2026-03-01T00:00:00Z');
    const { taxii } = await serveTaxii({ now: () => now, statusRetentionMs: 1000 });
    const refused = await taxii('/taxii2/', { token: null });
    expect(refused.headers.get('www-authenticate')).toMatch(/^Bearer/);
    await error(refused, 401);
    await error(taxii('collections/', { token: 'not-the-token' }), 401);
    const { id } = await json(
      taxii('collections/inbox/objects/', post([indicator(1, "[ipv4-addr:value = '192.0.2.1']")])),
    );
    expect((await taxii(`status/${id}/`)).status).toBe(200);
    now += 1001;
    await error(taxii(`status/${id}/`), 404);
  });
});
