// The Ariel search endpoints: create a search (the AQL parsed and run at once over the events received), poll its
// status (EXECUTE for the scripted number of polls, or COMPLETED at once with `Prefer: wait=N`), read its results.
import type { EmulatorRequest, EmulatorResponse } from '../vendor.js';
import { notFound, qradarError } from './qradar-api.js';
import { AqlError, parseAql, runAql } from './qradar-aql.js';
import type { QradarState } from './qradar-state.js';

/** `/api/ariel/searches/...`: `segments` are the path segments after `searches`. */
export function handleAriel(state: QradarState, request: EmulatorRequest, segments: string[]): EmulatorResponse {
  if (segments.length === 0) {
    if (request.method !== 'POST') return qradarError(405, 0, 'Method not allowed');
    const query = request.query.get('query_expression');
    if (!query) {
      return qradarError(
        422,
        1005,
        'Missing required parameter "query_expression" from query parameters',
        'A request parameter is not valid',
      );
    }
    const knownProperties = new Set(state.customProperties);
    for (const event of state.events) for (const key of Object.keys(event.properties)) knownProperties.add(key);
    let row: Record<string, number | null>;
    try {
      row = runAql(parseAql(query, Date.now(), knownProperties), state.events);
    } catch (error) {
      if (!(error instanceof AqlError)) throw error;
      return qradarError(422, 2000, error.message, 'The query_expression contains invalid AQL syntax.');
    }
    const search_id = `emulator-${state.nextId()}`;
    const search = { search_id, query_expression: query, row, polls: state.arielPolls() };
    state.searches.push(search);
    return { status: 201, body: searchStatus(search, 'WAIT') };
  }
  const search = state.searches.find((s) => s.search_id === segments[0]);
  if (!search) return qradarError(404, 1002, `Search ${segments[0]} does not exist`, 'The search does not exist.');
  if (segments.length === 1) {
    if (request.method !== 'GET') return qradarError(405, 0, 'Method not allowed');
    const prefer = !state.honourPreferWait ? null : /wait=(\d+)/.exec(String(request.headers.prefer ?? ''));
    if (search.polls > 0 && prefer === null) {
      search.polls -= 1;
      return { status: 200, body: searchStatus(search, 'EXECUTE') };
    }
    search.polls = 0;
    return { status: 200, body: searchStatus(search, 'COMPLETED') };
  }
  if (segments.length === 2 && segments[1] === 'results') {
    if (request.method !== 'GET') return qradarError(405, 0, 'Method not allowed');
    if (search.polls > 0) {
      return qradarError(
        404,
        1003,
        `Search ${search.search_id} is still in progress`,
        'Search results not found. The search is still in progress.',
      );
    }
    return { status: 200, body: { events: [search.row] } };
  }
  return notFound();
}

function searchStatus(search: { search_id: string; query_expression: string }, status: string) {
  return {
    cursor_id: search.search_id,
    search_id: search.search_id,
    status,
    progress: status === 'COMPLETED' ? 100 : status === 'EXECUTE' ? 50 : 0,
    query_string: search.query_expression,
    record_count: status === 'COMPLETED' ? 1 : 0,
    error_messages: [],
    save_results: false,
    desired_retention_time_msec: 86_400_000,
  };
}
