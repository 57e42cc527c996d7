// The sweep of expired records: threat records and campaigns whose `expires_at` has passed, found page by page and
// deleted by id.
import type { Client } from '@elastic/elasticsearch';
import { runRequest } from './elasticsearch-errors.js';
import type { ResolvedSearchIndexOptions } from './search-index-options.js';

/** Hits per round of the expired-record sweep. */
const SWEEP_PAGE = 1_000;

/**
 * Deletes the threat records or campaigns whose `expires_at` has passed: pages of ids found by a search, deleted by
 * id in bulk (the server may have no delete-by-query). Reads never return them either way.
 */
export async function deleteExpiredRecords(
  client: Client,
  indices: ResolvedSearchIndexOptions['indices'],
  key: 'threats' | 'campaigns',
  now: number,
): Promise<number> {
  const index = indices[key];
  const before = new Date(now).toISOString();
  let deleted = 0;
  for (;;) {
    await runRequest('sweep', key, () =>
      client.indices.refresh({ index, ignore_unavailable: true, allow_no_indices: true }),
    );
    const answer = await runRequest('sweep', key, () =>
      client.search({
        index,
        query: { range: { expires_at: { lte: before } } },
        _source: false,
        size: SWEEP_PAGE,
        track_total_hits: false,
        ignore_unavailable: true,
        allow_no_indices: true,
      }),
    );
    const hits = answer.hits.hits;
    if (hits.length === 0) return deleted;
    const result = await runRequest('sweep', key, () =>
      client.bulk({ operations: hits.map((hit) => ({ delete: { _index: hit._index, _id: hit._id } })) }),
    );
    const gone = result.items.filter((item) => item.delete?.result === 'deleted').length;
    deleted += gone;
    if (hits.length < SWEEP_PAGE || gone === 0) {
      await runRequest('sweep', key, () =>
        client.indices.refresh({ index, ignore_unavailable: true, allow_no_indices: true }),
      );
      return deleted;
    }
  }
}
