// What QRadar has seen of an indicator, by an Ariel search: create it (POST /ariel/searches?query_expression=AQL),
// poll its status (GET /ariel/searches/{search_id}, with `Prefer: wait=N` so that QRadar holds the answer until the
// search completes or N seconds pass, answering 206 then), and read its results (GET .../results).
// - https://ibmsecuritydocs.github.io/qradar_api_20.0/20.0--ariel-searches-POST.html
// - https://ibmsecuritydocs.github.io/qradar_api_20.0/20.0--ariel-searches-search_id-GET.html
// - https://ibmsecuritydocs.github.io/qradar_api_20.0/20.0--ariel-searches-search_id-results-GET.html
// - AQL: devicetime (the time the event says, LEEF devTime), magnitude, UTF8(payload), ILIKE with % and _ wildcards,
//   LAST n DAYS: https://www.ibm.com/docs/en/qsip/7.5?topic=language-event-flow-simarc-fields-aql-queries
import type { IndicatorRecord } from '@threatlib/core';
import type { Clock } from '@threatlib/core/integration';
import type { PlatformCall } from '../platform.js';
import { parseJson, type QradarApi } from './qradar-api.js';
import type { QradarOptions } from './qradar-options.js';

/** How long one status poll asks QRadar to wait for completion, in seconds. */
const PREFER_WAIT_SECONDS = 5;

/** A search's status as QRadar reports it. */
interface SearchStatus {
  search_id?: string;
  status?: 'WAIT' | 'EXECUTE' | 'SORTING' | 'COMPLETED' | 'CANCELED' | 'ERROR';
  error_messages?: { message?: string; code?: string }[];
}

/**
 * A LIKE pattern finding `value` anywhere in a payload: every character that is not plainly safe inside an AQL
 * string literal (a quote, a backslash, the wildcards themselves, control and non-ASCII characters) becomes `_`,
 * which matches any one character, so the pattern needs no escaping and still finds the value.
 */
export function containsPattern(value: string): string {
  return `%${value.replace(/[^A-Za-z0-9.:/@?&=+,;~!*()[\]#$-]/g, '_')}%`;
}

/** The AQL that counts and dates the events mentioning `indicator` in the last `enrichment.days` days. */
export function enrichmentQuery(indicator: IndicatorRecord, options: QradarOptions['enrichment']): string {
  const payload = `UTF8(payload) ILIKE '${containsPattern(indicator.value)}'`;
  const where =
    indicator.type === 'ipv4' || indicator.type === 'ipv6'
      ? `sourceip = '${indicator.value}' OR destinationip = '${indicator.value}' OR ${payload}`
      : payload;
  const risk = options.riskScoreProperty === false ? '' : `, MAX("${options.riskScoreProperty}") AS risk_score`;
  return (
    'SELECT MIN(devicetime) AS first_seen, MAX(devicetime) AS last_seen, COUNT(*) AS event_count, ' +
    `MAX(magnitude) AS max_magnitude${risk} FROM events WHERE ${where} LAST ${options.days} DAYS`
  );
}

/** Runs `query` in Ariel and resolves with its result rows. */
export async function runArielSearch(
  api: QradarApi,
  call: PlatformCall,
  query: string,
  clock: Clock,
  pollInterval: number,
): Promise<Record<string, unknown>[]> {
  const created = await api.json<SearchStatus>(
    call,
    { method: 'POST', path: '/ariel/searches', query: { query_expression: query } },
    'creating an Ariel search',
    [201],
  );
  const id = created.search_id;
  if (typeof id !== 'string' || id === '') {
    throw call.errors.request('creating an Ariel search: QRadar answered without a search_id', { isRetryable: false });
  }
  let status = created;
  while (status.status !== 'COMPLETED') {
    if (status.status === 'ERROR' || status.status === 'CANCELED') {
      const reasons = (status.error_messages ?? []).map((m) => m.message).filter(Boolean);
      throw call.errors.request(
        `Ariel search ${id} ended ${status.status}${reasons.length > 0 ? `: ${reasons.join('; ')}` : ''}`,
        { isRetryable: status.status === 'CANCELED' },
      );
    }
    const response = await api.send(call, {
      method: 'GET',
      path: `/ariel/searches/${encodeURIComponent(id)}`,
      headers: { Prefer: `wait=${PREFER_WAIT_SECONDS}` },
    });
    if (response.statusCode !== 200 && response.statusCode !== 206) {
      throw api.failure(call, response, `polling Ariel search ${id}`);
    }
    status = parseJson<SearchStatus>(call, response, `polling Ariel search ${id}`);
    // A 206 means QRadar already waited; a 200 that is not done means it ignored Prefer: wait, so pause here.
    if (response.statusCode === 200 && status.status !== 'COMPLETED') await pause(clock, pollInterval, call.signal);
  }
  const results = await api.json<{ events?: Record<string, unknown>[] }>(
    call,
    { method: 'GET', path: `/ariel/searches/${encodeURIComponent(id)}/results` },
    `reading the results of Ariel search ${id}`,
  );
  return Array.isArray(results.events) ? results.events : [];
}

/** Waits `ms` on `clock`, or rejects with the signal's reason when it aborts first. */
function pause(clock: Clock, ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) {
      reject(signal.reason);
      return;
    }
    const onAbort = () => {
      clock.clearTimeout(timer);
      reject(signal.reason);
    };
    const timer = clock.setTimeout(() => {
      signal.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal.addEventListener('abort', onAbort, { once: true });
  });
}
