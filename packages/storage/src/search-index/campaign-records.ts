import { createHash } from 'node:crypto';
import type { Client, estypes } from '@elastic/elasticsearch';
import type { ParsedCampaignReport } from '../contract/campaign-schema.js';
import type { StoredCampaign } from '../contract/threat-storage.js';
import { StorageError } from '../errors/storage-error.js';
import { reasonOf, runRequest } from './elasticsearch-errors.js';

/** One campaign as a document of the campaigns index. */
export interface CampaignSource {
  campaign: string;
  status: 'formed' | 'grown';
  shared_by: { kind: string; value: string };
  /** Every indicator a report listed, in the order they were first stored. */
  indicators: string[];
  indicator_count: number;
  first_seen: string;
  last_seen: string;
  sources: string[];
  /** The latest `last_seen` + ttl a report came with. */
  expires_at: string;
}

/** Rounds of read, merge and conditional write before concurrent writers are reported instead of retried. */
const MAX_ROUNDS = 8;

/** The `_id` of a campaign: a hash of its id (up to 200 characters, more than Elasticsearch's 512 bytes in UTF-8). */
export function campaignId(campaign: string): string {
  return createHash('sha256').update(campaign).digest('base64url');
}

/** A campaign record with a report folded in: it only grows, so folding the same report again changes nothing. */
function merge(stored: CampaignSource | undefined, report: ParsedCampaignReport, ttlMs: number): CampaignSource {
  const expires = new Date(report.lastSeen.getTime() + ttlMs).toISOString();
  if (stored === undefined) {
    return {
      campaign: report.campaign,
      status: report.status,
      shared_by: { kind: report.sharedBy.kind, value: report.sharedBy.value },
      indicators: [...new Set(report.indicators)],
      indicator_count: report.indicatorCount,
      first_seen: report.firstSeen.toISOString(),
      last_seen: report.lastSeen.toISOString(),
      sources: [...new Set(report.sources)],
      expires_at: expires,
    };
  }
  const latest = (a: string, b: string) => (Date.parse(a) >= Date.parse(b) ? a : b);
  const earliest = (a: string, b: string) => (Date.parse(a) <= Date.parse(b) ? a : b);
  return {
    ...stored,
    status: stored.status === 'grown' || report.status === 'grown' ? 'grown' : 'formed',
    indicators: [...new Set([...stored.indicators, ...report.indicators])],
    indicator_count: Math.max(stored.indicator_count, report.indicatorCount),
    first_seen: earliest(stored.first_seen, report.firstSeen.toISOString()),
    last_seen: latest(stored.last_seen, report.lastSeen.toISOString()),
    sources: [...new Set([...stored.sources, ...report.sources])],
    expires_at: latest(stored.expires_at, expires),
  };
}

/**
 * Folds campaign reports into one record per campaign id, without scripts (the server may have none): each round
 * reads the records in real time (`mget`), folds the reports in, and writes each back only if nobody wrote it
 * meanwhile (`if_seq_no`/`if_primary_term`, or `create` for a new one); what lost such a race is read and folded
 * again. Reports of one campaign in one call are folded together, in order.
 *
 * @throws {StorageError} when a write is refused, or still races after several rounds.
 */
export async function foldCampaignReports(
  client: Client,
  index: string,
  reports: readonly ParsedCampaignReport[],
  ttlSeconds: number,
): Promise<void> {
  let remaining = new Map<string, ParsedCampaignReport[]>();
  for (const report of reports) {
    const list = remaining.get(report.campaign) ?? [];
    list.push(report);
    remaining.set(report.campaign, list);
  }
  for (let round = 0; round < MAX_ROUNDS && remaining.size > 0; round += 1) {
    const entries = [...remaining.entries()];
    const read = await runRequest('store', 'campaigns', () =>
      client.mget<CampaignSource>({ index, ids: entries.map(([campaign]) => campaignId(campaign)) }),
    );
    const operations: Array<estypes.BulkOperationContainer | CampaignSource> = [];
    entries.forEach(([campaign, list], i) => {
      const doc = read.docs[i] as estypes.GetGetResult<CampaignSource> | undefined;
      const found = doc?.found === true && doc._source !== undefined;
      let record = found ? doc._source : undefined;
      for (const report of list) record = merge(record, report, ttlSeconds * 1000);
      const _id = campaignId(campaign);
      operations.push(
        found
          ? { index: { _index: index, _id, if_seq_no: doc._seq_no, if_primary_term: doc._primary_term } }
          : { create: { _index: index, _id } },
        record as CampaignSource,
      );
    });
    const answer = await runRequest('store', 'campaigns', () => client.bulk({ operations }));
    const next = new Map<string, ParsedCampaignReport[]>();
    const refused: string[] = [];
    answer.items.forEach((item, i) => {
      const result = item.index ?? item.create;
      const [campaign, list] = entries[i] as [string, ParsedCampaignReport[]];
      if (result?.error === undefined) return;
      if (result.status === 409) next.set(campaign, list);
      else refused.push(`HTTP ${result.status}: ${reasonOf(result.error)}`);
    });
    if (refused.length > 0) {
      throw new StorageError(
        'elasticsearch',
        'store',
        `Elasticsearch refused ${refused.length} campaign update(s): ${refused.slice(0, 3).join('; ')}`,
        { target: 'campaigns', isRetryable: false },
      );
    }
    remaining = next;
  }
  if (remaining.size > 0) {
    throw new StorageError(
      'elasticsearch',
      'store',
      `${remaining.size} campaign update(s) kept racing with other writers after ${MAX_ROUNDS} rounds`,
      { target: 'campaigns', isRetryable: true },
    );
  }
}

/** The campaign kept under `campaign`, read in real time, unless there is none or it expired by `now`. */
export async function readCampaign(
  client: Client,
  index: string,
  campaign: string,
  now: number,
): Promise<StoredCampaign | undefined> {
  const answer = await runRequest('query', 'campaigns', () =>
    client.get<CampaignSource>({ index, id: campaignId(campaign) }, { ignore: [404] }),
  );
  const source = answer.found ? answer._source : undefined;
  if (source === undefined || Date.parse(source.expires_at) <= now) return undefined;
  return toStoredCampaign(source);
}

/** A campaign document as the contract's record. */
export function toStoredCampaign(source: CampaignSource): StoredCampaign {
  return {
    id: source.campaign,
    campaign: source.campaign,
    status: source.status,
    sharedBy: source.shared_by,
    indicators: source.indicators,
    indicatorCount: source.indicator_count,
    firstSeen: new Date(source.first_seen),
    lastSeen: new Date(source.last_seen),
    sources: source.sources,
    expiresAt: new Date(source.expires_at),
  };
}
