// What the search index answers: a bulk's report (each document indexed or failed, with why), a search's hits, and
// the store's counters.
import type { Client, estypes } from '@elastic/elasticsearch';
import type { StorageError } from '../errors/storage-error.js';
import type { BulkDocument, BulkIndexerStats, IndexedDocument } from './bulk-indexer.js';
import type { CampaignSource } from './campaign-records.js';
import { DocumentRejectedError, runRequest } from './elasticsearch-errors.js';
import type { DocumentIndexKey } from './index-keys.js';
import type { StoredSearchDocument } from './search-document.js';
import type { CheckedSearch } from './search-query.js';

/** A campaign record as `search('campaigns', ...)` gives it back. */
export type StoredCampaignDocument = CampaignSource;

/** A document of a bulk that was not indexed, and why. */
export interface BulkIndexFailure {
  /** Its position in the documents given. */
  position: number;
  /** The concrete index and id it was sent as (absent when it was never sent). */
  index?: string;
  id?: string;
  /** The bulk item's HTTP status when Elasticsearch refused it. */
  status?: number;
  /** Why: Elasticsearch's `type: reason`, or why it could not be sent. */
  reason: string;
  error: StorageError;
}

/** What `indexMany` did: every document is either indexed or listed in `failed`. */
export interface BulkIndexReport {
  indexed: IndexedDocument[];
  failed: BulkIndexFailure[];
}

/** One document a search found. */
export interface SearchHit<Document = StoredSearchDocument & Record<string, unknown>> {
  /** The index it is in (a daily index for threats). */
  index: string;
  id: string;
  document: Document;
}

/** What `search` resolves to. */
export interface SearchResult<Document = StoredSearchDocument & Record<string, unknown>> {
  /** Documents that match (a lower bound when `totalIsExact` is false: Elasticsearch stops counting at 10,000). */
  total: number;
  totalIsExact: boolean;
  hits: SearchHit<Document>[];
}

/** What the store counts: the bulk indexer's figures and the retention sweeps'. */
export interface SearchIndexStats extends BulkIndexerStats {
  sweeps: number;
  sweepFailures: number;
}

/** The report of a bulk: each document sent is indexed, or failed with `errors[position]`. */
export function bulkIndexReport(sent: readonly BulkDocument[], errors: readonly unknown[]): BulkIndexReport {
  const report: BulkIndexReport = { indexed: [], failed: [] };
  sent.forEach(({ index, id }, position) => {
    const error = errors[position] as StorageError | undefined;
    if (error === undefined) {
      report.indexed.push({ index, id });
      return;
    }
    report.failed.push({
      position,
      index,
      id,
      ...(DocumentRejectedError.isInstance(error)
        ? { status: error.status, reason: `${error.errorType}: ${error.reason}` }
        : { reason: error.message }),
      error,
    });
  });
  return report;
}

/** Runs a checked search on `index`, leaving out what expired by `now`, and gives back its hits. */
export async function runSearch(
  client: Client,
  index: string,
  key: DocumentIndexKey,
  checked: CheckedSearch,
  now: string,
): Promise<SearchResult<object>> {
  const answer = await runRequest('search', key, () =>
    client.search<Record<string, unknown>>({
      index,
      ...checked,
      // Expired threat records and campaigns are never returned (documents without an expiry always are).
      query: { bool: { filter: [checked.query], must_not: [{ range: { expires_at: { lte: now } } }] } },
      ignore_unavailable: true,
      allow_no_indices: true,
    }),
  );
  const total = answer.hits.total as estypes.SearchTotalHits;
  return {
    total: total.value,
    totalIsExact: total.relation === 'eq',
    hits: answer.hits.hits.map((hit) => ({
      index: hit._index,
      id: hit._id as string,
      document: hit._source as Record<string, unknown>,
    })),
  };
}
