// The search index's own helpers over the e2e Elasticsearch (its four indices, daily indices, a fault proxy); the
// service itself (its address, user, probe and REST call) is @threatlib/test-utils/elasticsearch's.
import { createServer } from 'node:http';
import type { Client } from '@elastic/elasticsearch';
import { E2E_ELASTICSEARCH, elasticsearch } from '@threatlib/test-utils/elasticsearch';
import type { SearchIndexOptions } from '../search-index/search-index-options.js';

let names = 0;

/**
 * Index names no other test, run or process uses, under `threatlib-test-` (which the services script lets tests
 * delete by pattern): `{threats, campaigns, indicators, alerts}`.
 */
export function uniqueIndices(label: string): Required<NonNullable<SearchIndexOptions['indices']>> {
  names += 1;
  const base = `threatlib-test-${label}-${process.pid}-${Date.now().toString(36)}-${names}`;
  return {
    threats: `${base}-threats`,
    campaigns: `${base}-campaigns`,
    indicators: `${base}-indicators`,
    alerts: `${base}-alerts`,
  };
}

/** How many documents the daily indices of `base` hold now (after a refresh), expired ones included. */
export async function rawCount(base: string): Promise<number> {
  await elasticsearch('POST', `/${base}-*/_refresh?ignore_unavailable=true&allow_no_indices=true`);
  const { json } = await elasticsearch('GET', `/${base}-*/_count?ignore_unavailable=true&allow_no_indices=true`);
  return Number(json.count ?? 0);
}

/** The names of the daily indices of `base` that exist now. */
export async function dailyIndices(base: string): Promise<string[]> {
  const { json } = await elasticsearch('GET', `/_resolve/index/${base}-*`);
  return ((json.indices as Array<{ name: string }> | undefined) ?? []).map((index) => index.name).sort();
}

/** Deletes every index and template a store on `indices` made. */
export async function dropIndices(indices: Record<string, string>): Promise<void> {
  for (const name of Object.values(indices)) {
    await elasticsearch('DELETE', `/${name}-*?ignore_unavailable=true&allow_no_indices=true`);
    await elasticsearch('DELETE', `/${name}?ignore_unavailable=true`);
    await elasticsearch('DELETE', `/_index_template/threatlib-${name}`);
  }
}

/** Counts the requests `client` sends (its `diagnostic` `request` events), from now on. */
export function countRequests(client: Client): { readonly sent: number; readonly paths: readonly string[] } {
  const paths: string[] = [];
  client.diagnostic.on('request', (_error, event) => {
    const params = event?.meta.request.params;
    paths.push(`${params?.method ?? '?'} ${params?.path ?? '?'}`);
  });
  return {
    get sent() {
      return paths.length;
    },
    paths,
  };
}

/** What a {@link FaultProxy} does with one request. */
export type ProxyFault =
  /** Answer this instead of Elasticsearch (which never sees the request). */
  | { answer: { status: number; body: unknown } }
  /** Forward, then change the JSON Elasticsearch answered before passing it on. */
  | { rewrite: (body: Record<string, unknown>) => Record<string, unknown> };

/** A proxy in front of the real Elasticsearch that fails or rewrites chosen requests. */
export interface FaultProxy {
  /** `http://127.0.0.1:<port>` */
  url: string;
  /** `METHOD /path` of every request it received, in order. */
  readonly requests: string[];
  close(): Promise<void>;
}

/**
 * Starts a proxy to the real Elasticsearch; `fault(method, path, n, body)` (n counts requests from 1) picks what
 * happens to each request: forwarded as is when it returns undefined. For failures the real server cannot be made to give on
 * demand (a 503, a bulk item answered 429).
 */
export async function startFaultProxy(
  fault: (method: string, path: string, n: number, body: string) => ProxyFault | undefined,
): Promise<FaultProxy> {
  const requests: string[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', async () => {
      const method = req.method ?? 'GET';
      const path = req.url ?? '/';
      requests.push(`${method} ${path.split('?')[0]}`);
      const chosen = fault(method, path.split('?')[0] as string, requests.length, Buffer.concat(chunks).toString());
      const headers = { 'content-type': 'application/json', 'x-elastic-product': 'Elasticsearch' };
      if (chosen !== undefined && 'answer' in chosen) {
        res.writeHead(chosen.answer.status, headers);
        res.end(JSON.stringify(chosen.answer.body));
        return;
      }
      try {
        const forwarded: Record<string, string> = {};
        for (const name of ['authorization', 'content-type', 'accept']) {
          const value = req.headers[name];
          if (typeof value === 'string') forwarded[name] = value;
        }
        const response = await fetch(`${E2E_ELASTICSEARCH.node}${path}`, {
          method,
          headers: forwarded,
          ...(chunks.length > 0 ? { body: Buffer.concat(chunks) } : {}),
          signal: AbortSignal.timeout(30_000),
        });
        let text = await response.text();
        if (chosen !== undefined && 'rewrite' in chosen) text = JSON.stringify(chosen.rewrite(JSON.parse(text)));
        res.writeHead(response.status, headers);
        res.end(text);
      } catch (error) {
        res.writeHead(502, headers);
        res.end(JSON.stringify({ error: { type: 'proxy', reason: String(error) }, status: 502 }));
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
