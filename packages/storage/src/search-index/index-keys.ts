// The index keys a search-index call names (`threats`, `campaigns`), what a search of each may name, and the checks
// that refuse any other key.
import { ValidationError } from '@threatlib/core';
import { CAMPAIGN_FIELDS, THREAT_FIELDS } from './index-mappings.js';

/** The index keys `search` takes: the documented `indices`. `index` takes `threats`. */
const DOCUMENT_INDEX_KEYS = ['threats', 'campaigns'] as const;
/** One of {@link DOCUMENT_INDEX_KEYS}. */
export type DocumentIndexKey = (typeof DOCUMENT_INDEX_KEYS)[number];

/** What a search of each index key may name, and what it sorts by unless told. */
export const SEARCHABLE = {
  threats: { fields: THREAT_FIELDS, newestFirstBy: '@timestamp' },
  campaigns: { fields: CAMPAIGN_FIELDS, newestFirstBy: 'last_seen' },
} as const;

/** `indexKey` when it is `threats` or `campaigns`. */
export function searchIndexKey(indexKey: unknown): DocumentIndexKey {
  if (typeof indexKey === 'string' && (DOCUMENT_INDEX_KEYS as readonly string[]).includes(indexKey)) {
    return indexKey as DocumentIndexKey;
  }
  throw new ValidationError('index key', [
    { path: 'indexKey', message: `expected "threats" or "campaigns", got ${JSON.stringify(indexKey) ?? 'nothing'}` },
  ]);
}

/** `indexKey` when it is `threats`, the index documents are indexed into. */
export function threatsIndexKey(indexKey: unknown): 'threats' {
  if (indexKey === 'threats') return indexKey;
  const message =
    indexKey === 'campaigns'
      ? '"campaigns" keeps one record per campaign, made from campaign reports (recordCampaigns); index takes threat documents into "threats"'
      : `expected "threats", got ${JSON.stringify(indexKey) ?? 'nothing'}`;
  throw new ValidationError('index key', [{ path: 'indexKey', message }]);
}
