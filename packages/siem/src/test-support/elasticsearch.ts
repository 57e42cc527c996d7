import { describeWithServices, probeService } from '@threatlib/core/testing';

/** The Elasticsearch that `./dev services up elasticsearch` starts (e2e/services.d/elasticsearch.sh). */
export const E2E_ELASTICSEARCH = {
  host: '127.0.0.1',
  port: 19200,
  username: 'threatlib',
  password: 'threatlib-e2e-password',
} as const;

const probedElasticsearch = await probeService({
  name: 'elasticsearch',
  host: E2E_ELASTICSEARCH.host,
  port: E2E_ELASTICSEARCH.port,
});

/**
 * `describe` for tests that need the real Elasticsearch: skipped with the reason when it does not answer and
 * `THREATLIB_E2E` is unset; a failing test when it is set.
 */
export function describeWithElasticsearch(title: string, body: () => void): void {
  describeWithServices([probedElasticsearch], title, body);
}

let names = 0;

/** An index name no other test, run or process uses (the services script lets tests delete threatlib-test-*). */
export function uniqueIndex(label: string): string {
  names += 1;
  return `threatlib-test-${label}-${process.pid}-${Date.now().toString(36)}-${names}`;
}

/** One REST call to the real Elasticsearch as the test user, for setting up and looking inside. */
export async function elasticsearch(
  method: string,
  path: string,
  body?: unknown,
): Promise<{ status: number; json: Record<string, unknown> }> {
  const response = await fetch(`http://${E2E_ELASTICSEARCH.host}:${E2E_ELASTICSEARCH.port}${path}`, {
    method,
    headers: {
      authorization: `Basic ${Buffer.from(`${E2E_ELASTICSEARCH.username}:${E2E_ELASTICSEARCH.password}`).toString('base64')}`,
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await response.text();
  return { status: response.status, json: text ? (JSON.parse(text) as Record<string, unknown>) : {} };
}

/** Every document of `index` (after a refresh), by its `_id`. */
export async function documents(index: string): Promise<Map<string, Record<string, unknown>>> {
  await elasticsearch('POST', `/${index}/_refresh?ignore_unavailable=true`);
  const { json } = await elasticsearch('POST', `/${index}/_search?ignore_unavailable=true`, {
    size: 10_000,
    query: { match_all: {} },
  });
  const hits = ((json.hits as { hits?: { _id: string; _source: Record<string, unknown> }[] } | undefined)?.hits ??
    []) as { _id: string; _source: Record<string, unknown> }[];
  return new Map(hits.map((hit) => [hit._id, hit._source]));
}

/** Deletes `index` and its template (the connector names the template after the index). */
export async function dropIndex(index: string): Promise<void> {
  await elasticsearch('DELETE', `/${index}?ignore_unavailable=true`);
  await elasticsearch('DELETE', `/_index_template/${index}`);
}
