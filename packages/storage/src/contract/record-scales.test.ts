import { ValidationError } from '@threatlib/core';
import { afterEach, describe, expect, it } from 'vitest';
import { DocumentStoreStorage } from '../document-store/document-store-storage.js';
import { parseStorageOptions } from '../integration/storage-options.js';
import { SearchIndexStorage } from '../search-index/search-index-storage.js';

// Both stores check a record before they connect: nothing listens on these ports, and nothing is asked to.
const stores: Array<DocumentStoreStorage | SearchIndexStorage> = [];
afterEach(async () => {
  await Promise.all(stores.splice(0).map((store) => store.stop()));
});

function documentStore(): DocumentStoreStorage {
  const store = new DocumentStoreStorage({
    uri: 'mongodb://127.0.0.1:1',
    database: 'never',
    collections: { threats: 'threats', campaigns: 'campaigns', indicators: 'indicators' },
  });
  stores.push(store);
  return store;
}

function searchIndex(): SearchIndexStorage {
  const store = new SearchIndexStorage({
    node: 'http://127.0.0.1:1',
    auth: { username: 'u', password: 'p' },
    indices: { threats: 'threats', campaigns: 'campaigns' },
  });
  stores.push(store);
  return store;
}

const refusal = async (work: Promise<unknown>): Promise<string> => {
  const error = await work.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(ValidationError.isInstance(error), String(error)).toBe(true);
  return (error as Error).message;
};

const scanDate = '2026-03-01T12:00:00Z';
const MS_HINT = 'ttl: ttl is in seconds, at most 31536000 (365 days); got 86400000 (did you mean 86400?)';

describe('a ttl given in milliseconds is refused with the seconds it stands for', () => {
  it('threat records, in both stores', async () => {
    const record = { indicator: 'malicious.example', results: { confidence: 90 }, scanDate, ttl: 86_400_000 };
    expect(await refusal(documentStore().store('threats', record))).toBe(`Invalid threat record: ${MS_HINT}`);
    expect(await refusal(documentStore().storeThreats([record]))).toBe(`Invalid threat record [0]: ${MS_HINT}`);
    expect(await refusal(searchIndex().storeThreats([record]))).toBe(`Invalid threat record [0]: ${MS_HINT}`);
  });

  it("another collection's record with a ttl, and campaigns' ttl", async () => {
    const record = { name: 'c', scanDate, ttl: 86_400_000 };
    expect(await refusal(documentStore().store('campaigns', record))).toBe(`Invalid record: ${MS_HINT}`);
    expect(await refusal(documentStore().recordCampaigns([], { ttl: 86_400_000 }))).toBe(
      `Invalid campaign options: ${MS_HINT}`,
    );
    expect(await refusal(searchIndex().recordCampaigns([], { ttl: 86_400_000 }))).toBe(
      `Invalid campaign options: ${MS_HINT}`,
    );
  });

  it("the integration's ttl option", () => {
    expect(() =>
      parseStorageOptions(
        { type: 'mongodb', uri: 'mongodb://h', database: 'd', ttl: 2_592_000_000 },
        'integrations.storage',
      ),
    ).toThrow(
      'Configuration invalid: integrations.storage.ttl: ttl is in seconds, at most 31536000 (365 days); got 2592000000 (did you mean 2592000?)',
    );
  });

  it('a year is the longest ttl', () => {
    const options = (ttl: number) => ({ type: 'mongodb', uri: 'mongodb://h', database: 'd', ttl });
    expect(parseStorageOptions(options(365 * 86_400), 'integrations.storage').settings.ttl).toBe(31_536_000);
    expect(() => parseStorageOptions(options(365 * 86_400 + 1), 'integrations.storage')).toThrow(
      /ttl is in seconds, at most 31536000 \(365 days\); got 31536001$/,
    );
  });
});

describe('a 0..1 confidence is refused where a 0..100 one is stored', () => {
  it('a search-index document', async () => {
    const document = { indicator: 'malicious.example', confidence: 0.9, '@timestamp': scanDate };
    expect(await refusal(searchIndex().index('threats', document))).toBe(
      'Invalid search-index document: confidence: confidence is 0..100; got 0.9 (did you mean 90?)',
    );
  });

  it("a threat record's results.confidence (what query filters and the index's confidence field read)", async () => {
    const record = { indicator: 'malicious.example', results: { confidence: 0.85 }, scanDate, ttl: 86_400 };
    const message = 'results.confidence: confidence is 0..100; got 0.85 (did you mean 85?)';
    expect(await refusal(documentStore().store('threats', record))).toBe(`Invalid threat record: ${message}`);
    expect(await refusal(searchIndex().storeThreats([record]))).toBe(`Invalid threat record [0]: ${message}`);
  });

  it("an indicator sighting's confidence", async () => {
    const sighting = {
      indicator: 'malicious.example',
      type: 'domain',
      seenAt: new Date(scanDate),
      verdict: 'malicious',
      confidence: 0.7,
      riskScore: 8,
    };
    const message = 'Invalid indicator sightings: [0].confidence: confidence is 0..100; got 0.7 (did you mean 70?)';
    expect(await refusal(documentStore().recordSightings([sighting]))).toBe(message);
    expect(await refusal(searchIndex().recordSightings([sighting]))).toBe(message);
  });
});
