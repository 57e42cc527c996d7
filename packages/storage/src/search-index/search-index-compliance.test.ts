import { ManualClock } from '@threatlib/core/testing';
import { describeWithElasticsearch, E2E_ELASTICSEARCH } from '@threatlib/test-utils/elasticsearch';
import {
  COMPLIANCE_EPOCH,
  type RefusedFilter,
  type StorageComplianceTarget,
  storageCompliance,
} from '../compliance/storage-compliance.test-suite.js';
import { countRequests, dropIndices, rawCount, uniqueIndices } from '../test-support/elasticsearch.js';
import { SearchIndexStorage } from './search-index-storage.js';

/** Queries the search index refuses: code run on the server, other query languages, other indices, unmapped fields. */
const REFUSED_QUERIES: readonly RefusedFilter[] = [
  { filter: { script: { script: { source: 'Thread.sleep(100); return true' } } }, path: 'script' },
  {
    filter: { bool: { must: [{ term: { indicator: 'a.example' } }, { script: { script: 'true' } }] } },
    path: 'bool.must[1].script',
  },
  { filter: { function_score: { query: { match_all: {} }, script_score: { script: 'x' } } }, path: 'function_score' },
  { filter: { query_string: { query: 'indicator:* OR _index:secrets' } }, path: 'query_string' },
  { filter: { regexp: { indicator: '(a+)+$' } }, path: 'regexp' },
  // A terms lookup reads the values from a document of any index.
  { filter: { terms: { indicator: { index: 'secrets', id: '1', path: 'password' } } }, path: 'terms.indicator' },
  { filter: { term: { 'results.confidence': 90 } }, path: 'term.results.confidence' },
  { filter: JSON.parse('{"__proto__": {"match_all": {}}}'), path: '__proto__' },
];

async function searchIndexTarget(): Promise<StorageComplianceTarget> {
  const indices = uniqueIndices('compliance');
  const clock = new ManualClock(COMPLIANCE_EPOCH);
  const made: SearchIndexStorage[] = [];
  const open = () => {
    const storage = new SearchIndexStorage({ ...E2E_ELASTICSEARCH, indices }, { clock });
    made.push(storage);
    return storage;
  };
  const storage = open();
  const requests = countRequests(storage.client);
  return {
    storage,
    clock,
    requestsSent: () => requests.sent,
    query: (filter) => storage.search('threats', filter as never),
    storedThreatCount: () => rawCount(indices.threats),
    reopen: async () => open(),
    dispose: async () => {
      await Promise.all(made.map((store) => store.stop()));
      await dropIndices(indices);
    },
  };
}

describeWithElasticsearch('SearchIndexStorage passes the storage compliance suite on Elasticsearch', () => {
  storageCompliance(searchIndexTarget, { refusedFilters: REFUSED_QUERIES });
});
