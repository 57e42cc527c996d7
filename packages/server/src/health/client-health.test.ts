import { silentLogger, ThreatClient, type ThreatConfig } from '@threatlib/core';
import type { Integration } from '@threatlib/core/integration';
import { type FeedEmulator, INVALID_KEY, startFeedEmulator } from '@threatlib/feed-emulator';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { APIServer } from '../api-server.js';
import { exampleBlocklistPath } from '../cli/embedded-config.js';

const TOKEN = 'test-token-health-0123456789';
const OTX_KEY = 'otx-live-key-server-health-4455';
const running: APIServer[] = [];

let emulator: FeedEmulator;
beforeAll(async () => {
  emulator = await startFeedEmulator();
});
afterEach(async () => {
  await Promise.all(running.splice(0).map((s) => s.stop()));
  emulator.reset();
});
afterAll(async () => {
  await emulator.close();
});

function client(extra: Partial<ThreatConfig> = {}) {
  return new ThreatClient(
    {
      sources: ['feed_otx', 'feed_cti'],
      apiKeys: {
        feed_otx: { key: OTX_KEY, endpoint: emulator.endpoints.feed_otx, timeout: 2000 },
        feed_cti: { key: INVALID_KEY, endpoint: emulator.endpoints.feed_cti, timeout: 2000 },
      },
      lists: [{ name: 'example', file: exampleBlocklistPath() }],
      security: { enforceHttps: false },
      performance: { retryAttempts: 0 },
      ...extra,
    } as ThreatConfig,
    { env: false, logger: silentLogger },
  );
}

async function serve(c: ThreatClient) {
  const server = new APIServer({ port: 0, authentication: { type: 'bearer', tokens: [TOKEN] } });
  server.mount('/api/v1', c);
  running.push(server);
  const base = await server.start();
  const scan = (indicator: string) =>
    fetch(`${base}/api/v1/threats/scan`, {
      method: 'POST',
      headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
      body: JSON.stringify({ indicator }),
    });
  return { base, scan };
}

class Unreachable implements Integration {
  health() {
    return { healthy: false, detail: 'broker unreachable' };
  }
  async sendAlert() {
    return undefined;
  }
  async enrichIndicator() {
    return undefined;
  }
}

describe('GET /health runs client.health()', () => {
  it('a refused key is degraded but ready; the cache is probed; nothing secret is shown', async () => {
    const { base, scan } = await serve(client());
    expect((await scan('198.51.100.90')).status).toBe(200);
    const response = await fetch(`${base}/health`);
    expect(response.status).toBe(200);
    const body = await response.json();
    expect(body).toMatchObject({
      status: 'degraded',
      live: true,
      ready: true,
      clients: [
        {
          prefix: '/api/v1',
          state: 'running',
          checked: true,
          health: 'degraded',
          reasons: [expect.stringMatching(/^feed_cti: its API key was refused/)],
          feeds: [
            { feed: 'feed_otx', configured: true, breaker: 'closed', keyRejected: false, status: 'pass' },
            { feed: 'feed_cti', configured: true, breaker: 'closed', keyRejected: true, status: 'fail' },
          ],
          cache: { status: 'pass', enabled: true, kind: 'memory' },
          vault: { status: 'pass', configured: false },
          integrations: [],
        },
      ],
    });
    const text = JSON.stringify(body);
    for (const secret of [OTX_KEY, INVALID_KEY, TOKEN]) expect(text).not.toContain(secret);
  });

  it('an unhealthy integration makes the server not ready (503)', async () => {
    const c = client({ sources: ['feed_otx'] });
    c.registerIntegration('queue', Unreachable);
    const { base } = await serve(c);
    const response = await fetch(`${base}/health`);
    expect(response.status).toBe(503);
    expect(await response.json()).toMatchObject({
      status: 'degraded',
      ready: false,
      clients: [
        { health: 'unhealthy', integrations: [{ name: 'queue', healthy: false, detail: 'broker unreachable' }] },
      ],
    });
  });

  it('with enterprise.monitoring.healthChecks off, nothing is probed: readiness is the lifecycle state', async () => {
    const c = client({ sources: ['feed_otx'], enterprise: { monitoring: { healthChecks: false } } });
    c.registerIntegration('queue', Unreachable);
    const { base } = await serve(c);
    const response = await fetch(`${base}/health`);
    expect(response.status).toBe(200);
    expect(await response.json()).toMatchObject({
      status: 'ok',
      ready: true,
      clients: [{ prefix: '/api/v1', state: 'running', checked: false, feeds: [], integrations: [] }],
    });
  });
});

describe('GET /metrics keeps its series, now from @threatlib/core/metrics', () => {
  it('per-client series carry the mount prefix first, beside the HTTP metrics', async () => {
    const { base, scan } = await serve(client());
    emulator.script('198.51.100.91', { behaviour: 'malicious', feeds: ['feed_otx'] });
    await scan('198.51.100.91');
    const metrics = await (await fetch(`${base}/metrics`)).text();
    expect(metrics).toContain('threatlib_feed_results_total{prefix="/api/v1",feed="feed_otx",status="ok"} 1');
    expect(metrics).toContain('threatlib_feed_results_total{prefix="/api/v1",feed="feed_cti",status="auth_error"} 1');
    expect(metrics).toContain('threatlib_feed_requests_sent_total{prefix="/api/v1",feed="feed_otx"} 1');
    expect(metrics).toContain('threatlib_cache_hits_total{prefix="/api/v1",feed="feed_otx"} 0');
    expect(metrics).toContain('threatlib_feed_breaker_state{prefix="/api/v1",feed="feed_otx"} 0');
    expect(metrics).toContain('threatlib_feed_key_rejected{prefix="/api/v1",feed="feed_cti"} 1');
    expect(metrics).toMatch(
      /threatlib_http_requests_total\{method="POST",route="\/api\/v1\/threats\/scan",status="200"\} 1/,
    );
    expect(metrics).toMatch(/^threatlib_process_nodejs_\w+ /m);
    for (const secret of [OTX_KEY, INVALID_KEY, TOKEN]) expect(metrics).not.toContain(secret);
  });
});
