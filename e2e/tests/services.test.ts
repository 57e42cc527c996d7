// The real servers e2e/services starts for the storage, SIEM and cloud tests (Elasticsearch, FerretDB, moto) answer on
// their fixed loopback ports and do real work: each test writes something through the server's own protocol and reads
// it back. Skipped with the reason when a server is down and THREATLIB_E2E is unset; failing when it is set.
import {
  CreateBucketCommand,
  DeleteBucketCommand,
  DeleteObjectCommand,
  GetObjectCommand,
  ListObjectsV2Command,
  PutObjectCommand,
  S3Client,
} from '@aws-sdk/client-s3';
import { describeWithServices, probeService } from '@threatlib/core/testing';
import { MongoClient } from 'mongodb';
import { afterAll, beforeAll, expect, it } from 'vitest';

/** The Elasticsearch of e2e/services.d/elasticsearch.sh, with its test user. */
const ELASTICSEARCH = {
  url: 'http://127.0.0.1:19200',
  username: 'threatlib',
  password: 'threatlib-e2e-password',
} as const;
/** The FerretDB of e2e/services.d/ferretdb.sh (no authentication). */
const FERRETDB_URI = 'mongodb://127.0.0.1:27018';
/** The moto server of e2e/services.d/moto.sh; it takes any credentials. */
const MOTO_URL = 'http://127.0.0.1:15000';

const PORTS = { elasticsearch: 19200, ferretdb: 27018, moto: 15000 } as const;
type Service = keyof typeof PORTS;

const probed = {
  elasticsearch: await probeService({ name: 'elasticsearch', port: PORTS.elasticsearch }),
  ferretdb: await probeService({ name: 'ferretdb', port: PORTS.ferretdb }),
  moto: await probeService({ name: 'moto', port: PORTS.moto }),
};

/** `describe` for tests that need one of the servers: skipped with the reason, or failing under THREATLIB_E2E. */
function describeWithService(service: Service, title: string, body: () => void): void {
  describeWithServices([probed[service]], title, body);
}

/** A name no other test, run or process uses (lower case: index and bucket names must be). */
const unique = (label: string) => `threatlib-test-${label}-${process.pid}-${Date.now().toString(36)}`;

