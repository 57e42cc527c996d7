// Issue 21, finding 9: SearchIndexStorage showed its auth password (options.auth, and the client behind it), and
// DocumentStoreStorage the password of its connection string (options.uri, and the driver's client), through
// JSON.stringify, util.inspect and any walk of their properties. The stores, their options, what they hand out (the
// alert stores, a webhook outbox), started or refused by the server, the errors they reject with and the integration
// a client builds from integrations.storage show no password through JSON.stringify, util.inspect (depth Infinity),
// String() or a walk of enumerable properties.
import { silentLogger, ThreatClient } from '@threatlib/core';
import { expectNoSecretShown } from '@threatlib/core/testing';
import { describeWithElasticsearch, E2E_ELASTICSEARCH } from '@threatlib/test-utils/elasticsearch';
import { describeWithFerretDB, uniqueDatabase } from '@threatlib/test-utils/ferretdb';
import { afterAll, describe, expect, it } from 'vitest';
import { DocumentStoreStorage } from './document-store/document-store-storage.js';
import { SearchIndexStorage } from './search-index/search-index-storage.js';
import { dropIndices, uniqueIndices } from './test-support/elasticsearch.js';

const MONGO_PASSWORD = 'mongo-pw-3Kd8sLq1Zx6V';
const ES_PASSWORD = 'es-pw-9Wf2tNb5Hy4J';
const ES_API_KEY = 'es-api-key-7Pc4mRv8Gd1T';
const COLLECTIONS = { threats: 'threats', campaigns: 'campaigns', indicators: 'indicators' };
const application = {
  env: false,
  logger: silentLogger,
  loadIntegrationPackage: (name: string) => (name === '@threatlib/storage' ? import('./index.js') : import(name)),
} as const;

describe('made, not started: the stores and what they hand out show no password', () => {
  it('DocumentStoreStorage with a password in its connection string', async () => {
    const store = new DocumentStoreStorage({
      uri: `mongodb://threatlib:${MONGO_PASSWORD}@db.example:27017/intel`,
      database: 'intel',
      collections: COLLECTIONS,
    });
    expectNoSecretShown('document store', store, [MONGO_PASSWORD]);
    expectNoSecretShown('its alerts', store.alerts, [MONGO_PASSWORD]);
    expectNoSecretShown('its webhook outbox', store.webhookOutbox('soc'), [MONGO_PASSWORD]);
    expect(store.options.uri).toBe('mongodb://threatlib:[redacted]@db.example:27017/intel');
    expect(store.options.database).toBe('intel');
    expect(store.client).toBeDefined();
    await store.stop();
  });

  it('SearchIndexStorage with {username, password} and with {apiKey}', async () => {
    for (const auth of [{ username: 'threatlib', password: ES_PASSWORD }, { apiKey: ES_API_KEY }]) {
      const store = new SearchIndexStorage({ node: 'http://127.0.0.1:1', auth, indices: uniqueIndices('made') });
      expectNoSecretShown('search index', store, [ES_PASSWORD, ES_API_KEY]);
      expectNoSecretShown('its alerts', store.alerts, [ES_PASSWORD, ES_API_KEY]);
      expect(store.options).toMatchObject({ node: 'http://127.0.0.1:1', auth: '[redacted]' });
      expect(JSON.parse(JSON.stringify(store))).toMatchObject({ backend: 'elasticsearch' });
      await store.stop();
    }
  });
});

describeWithFerretDB('a document store the server refuses (FerretDB has no authentication)', () => {
  it('the error start() rejects with and the store after it', async () => {
    const store = new DocumentStoreStorage({
      uri: `mongodb://threatlib:${MONGO_PASSWORD}@127.0.0.1:27018/?authSource=admin`,
      database: uniqueDatabase('secrets'),
      collections: COLLECTIONS,
      timeoutMs: 5_000,
    });
    try {
      const error = await store.start().catch((e: unknown) => e);
      expect(error).toBeInstanceOf(Error);
      expectNoSecretShown('start error', error, [MONGO_PASSWORD]);
      expectNoSecretShown('store after a failed start', store, [MONGO_PASSWORD]);
    } finally {
      await store.stop();
    }
  });
});

describeWithElasticsearch('a search index on the e2e Elasticsearch (its password is the secret)', () => {
  const indices = uniqueIndices('secrets');
  const clientIndices = uniqueIndices('secrets-client');
  afterAll(async () => {
    await dropIndices(indices);
    await dropIndices(clientIndices);
  });
  const SECRETS = [E2E_ELASTICSEARCH.auth.password];

  it('a started store that indexed and searched, and the error of a wrong password', async () => {
    const store = new SearchIndexStorage({ ...E2E_ELASTICSEARCH, indices });
    try {
      await store.index('threats', {
        indicator: 'evil.example',
        threat_type: 'malware',
        confidence: 90,
        sources: ['feed_otx'],
        '@timestamp': new Date().toISOString(),
      });
      await store.search('threats', { term: { indicator: 'evil.example' } });
      expectNoSecretShown('started search index', store, SECRETS);
      expectNoSecretShown('its alerts', store.alerts, SECRETS);
    } finally {
      await store.stop();
    }
    const refused = new SearchIndexStorage({
      node: E2E_ELASTICSEARCH.node,
      auth: { username: 'threatlib', password: ES_PASSWORD },
      indices: uniqueIndices('refused'),
    });
    const error = await refused.start().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(Error);
    expectNoSecretShown('refused credentials', error, [ES_PASSWORD]);
    expectNoSecretShown('store refused', refused, [ES_PASSWORD]);
    await refused.stop();
  });

  it('the integration a client builds from integrations.storage, started', async () => {
    const client = new ThreatClient(
      {
        sources: ['feed_urls'],
        integrations: { storage: { type: 'elasticsearch', ...E2E_ELASTICSEARCH, indices: clientIndices } },
      },
      application,
    );
    await client.start();
    try {
      expectNoSecretShown('storage integration', client.integration('storage'), SECRETS);
      expectNoSecretShown('started client', client, SECRETS);
    } finally {
      await client.stop();
    }
  });
});
