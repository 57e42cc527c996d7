import type { Alert } from '@threatlib/core';
import type { Integration } from '@threatlib/core/integration';
import { describe, expect, it } from 'vitest';
import { json, LISTED, post, serveForTest, testClient } from './test-support/serve.js';

/*
 * The REST routes take the client's alert path: POST /alerts stores and delivers, a scan that concludes a threat
 * raises an alert delivered the same way, and GET /alerts/{id} shows each integration's delivery.
 */

/** An integration that refuses its first `failures` deliveries, then takes them. */
function flaky(failures: number) {
  return class Flaky implements Integration {
    static received: Alert[] = [];
    static calls = 0;
    readonly retries = 3;
    async sendAlert(alert: Alert) {
      Flaky.calls += 1;
      if (Flaky.calls <= failures) throw new Error(`refused delivery ${Flaky.calls}`);
      Flaky.received.push(alert);
      return { ticket: Flaky.received.length };
    }
    async enrichIndicator() {
      return undefined;
    }
  };
}

/** A test client whose backoff between delivery attempts is a few ms. */
function clientWith(integrations: Record<string, ReturnType<typeof flaky>>) {
  const client = testClient({ performance: { retryDelay: 2 } });
  for (const [name, integration] of Object.entries(integrations)) client.registerIntegration(name, integration);
  return client;
}

const documentedAlert = {
  title: 'Malicious domain detected',
  severity: 'high',
  description: 'Domain flagged by threat intelligence',
  indicators: [{ type: 'domain', value: 'malicious-site.com', confidence: 95 }],
  timestamp: '2026-03-01T11:59:00.000Z',
};

describe('alert delivery over the REST API', () => {
  it('POST /alerts stores and delivers to every integration; GET /alerts/{id} shows the deliveries', async () => {
    const Flaky = flaky(2);
    const Steady = flaky(0);
    const { call, client } = await serveForTest({}, clientWith({ flaky: Flaky, steady: Steady }));
    const created = await call('/api/v1/alerts', post(documentedAlert));
    expect(created.status).toBe(201);
    const alert = await json(created);
    expect(alert.deliveries).toEqual([
      { integration: 'flaky', status: 'pending', attempts: 0 },
      { integration: 'steady', status: 'pending', attempts: 0 },
    ]);

    await client.alerts.settled();
    const shown = await call(`/api/v1/alerts/${encodeURIComponent(alert.id)}`);
    expect(shown.status).toBe(200);
    expect(await json(shown)).toEqual({
      ...alert,
      deliveries: [
        {
          integration: 'flaky',
          status: 'delivered',
          attempts: 3,
          lastAttemptAt: expect.any(String),
          result: { ticket: 1 },
        },
        {
          integration: 'steady',
          status: 'delivered',
          attempts: 1,
          lastAttemptAt: expect.any(String),
          result: { ticket: 1 },
        },
      ],
    });
    expect(Flaky.received.map((a) => a.id)).toEqual([alert.id]);
    expect(Steady.received.map((a) => a.id)).toEqual([alert.id]);
  });

  it('a scan or batch that concludes a threat raises one alert per indicator, delivered to the integrations', async () => {
    const Steady = flaky(0);
    const { call, client } = await serveForTest({}, clientWith({ steady: Steady }));
    const scanned = await json(call('/api/v1/threats/scan', post({ indicator: LISTED, type: 'ip' })));
    expect(scanned.isThreat).toBe(true);
    // The same indicator again within the dedupe window (an hour by default) raises no second alert.
    const batch = await call('/api/v1/threats/batch', post({ indicators: [LISTED, 'example.org'] }));
    expect(batch.status).toBe(200);
    await client.alerts.settled();

    const listed = (await json(call('/api/v1/alerts'))).items;
    expect(listed).toHaveLength(1);
    expect(listed[0]).toMatchObject({
      source: 'threatlib',
      riskScore: scanned.riskScore,
      indicators: [{ type: 'ipv4', value: LISTED }],
      deliveries: [{ integration: 'steady', status: 'delivered', attempts: 1 }],
    });
    expect(Steady.received.map((a) => a.id)).toEqual([listed[0].id]);
  });

  it('counts deliveries in threatlib_alert_deliveries_total on /metrics', async () => {
    const { call, client } = await serveForTest({}, clientWith({ steady: flaky(0) }));
    await call('/api/v1/alerts', post(documentedAlert));
    await client.alerts.settled();
    const metrics = await (await call('/metrics')).text();
    expect(metrics).toContain(
      'threatlib_alert_deliveries_total{prefix="/api/v1",integration="steady",status="delivered"} 1',
    );
  });

  it('GET /alerts/{id} answers 404 with a problem for an id it does not hold, 400 for one longer than ids are', async () => {
    const { call } = await serveForTest();
    const missing = await call('/api/v1/alerts/no-such-alert');
    expect(missing.status).toBe(404);
    expect(missing.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    expect(await json(missing)).toMatchObject({ status: 404, title: 'Alert not found' });
    // Ids of up to 200 characters reach the route; a longer one is refused by it.
    const posted = await json(call('/api/v1/alerts', post({ ...documentedAlert, id: 'é'.repeat(200) })));
    expect((await json(call(`/api/v1/alerts/${encodeURIComponent(posted.id)}`))).id).toBe(posted.id);
    const long = await call(`/api/v1/alerts/${'a'.repeat(201)}`);
    expect(long.status).toBe(400);
    expect(await json(long)).toMatchObject({ errors: [{ path: 'id', message: expect.stringMatching(/200/) }] });
  });
  it('a scan asked with explain: true says why from its own lookup, so showing why raises no second alert', async () => {
    const Down = flaky(Number.MAX_SAFE_INTEGER); // never takes an alert: its delivery fails
    const { call, client } = await serveForTest({}, clientWith({ down: Down }));
    const alertsOf = async (value: string) =>
      (await json(call('/api/v1/alerts'))).items.filter((a: Alert) => a.indicators.some((i) => i.value === value));

    const batch = await json(call('/api/v1/threats/batch', post({ indicators: [LISTED], explain: true })));
    const result = batch.results[0].result;
    expect(result.isThreat).toBe(true);
    expect(result.explanation).toMatchObject({
      strategy: 'aggressive',
      sourcesQueried: expect.any(Number),
      thresholds: { consensus: expect.any(Number) },
      failures: [],
    });
    expect(result.explanation.contributions).toContainEqual(
      expect.objectContaining({ feed: 'list:example', counted: true, verdict: 'malicious' }),
    );
    // The single scan takes it too; without it, a verdict is as before.
    const scan = await json(call('/api/v1/threats/scan', post({ indicator: LISTED, explain: true })));
    expect(scan.explanation.contributions.length).toBeGreaterThan(0);
    expect(
      (await json(call('/api/v1/threats/batch', post({ indicators: [LISTED] })))).results[0].result,
    ).not.toHaveProperty('explanation');

    // The delivery failed, so the indicator's next conclusion raises its alert again (core retries that way): a page
    // showing why must read `explanation`, never conclude again with POST /correlate.
    await client.alerts.settled();
    const raised = (await alertsOf(LISTED)).length;
    await json(call('/api/v1/correlate', post({ indicator: LISTED })));
    await client.alerts.settled();
    expect((await alertsOf(LISTED)).length).toBe(raised + 1);
    // What `explain` answers is refused when it is not a flag.
    const wrong = await call('/api/v1/threats/batch', post({ indicators: [LISTED], explain: 'yes' }));
    expect(wrong.status).toBe(400);
    expect(await wrong.text()).toContain('explain');
  });
});