describeWithService('elasticsearch', 'Elasticsearch (e2e service)', () => {
  const index = unique('services');
  const authorization = `Basic ${Buffer.from(`${ELASTICSEARCH.username}:${ELASTICSEARCH.password}`).toString('base64')}`;

  async function es(method: string, path: string, body?: unknown, auth = authorization) {
    const response = await fetch(`${ELASTICSEARCH.url}${path}`, {
      method,
      headers: { authorization: auth, 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
      signal: AbortSignal.timeout(30_000),
    });
    return { status: response.status, json: (await response.json()) as Record<string, unknown> };
  }

  afterAll(async () => {
    if (probed.elasticsearch.reachable) await es('DELETE', `/${index}`);
  });

  it('refuses a request without the test user and with a wrong password (security is on)', async () => {
    const anonymous = await fetch(`${ELASTICSEARCH.url}/_cluster/health`, { signal: AbortSignal.timeout(10_000) });
    expect(anonymous.status).toBe(401);
    await anonymous.body?.cancel();
    const wrongPassword = `Basic ${Buffer.from(`${ELASTICSEARCH.username}:wrong`).toString('base64')}`;
    const wrong = await es('GET', '/_cluster/health', undefined, wrongPassword);
    expect(wrong.status).toBe(401);
  });

  // The integration-test distribution has no rest-root module, so there is no `GET /` (405): the version comes from
  // the nodes API.
  it('reports itself as 8.19 and its cluster as green or yellow', async () => {
    const nodes = await es('GET', '/_nodes/_local?filter_path=nodes.*.version');
    expect(nodes.status).toBe(200);
    const versions = Object.values(nodes.json.nodes as Record<string, { version: string }>).map((n) => n.version);
    expect(versions).toEqual([expect.stringMatching(/^8\.19\./)]);
    const health = await es('GET', '/_cluster/health');
    expect(['green', 'yellow']).toContain(health.json.status);
  });

  it('indexes a document with an explicit mapping and finds it by a term query', async () => {
    const created = await es('PUT', `/${index}`, {
      settings: { number_of_replicas: 0 },
      mappings: {
        properties: {
          indicator: { type: 'keyword' },
          confidence: { type: 'float' },
          '@timestamp': { type: 'date' },
        },
      },
    });
    expect(created.status).toBe(200);
    const indexed = await es('POST', `/${index}/_doc?refresh=wait_for`, {
      indicator: '45.148.10.240',
      confidence: 0.9,
      '@timestamp': '2026-01-02T03:04:05Z',
    });
    expect(indexed.status).toBe(201);
    await es('POST', `/${index}/_doc?refresh=wait_for`, { indicator: '8.8.8.8', confidence: 0.1 });

    const found = await es('POST', `/${index}/_search`, {
      query: { bool: { filter: [{ term: { indicator: '45.148.10.240' } }, { range: { confidence: { gte: 0.5 } } }] } },
    });
    expect(found.status).toBe(200);
    const hits = (found.json.hits as { hits: Array<{ _source: Record<string, unknown> }> }).hits;
    expect(hits.map((hit) => hit._source)).toEqual([
      { indicator: '45.148.10.240', confidence: 0.9, '@timestamp': '2026-01-02T03:04:05Z' },
    ]);
  });
});

describeWithService('ferretdb', 'FerretDB (e2e service)', () => {
  const database = unique('services').replaceAll('-', '_');
  let client: MongoClient;

  beforeAll(async () => {
    client = new MongoClient(FERRETDB_URI, { serverSelectionTimeoutMS: 5000 });
    await client.connect();
  });

  afterAll(async () => {
    if (!client) return;
    await client.db(database).dropDatabase();
    await client.close();
  });

  it('answers ping', async () => {
    expect(await client.db('admin').command({ ping: 1 })).toMatchObject({ ok: 1 });
  });

  it('inserts documents and finds one by a comparison on a nested field', async () => {
    const threats = client.db(database).collection('threats');
    const scanDate = new Date('2026-01-02T03:04:05Z');
    await threats.insertMany([
      { indicator: '45.148.10.240', results: { confidence: 0.9 }, scanDate, ttl: 3600 },
      { indicator: '8.8.8.8', results: { confidence: 0.1 }, scanDate, ttl: 3600 },
    ]);
    const found = await threats.find({ 'results.confidence': { $gte: 0.5 } }, { projection: { _id: 0 } }).toArray();
    expect(found).toEqual([{ indicator: '45.148.10.240', results: { confidence: 0.9 }, scanDate, ttl: 3600 }]);
  });
});

describeWithService('moto', 'moto S3 (e2e service)', () => {
  const bucket = unique('services');
  const key = 'lists/threats.txt';
  let s3: S3Client;

  beforeAll(() => {
    s3 = new S3Client({
      endpoint: MOTO_URL,
      region: 'us-east-1',
      forcePathStyle: true,
      credentials: { accessKeyId: 'threatlib-test', secretAccessKey: 'threatlib-test' },
      maxAttempts: 1,
    });
  });

  afterAll(async () => {
    if (!s3) return;
    await s3.send(new DeleteObjectCommand({ Bucket: bucket, Key: key })).catch(() => undefined);
    await s3.send(new DeleteBucketCommand({ Bucket: bucket })).catch(() => undefined);
    s3.destroy();
  });

  it('creates a bucket, stores an object and reads it back', async () => {
    await s3.send(new CreateBucketCommand({ Bucket: bucket }));
    const body = '45.148.10.240\nevil.example\n';
    await s3.send(new PutObjectCommand({ Bucket: bucket, Key: key, Body: body, ContentType: 'text/plain' }));

    const listed = await s3.send(new ListObjectsV2Command({ Bucket: bucket }));
    expect(listed.Contents?.map((object) => object.Key)).toEqual([key]);
    const got = await s3.send(new GetObjectCommand({ Bucket: bucket, Key: key }));
    expect(got.ContentType).toBe('text/plain');
    expect(await got.Body?.transformToString()).toBe(body);
  });
});
