import type { ThreatClient } from '@threatlib/core';
import { afterEach } from 'vitest';
import { APIServer, type APIServerOptions } from '../api-server.js';
import { TAXII_MEDIA_TYPE } from '../taxii/media-types.js';
import type { TaxiiOptions } from '../taxii/taxii-options.js';
import { TEST_TOKEN, testClient } from './serve.js';

const running: APIServer[] = [];
afterEach(async () => {
  await Promise.all(running.splice(0).map((server) => server.stop()));
});

/** The API root of the TAXII servers started here. */
export const ROOT = '/taxii2/threatlib/';

/**
 * Starts a server on a free loopback port with the REST API at `/api/v1` and TAXII at `/taxii2` for one client (the
 * example blocklist, no network), with bearer authentication; stopped after the test. `taxii` sends the token and
 * the TAXII Accept (and Content-Type, with a body) unless told otherwise.
 */
export async function serveTaxii(
  options: TaxiiOptions = {},
  serverOptions: APIServerOptions = {},
  client: ThreatClient = testClient(),
) {
  const server = new APIServer({
    port: 0,
    authentication: { type: 'bearer', tokens: [TEST_TOKEN] },
    rateLimit: { max: 100_000 },
    ...serverOptions,
  });
  server.mount('/api/v1', client);
  server.mountTaxii('/taxii2', client, options);
  running.push(server);
  const base = await server.start();
  const taxii = (path: string, init: RequestInit & { token?: string | null } = {}) => {
    const { token = TEST_TOKEN, ...rest } = init;
    const headers = new Headers(rest.headers);
    if (token !== null) headers.set('authorization', `Bearer ${token}`);
    if (!headers.has('accept')) headers.set('accept', TAXII_MEDIA_TYPE);
    if (rest.body !== undefined && !headers.has('content-type')) headers.set('content-type', TAXII_MEDIA_TYPE);
    return fetch(`${base}${path.startsWith('/') ? path : `${ROOT}${path}`}`, { ...rest, headers });
  };
  const scan = async (indicator: string) => {
    const response = await fetch(`${base}/api/v1/threats/scan`, {
      method: 'POST',
      headers: { authorization: `Bearer ${TEST_TOKEN}`, 'content-type': 'application/json' },
      body: JSON.stringify({ indicator }),
    });
    return (await response.json()) as { isThreat: boolean; results: Array<{ feed: string; status: string }> };
  };
  return { server, base, client, taxii, scan };
}

/** A STIX 2.1 indicator numbered `n`, of `pattern`. */
export function indicator(n: number, pattern: string, extra: Record<string, unknown> = {}) {
  return {
    type: 'indicator',
    spec_version: '2.1',
    id: `indicator--00000000-0000-4000-8000-${String(n).padStart(12, '0')}`,
    created: '2026-01-01T00:00:00.000Z',
    modified: '2026-01-01T00:00:00.000Z',
    name: `indicator ${n}`,
    indicator_types: ['malicious-activity'],
    pattern,
    pattern_type: 'stix',
    pattern_version: '2.1',
    valid_from: '2026-01-01T00:00:00Z',
    ...extra,
  };
}
