// What the SearchIndexStorage tests share: stores on indices of their own (stopped and dropped after each test) and
// the fault proxies they go through (closed after it).
import { E2E_ELASTICSEARCH } from '@threatlib/test-utils/elasticsearch';
import { afterEach } from 'vitest';
import type { SearchIndexOptions } from '../search-index/search-index-options.js';
import { type SearchIndexRuntime, SearchIndexStorage } from '../search-index/search-index-storage.js';
import { dropIndices, type FaultProxy, uniqueIndices } from './elasticsearch.js';

export const made: Array<{ storage: SearchIndexStorage; indices: Record<string, string> }> = [];
export const proxies: FaultProxy[] = [];
afterEach(async () => {
  for (const { storage, indices } of made.splice(0)) {
    await storage.stop();
    await dropIndices(indices);
  }
  await Promise.all(proxies.splice(0).map((proxy) => proxy.close()));
});

/** A store on the real Elasticsearch (or `node`), on indices of its own. */
export function open(label: string, options: Partial<SearchIndexOptions> = {}, runtime: SearchIndexRuntime = {}) {
  const indices = uniqueIndices(label);
  const storage = new SearchIndexStorage({ ...E2E_ELASTICSEARCH, indices, ...options }, runtime);
  made.push({ storage, indices });
  return { storage, indices };
}

export const DAY = 86_400_000;
