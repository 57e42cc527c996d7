import type { Client } from '@elastic/elasticsearch';
import { type ConfigurationIssue, parseRecord, ValidationError } from '@threatlib/core';
import { z } from 'zod';
import { ttlSchema } from '../contract/record-ttl.js';
import { resultsSchema } from '../contract/threat-results.js';
import type { StoredThreat } from '../contract/threat-storage.js';
import { StorageError } from '../errors/storage-error.js';
import { runRequest } from './elasticsearch-errors.js';
import { timestampOf } from './search-document.js';

const ThreatRecordSchema = z.looseObject({
  id: z
    .string()
    .regex(/^[A-Za-z0-9._:-]{1,128}$/, { error: 'expected 1 to 128 letters, digits, ".", "_", ":" or "-"' })
    .optional(),
  indicator: z.string().min(1, { error: 'must not be empty' }).max(8192),
  results: resultsSchema,
  scanDate: z.custom<Date | string>((value) => timestampOf(value) !== undefined, {
    error: 'expected an ISO 8601 date-time with an offset or a valid Date',
  }),
  ttl: ttlSchema,
  expiresAt: z.undefined({ error: 'is set by the store, from scanDate and ttl' }).optional(),
});

/** A stored threat record as a document of the threats index. */
interface ThreatRecordSource {
  indicator: string;
  '@timestamp': string;
  expires_at: string;
  ttl: number;
  results: Record<string, unknown>;
  threat_type?: string;
  confidence?: number;
  sources?: string[];
  /** The record's other fields, kept as given. */
  extra?: Record<string, unknown>;
}

/** A validated threat record ready to index: its id (given or undefined), its time and its source. */
export interface PreparedThreatRecord {
  id: string | undefined;
  time: number;
  source: ThreatRecordSource;
}

/**
 * Validates a stored threat record (`{indicator, results, scanDate, ttl}`, optional `id`, other fields kept) and
 * makes its document: `@timestamp` is `scanDate`, `expires_at` is `scanDate` + `ttl`, and the searchable fields of
 * the documented search-index document are taken from `results` where it has them (see {@link searchFieldsOf}), so
 * that `search('threats', {range: {confidence: {gte: 80}}})` finds stored correlations too.
 *
 * @throws {ValidationError} `Invalid <subject>: <field>: <reason>`, naming every field that is wrong.
 */
export function prepareThreatRecord(input: unknown, subject = 'threat record'): PreparedThreatRecord {
  const {
    id,
    indicator,
    results,
    scanDate,
    ttl,
    expiresAt: _,
    ...extra
  } = parseRecord(ThreatRecordSchema, input, subject);
  const time = timestampOf(scanDate) as number;
  checkJson(subject, 'results', results);
  if (Object.keys(extra).length > 0) checkJson(subject, '(other fields)', extra);
  return {
    id,
    time,
    source: {
      indicator,
      '@timestamp': new Date(time).toISOString(),
      expires_at: new Date(time + ttl * 1000).toISOString(),
      ttl,
      results,
      ...searchFieldsOf(results),
      ...(Object.keys(extra).length > 0 ? { extra } : {}),
    },
  };
}

/**
 * The documented search fields a scan or correlation result carries: `confidence` (0..100), `threat_type`
 * (`threat_type`, `threatType` or else the correlation's `verdict`) and `sources` (`sources` when it is a list of
 * names, else the feeds whose answer counted as malicious or suspicious).
 */
export function searchFieldsOf(
  results: Record<string, unknown>,
): Pick<ThreatRecordSource, 'threat_type' | 'confidence' | 'sources'> {
  const out: Pick<ThreatRecordSource, 'threat_type' | 'confidence' | 'sources'> = {};
  const { confidence } = results;
  if (typeof confidence === 'number' && confidence >= 0 && confidence <= 100) out.confidence = confidence;
  const type = [results.threat_type, results.threatType, results.verdict].find(
    (value): value is string => typeof value === 'string' && value.length > 0 && value.length <= 256,
  );
  if (type !== undefined) out.threat_type = type;
  const names = (list: unknown[]) =>
    list.every((item) => typeof item === 'string' && item.length > 0 && item.length <= 256) ? (list as string[]) : [];
  let sources: string[] = [];
  if (Array.isArray(results.sources)) sources = names(results.sources);
  else if (Array.isArray(results.contributions)) {
    sources = names(
      results.contributions
        .filter((c) => {
          const verdict = (c as { verdict?: unknown; counted?: unknown } | null)?.verdict;
          return (
            (verdict === 'malicious' || verdict === 'suspicious') && (c as { counted?: unknown }).counted !== false
          );
        })
        .map((c) => (c as { feed?: unknown }).feed),
    );
  }
  if (sources.length > 0) out.sources = [...new Set(sources)].slice(0, 100);
  return out;
}

/** A threat document as the record `threatsOf` gives back. */
export function toStoredThreat(id: string, source: ThreatRecordSource): StoredThreat {
  return {
    ...(source.extra ?? {}),
    id,
    indicator: source.indicator,
    results: source.results,
    scanDate: new Date(source['@timestamp']),
    ttl: source.ttl,
    expiresAt: new Date(source.expires_at),
  };
}

/** `value` survives JSON (what Elasticsearch stores): no cycles, no BigInt, no functions at the top. */
function checkJson(subject: string, path: string, value: unknown): void {
  try {
    JSON.stringify(value);
  } catch (error) {
    const issue: ConfigurationIssue = { path, message: `cannot be stored as JSON: ${(error as Error).message}` };
    throw new ValidationError(subject, [issue]);
  }
}

/** The error of a `storeThreats` some of whose records were not stored (of `total`), with the first reason. */
export function notStoredError(failed: readonly unknown[], total: number): StorageError {
  const first = failed[0] as StorageError;
  return new StorageError(
    'elasticsearch',
    'store',
    `${failed.length} of ${total} threat record(s) were not stored: ${first.message}`,
    {
      target: 'threats',
      isRetryable: failed.every((error) => StorageError.isInstance(error) && error.isRetryable),
      cause: first,
    },
  );
}

/** The unexpired (by `now`) threat records of an indicator in `index`, newest `scanDate` first, at most `size`. */
export async function queryThreatRecords(
  client: Client,
  index: string,
  indicator: string,
  size: number,
  now: string,
): Promise<StoredThreat[]> {
  const answer = await runRequest('query', 'threats', () =>
    client.search<ThreatRecordSource>({
      index: index,
      query: { bool: { filter: [{ term: { indicator } }, { range: { expires_at: { gt: now } } }] } },
      sort: [{ '@timestamp': { order: 'desc' } }],
      size,
      track_total_hits: false,
      ignore_unavailable: true,
      allow_no_indices: true,
    }),
  );
  return answer.hits.hits.map((hit) => toStoredThreat(hit._id as string, hit._source as ThreatRecordSource));
}
