import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { silentLogger, ThreatClient, type ThreatConfig } from '@threatlib/core';
import { createClientMetrics } from '@threatlib/core/metrics';
import { afterEach, expect, it } from 'vitest';
import { Receiver } from '../outgoing/receiver.test-suite.js';
import type { WebhooksIntegration } from './webhooks-integration.js';

/*
 * Issue 15: deliveries are visible in metrics. The webhooks integration's counters come out with the client's own
 * metrics, with nothing to register: threatlib_webhook_deliveries_total{endpoint,status}, the pending gauge, and the
 * incoming requests by outcome.
 */

const SECRET = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw';
const cleanups: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

it("exports the webhooks' deliveries by endpoint and outcome, those pending, and refused requests with the client's metrics", async () => {
  const receiver = await new Receiver().listen();
  cleanups.push(() => receiver.close());
  const down = await new Receiver().listen();
  const downUrl = down.url();
  await down.close();
  const directory = await mkdtemp(join(tmpdir(), 'threatlib-webhook-metrics-'));
  cleanups.push(() => rm(directory, { recursive: true, force: true }));
  const client = new ThreatClient(
    {
      sources: ['feed_urls'],
      security: { enforceHttps: false },
      integrations: {
        webhooks: {
          incoming: { server: { port: 0 }, authentication: { type: 'hmac', secret: SECRET } },
          outgoing: [
            { name: 'soc', url: receiver.url(), events: ['high-confidence-threat'] },
            { name: 'down', url: downUrl, events: ['high-confidence-threat'] },
          ],
          delivery: { allowPrivateNetworks: ['127.0.0.1'], retrySchedule: [3_600_000], outbox: { directory } },
        },
      },
    } as ThreatConfig,
    {
      env: false,
      logger: silentLogger,
      loadIntegrationPackage: (name) => (name === '@threatlib/webhooks' ? import('../index.js') : import(name)),
    },
  );
  cleanups.push(() => client.stop());
  await client.start();
  const { manager } = client.integration('webhooks') as WebhooksIntegration;
  await manager.trigger('high-confidence-threat', { indicator: 'evil.example', confidence: 90, sources: [] });
  const unsigned = await fetch(`${manager.address}/webhooks`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: '{"type":"threat-update","data":{"indicator":"evil.example"}}',
  });
  expect(unsigned.status).toBe(401);

  const text = await createClientMetrics(client).metrics();
  expect(text).toContain('threatlib_webhook_deliveries_total{endpoint="soc",status="delivered"} 1');
  expect(text).toContain('threatlib_webhook_deliveries_total{endpoint="down",status="delivered"} 0');
  expect(text).toContain('threatlib_webhook_deliveries_total{endpoint="down",status="failed"} 0');
  expect(text).toContain('threatlib_webhook_deliveries_pending{endpoint="down"} 1');
  expect(text).toContain('threatlib_webhook_deliveries_pending{endpoint="soc"} 0');
  expect(text).toContain('threatlib_webhook_requests_total{outcome="unauthorized"} 1');
  expect(text).toContain('threatlib_webhook_requests_total{outcome="handled"} 0');
  expect(receiver.requests).toHaveLength(1);
});
