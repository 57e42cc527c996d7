import { describeWithServices, probeService } from '@threatlib/core/testing';

/** Where the Elasticsearch that `bash e2e/services up elasticsearch` starts listens (e2e/services.d/elasticsearch.sh). */
export const E2E_ELASTICSEARCH_ADDRESS = { host: '127.0.0.1', port: 19200 } as const;

/** Its test user (e2e/services.d/elasticsearch.sh makes it). */
const USER = { username: 'threatlib', password: 'threatlib-e2e-password' } as const;

/**
 * The e2e Elasticsearch as the client's connection options (`node`, `auth`): what `@elastic/elasticsearch`, the search
 * index storage and the SIEM connector's `elastic` platform take.
 */
export const E2E_ELASTICSEARCH = {
  node: `http://${E2E_ELASTICSEARCH_ADDRESS.host}:${E2E_ELASTICSEARCH_ADDRESS.port}`,
  auth: USER,
} as const;

const probedElasticsearch = await probeService({ name: 'elasticsearch', ...E2E_ELASTICSEARCH_ADDRESS });

/**
 * `describe` for tests that need the real Elasticsearch. When it is unreachable they are skipped, with the reason as
 * the skipped test's name, if `THREATLIB_E2E` is unset; they fail, loudly, if it is set.
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

/** One REST call to the real Elasticsearch as the test user, for setting up and looking behind what a test wrote. */
export async function elasticsearch(
  method: string,
  path: string,
  body?: unknown,
): Promise<{ status: number; json: Record<string, unknown> }> {
  const response = await fetch(`${E2E_ELASTICSEARCH.node}${path}`, {
    method,
    headers: {
      authorization: `Basic ${Buffer.from(`${USER.username}:${USER.password}`).toString('base64')}`,
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    signal: AbortSignal.timeout(30_000),
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
  const hits = (json.hits as { hits?: { _id: string; _source: Record<string, unknown> }[] } | undefined)?.hits ?? [];
  return new Map(hits.map((hit) => [hit._id, hit._source]));
}

/** Deletes `index` and its template (the SIEM connector names the template after the index). */
export async function dropIndex(index: string): Promise<void> {
  await elasticsearch('DELETE', `/${index}?ignore_unavailable=true`);
  await elasticsearch('DELETE', `/_index_template/${index}`);
}
