import { createHash } from 'node:crypto';
import type { Client, estypes } from '@elastic/elasticsearch';
import type { IndicatorHistory, IndicatorSighting } from '../contract/threat-storage.js';
import { StorageError } from '../errors/storage-error.js';
import { reasonOf, runRequest } from './elasticsearch-errors.js';

/** One indicator's history as a document of the indicators index. */
export interface IndicatorSource {
  indicator: string;
  type: string;
  first_seen: string;
  last_seen: string;
  times_seen: number;
  last_verdict: string;
  last_confidence: number;
  last_risk_score: number;
}

/** Rounds of read, merge and conditional write before concurrent writers are reported instead of retried. */
const MAX_ROUNDS = 8;

/** The `_id` of an indicator's history: a hash, so any indicator (up to 8 KiB) fits Elasticsearch's 512-byte ids. */
export function historyId(indicator: string): string {
  return createHash('sha256').update(indicator).digest('hex');
}

interface Folded {
  first: IndicatorSighting;
  last: IndicatorSighting;
  count: number;
}

/** Sightings folded per indicator: the batch's first and last sighting and its count, so an indicator is one write. */
function fold(sightings: readonly IndicatorSighting[]): Map<string, Folded> {
  const byIndicator = new Map<string, Folded>();
  for (const sighting of sightings) {
    const entry = byIndicator.get(sighting.indicator);
    if (!entry) {
      byIndicator.set(sighting.indicator, { first: sighting, last: sighting, count: 1 });
      continue;
    }
    entry.count += 1;
    if (sighting.seenAt < entry.first.seenAt) entry.first = sighting;
    if (sighting.seenAt >= entry.last.seenAt) entry.last = sighting;
  }
  return byIndicator;
}

/** What a stored history becomes with a batch's sightings folded in; the order writes arrive in does not matter. */
function merge(stored: IndicatorSource | undefined, folded: Folded): IndicatorSource {
  const { first, last, count } = folded;
  const latest = {
    last_verdict: last.verdict,
    last_confidence: last.confidence,
    last_risk_score: last.riskScore,
  };
  if (stored === undefined) {
    return {
      indicator: last.indicator,
      type: last.type,
      first_seen: first.seenAt.toISOString(),
      last_seen: last.seenAt.toISOString(),
      times_seen: count,
      ...latest,
    };
  }
  const storedLast = Date.parse(stored.last_seen);
  const newer = last.seenAt.getTime() >= storedLast;
  return {
    ...stored,
    first_seen: new Date(Math.min(Date.parse(stored.first_seen), first.seenAt.getTime())).toISOString(),
    last_seen: newer ? last.seenAt.toISOString() : stored.last_seen,
    times_seen: stored.times_seen + count,
    ...(newer ? latest : {}),
  };
}

/**
 * Folds sightings into the histories of the indicators index without scripts (the server may have none): each round
 * reads the histories in real time (`mget`), merges, and writes each back only if nobody wrote it meanwhile
 * (`if_seq_no`/`if_primary_term`, or `create` for a new one); what lost such a race is read and merged again.
 *
 * @throws {StorageError} when a write is refused, or still races after several rounds.
 */
export async function foldSightings(
  client: Client,
  index: string,
  sightings: readonly IndicatorSighting[],
): Promise<void> {
  let remaining = fold(sightings);
  for (let round = 0; round < MAX_ROUNDS && remaining.size > 0; round += 1) {
    const entries = [...remaining.entries()];
    const read = await runRequest('store', 'indicators', () =>
      client.mget<IndicatorSource>({ index, ids: entries.map(([indicator]) => historyId(indicator)) }),
    );
    const operations: Array<estypes.BulkOperationContainer | IndicatorSource> = [];
    entries.forEach(([indicator, folded], i) => {
      const doc = read.docs[i] as estypes.GetGetResult<IndicatorSource> | undefined;
      const found = doc?.found === true && doc._source !== undefined;
      const _id = historyId(indicator);
      operations.push(
        found
          ? { index: { _index: index, _id, if_seq_no: doc._seq_no, if_primary_term: doc._primary_term } }
          : { create: { _index: index, _id } },
        merge(found ? doc._source : undefined, folded),
      );
    });
    const answer = await runRequest('store', 'indicators', () => client.bulk({ operations }));
    const next = new Map<string, Folded>();
    const refused: string[] = [];
    answer.items.forEach((item, i) => {
      const result = item.index ?? item.create;
      const [indicator, folded] = entries[i] as [string, Folded];
      if (result === undefined || result.error === undefined) return;
      if (result.status === 409) next.set(indicator, folded);
      else refused.push(`HTTP ${result.status}: ${reasonOf(result.error)}`);
    });
    if (refused.length > 0) {
      throw new StorageError(
        'elasticsearch',
        'store',
        `Elasticsearch refused ${refused.length} indicator history update(s): ${refused.slice(0, 3).join('; ')}`,
        { target: 'indicators', isRetryable: false },
      );
    }
    remaining = next;
  }
  if (remaining.size > 0) {
    throw new StorageError(
      'elasticsearch',
      'store',
      `${remaining.size} indicator history update(s) kept racing with other writers after ${MAX_ROUNDS} rounds`,
      { target: 'indicators', isRetryable: true },
    );
  }
}

/** The history of an indicator, read in real time, or undefined when it was never seen. */
export async function readHistory(
  client: Client,
  index: string,
  indicator: string,
): Promise<IndicatorHistory | undefined> {
  const answer = await runRequest('query', 'indicators', () =>
    client.get<IndicatorSource>({ index, id: historyId(indicator) }, { ignore: [404] }),
  );
  const source = answer.found ? answer._source : undefined;
  if (source === undefined) return undefined;
  return {
    indicator: source.indicator,
    type: source.type,
    firstSeen: new Date(source.first_seen),
    lastSeen: new Date(source.last_seen),
    timesSeen: source.times_seen,
    lastVerdict: source.last_verdict,
    lastConfidence: source.last_confidence,
    lastRiskScore: source.last_risk_score,
  };
}
