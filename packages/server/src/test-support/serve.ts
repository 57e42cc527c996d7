import { silentLogger, ThreatClient, type ThreatConfig } from '@threatlib/core';
import type { CacheStore } from '@threatlib/core/cache';
import type { AlertStore } from '@threatlib/core/integration';
import { afterEach } from 'vitest';
import { APIServer, type APIServerOptions } from '../api-server.js';
import { exampleBlocklistPath } from '../cli/embedded-config.js';

/** The bearer token the servers started here accept. */
export const TEST_TOKEN = 'test-token-support-0123456789';
/** An IP on the shipped example blocklist. */
export const LISTED = '45.148.10.240';

const running: APIServer[] = [];
afterEach(async () => {
  await Promise.all(running.splice(0).map((s) => s.stop()));
});

/** A client on the example blocklist only: no feed, no network. */
export function testClient(
  extra: Partial<ThreatConfig> = {},
  options: { cache?: CacheStore; alertStore?: AlertStore } = {},
): ThreatClient {
  return new ThreatClient(
    {
      sources: [],
      strategy: 'aggressive',
      lists: [{ name: 'example', file: exampleBlocklistPath() }],
      security: { enforceHttps: false },
      ...extra,
    } as ThreatConfig,
    { env: false, logger: silentLogger, ...options },
  );
}

/**
 * Starts a server on a free loopback port with bearer authentication and `client` mounted at `/api/v1`; it is
 * stopped after the test. `call` sends the token (unless `token: null`) and a JSON content type with a body.
 */
export async function serveForTest(options: APIServerOptions = {}, client: ThreatClient = testClient()) {
  const server = new APIServer({ port: 0, authentication: { type: 'bearer', tokens: [TEST_TOKEN] }, ...options });
  server.mount('/api/v1', client);
  running.push(server);
  const base = await server.start();
  const call = (path: string, init: RequestInit & { token?: string | null } = {}) => {
    const { token = TEST_TOKEN, ...rest } = init;
    const headers = new Headers(rest.headers);
    if (token !== null) headers.set('authorization', `Bearer ${token}`);
    if (rest.body !== undefined && !headers.has('content-type')) headers.set('content-type', 'application/json');
    return fetch(`${base}${path}`, { ...rest, headers });
  };
  return { server, base, call, client };
}

/** A POST with a JSON body (a string is sent as it is). */
export const post = (body: unknown): RequestInit => ({
  method: 'POST',
  body: typeof body === 'string' ? body : JSON.stringify(body),
});

// biome-ignore lint/suspicious/noExplicitAny: response bodies are whatever the assertions check.
export type Json = any;

/** A response's body as JSON, typed for assertions. */
export const json = async (response: Response | Promise<Response>): Promise<Json> => (await response).json();
