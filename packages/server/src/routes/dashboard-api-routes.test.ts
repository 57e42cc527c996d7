// The routes the dashboard needs besides scans and alerts: POST /alerts/{id}/redeliver, GET /campaigns and
// POST /stix/bundle.
import type { Alert, CampaignDetectedEvent } from '@threatlib/core';
import type { Integration } from '@threatlib/core/integration';
import { describe, expect, it } from 'vitest';
import { json, LISTED, post, serveForTest, testClient } from '../test-support/serve.js';

/** An integration that refuses its first `failures` deliveries, then takes them. */
function flaky(failures: number) {
  return class Flaky implements Integration {
    static calls = 0;
    readonly retries = 1;
    async sendAlert(_alert: Alert) {
      Flaky.calls += 1;
      if (Flaky.calls <= failures) throw new Error(`refused delivery ${Flaky.calls}`);
      return { ticket: Flaky.calls };
    }
    async enrichIndicator() {
      return undefined;
    }
  };
}

const alertBody = {
  title: 'Malicious domain detected',
  severity: 'high',
  indicators: [{ type: 'domain', value: 'malicious-site.com', confidence: 95 }],
};

function campaign(id: string, indicators: string[]): CampaignDetectedEvent {
  return {
    campaign: id,
    status: indicators.length > 3 ? 'grown' : 'formed',
    sharedBy: { kind: 'malwareFamily', value: 'emotet' } as CampaignDetectedEvent['sharedBy'],
    indicators,
    indicatorCount: indicators.length,
    firstSeen: '2026-11-28T05:00:00.000Z',
    lastSeen: '2026-11-28T05:10:00.000Z',
    sources: ['list:example'],
  };
}

describe('POST /alerts/{id}/redeliver', () => {
  it('delivers again to the integrations that failed, and says which alert it did not find', async () => {
    const client = testClient({ performance: { retryDelay: 2 } });
    const Flaky = flaky(10);
    client.registerIntegration('flaky', Flaky);
    const { call } = await serveForTest({}, client);
    const alert = await json(call('/api/v1/alerts', post(alertBody)));
    await client.alerts.settled();
    const failed = await json(call(`/api/v1/alerts/${alert.id}`));
    expect(failed.deliveries).toMatchObject([{ integration: 'flaky', status: 'failed' }]);

    Flaky.calls = 100; // takes the next delivery
    const redelivered = await call(`/api/v1/alerts/${alert.id}/redeliver`, post({}));
    expect(redelivered.status).toBe(202);
    expect((await json(redelivered)).id).toBe(alert.id);
    await client.alerts.settled();
    const shown = await json(call(`/api/v1/alerts/${alert.id}`));
    expect(shown.deliveries).toMatchObject([{ integration: 'flaky', status: 'delivered', result: { ticket: 101 } }]);

    const missing = await call('/api/v1/alerts/no-such-alert/redeliver', post({}));
    expect(missing.status).toBe(404);
    expect((await json(missing)).title).toBe('Alert not found');
    const withFields = await call(`/api/v1/alerts/${alert.id}/redeliver`, post({ now: true }));
    expect(withFields.status).toBe(400);
    // No body at all needs no Content-Type; `null` is not an empty object; a body that is not JSON is refused.
    expect((await call(`/api/v1/alerts/${alert.id}/redeliver`, { method: 'POST' })).status).toBe(202);
    expect((await call(`/api/v1/alerts/${alert.id}/redeliver`, post('null'))).status).toBe(400);
    const text = await call(`/api/v1/alerts/${alert.id}/redeliver`, {
      method: 'POST',
      body: 'now',
      headers: { 'content-type': 'text/plain' },
    });
    expect(text.status).toBe(415);
    expect((await call(`/api/v1/alerts/${alert.id}/redeliver`, { ...post({}), token: null })).status).toBe(401);
  });
});

describe('GET /campaigns', () => {
  it("lists each campaign's latest report, newest first, and says whether tracking is on", async () => {
    const { call, client } = await serveForTest();
    expect(await json(call('/api/v1/campaigns'))).toEqual({ enabled: true, campaigns: [] });
    client.events.emit('campaignDetected', campaign('cmp_a', ['a.example', 'b.example', 'c.example']));
    client.events.emit('campaignDetected', campaign('cmp_b', ['d.example', 'e.example', 'f.example']));
    client.events.emit('campaignDetected', campaign('cmp_a', ['a.example', 'b.example', 'c.example', 'g.example']));
    const listed = await json(call('/api/v1/campaigns'));
    expect(listed.campaigns.map((c: CampaignDetectedEvent) => [c.campaign, c.indicatorCount])).toEqual([
      ['cmp_a', 4],
      ['cmp_b', 3],
    ]);
    expect((await call('/api/v1/campaigns', { token: null })).status).toBe(401);
    const off = await serveForTest({}, testClient({ campaigns: { enabled: false } }));
    expect(await json(off.call('/api/v1/campaigns'))).toEqual({ enabled: false, campaigns: [] });
  });
});

describe('POST /stix/bundle', () => {
  it("writes scan results as core's toStixBundle does, and refuses what is not a result", async () => {
    const { call } = await serveForTest({ batchLimit: 3 });
    const scanned = await json(call('/api/v1/threats/scan', post({ indicator: LISTED })));
    const answer = await call('/api/v1/stix/bundle', post({ correlations: [scanned] }));
    expect(answer.status).toBe(200);
    const bundle = await json(answer);
    expect(bundle.type).toBe('bundle');
    const indicator = bundle.objects.find((o: { type: string }) => o.type === 'indicator');
    expect(indicator.pattern).toBe(`[ipv4-addr:value = '${LISTED}']`);
    expect(indicator.indicator_types).toEqual(['malicious-activity']);

    const empty = await call('/api/v1/stix/bundle', post({ correlations: [] }));
    expect(empty.status).toBe(400);
    const tooMany = await call('/api/v1/stix/bundle', post({ correlations: [scanned, scanned, scanned, scanned] }));
    expect(tooMany.status).toBe(413);
    const notAnIndicator = await call(
      '/api/v1/stix/bundle',
      post({ correlations: [{ ...scanned, indicator: '198.51.100.7\n0.0.0.0/0' }] }),
    );
    expect(notAnIndicator.status).toBe(400);
    expect((await call('/api/v1/stix/bundle', { ...post({ correlations: [scanned] }), token: null })).status).toBe(401);
  });
});
