// A threat the client concludes becomes an alert, stored and delivered to every integration.
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { AlertWebhookPlugin } from '../../examples/alert-webhook-plugin.js';
import type { Alert } from '../alerts/alert.js';
import { MemoryAlertStore } from '../alerts/memory-alert-store.js';
import { isNormalisedAlert } from '../alerts/normalised-alert.js';
import type { Integration, IntegrationContext } from '../integration/integration.js';
import { createClientMetrics } from '../metrics/client-metrics.js';
import { severityForRiskScore } from '../records/severity.js';
import { settle } from './active-resources.test-suite.js';
import {
  allAlerts,
  client,
  closeServer,
  EVIL,
  flaky,
  receiver,
  recordingLogger,
  stopClientsAndServers,
  WORSE,
} from './alerting-clients.test-suite.js';

afterEach(stopClientsAndServers);

describe('a threat concluded by the client reaches every integration', () => {
  it('stores one alert and delivers it to both integrations, the flaky one after its retries', async () => {
    const Flaky = flaky(2, 3);
    const { received, endpoint } = await receiver();
    const c = client();
    c.registerIntegration('flaky', Flaky);
    c.registerIntegration('webhook', AlertWebhookPlugin, { endpoint, token: 'receiver-token-1' });
    await c.start();

    const correlation = await c.correlate(EVIL);
    expect(correlation.isThreat).toBe(true);
    await c.alerts.settled();

    const alerts = await allAlerts(c);
    expect(alerts).toHaveLength(1);
    const [alert] = alerts as [Alert];
    expect(alert).toMatchObject({
      severity: severityForRiskScore(correlation.riskScore),
      riskScore: correlation.riskScore,
      source: 'threatlib',
      indicators: [{ type: 'domain', value: EVIL, confidence: correlation.confidence, sources: ['list:blocklist'] }],
    });
    expect(alert.deliveries).toEqual([
      {
        integration: 'flaky',
        status: 'delivered',
        attempts: 3,
        lastAttemptAt: expect.any(String),
        result: { ticket: 'T-1' },
      },
      {
        integration: 'webhook',
        status: 'delivered',
        attempts: 1,
        lastAttemptAt: expect.any(String),
        result: { accepted: 1 },
      },
    ]);
    expect(Flaky.calls).toBe(3);
    expect(Flaky.received.map((a) => a.id)).toEqual([alert.id]);
    expect(received).toEqual([
      { url: '/alerts', authorization: 'Bearer receiver-token-1', body: expect.objectContaining({ id: alert.id }) },
    ]);
  });

  it('records an endpoint down for good as failed with its error, and redeliver delivers it once it is back', async () => {
    // A port that refuses connections: a receiver was there and is gone.
    const gone = await receiver();
    const port = (gone.server.address() as AddressInfo).port;
    await closeServer(gone.server);
    const Steady = flaky(0);
    const c = client();
    c.registerIntegration('steady', Steady);
    c.registerIntegration('webhook', AlertWebhookPlugin, {
      endpoint: `http://127.0.0.1:${port}`,
      token: 'receiver-token-2',
      retries: 2,
    });
    await c.start();

    await c.scout(EVIL);
    await c.alerts.settled();
    const [stored] = (await allAlerts(c)) as [Alert];
    const webhook = stored.deliveries.find((d) => d.integration === 'webhook');
    expect(webhook).toMatchObject({ status: 'failed', attempts: 3, lastError: expect.stringMatching(/ECONNREFUSED/) });
    expect(webhook?.lastError).not.toContain('receiver-token-2');
    expect(stored.deliveries.find((d) => d.integration === 'steady')).toMatchObject({ status: 'delivered' });

    const back = await receiver(port);
    const redelivered = await c.alerts.redeliver(stored.id);
    expect(redelivered?.deliveries).toEqual([
      expect.objectContaining({ integration: 'steady', status: 'delivered', attempts: 1 }),
      {
        integration: 'webhook',
        status: 'delivered',
        attempts: 4,
        lastAttemptAt: expect.any(String),
        result: { accepted: 1 },
      },
    ]);
    expect(back.received.map((r) => [r.authorization, r.body.id])).toEqual([['Bearer receiver-token-2', stored.id]]);
    // Delivered ones are not sent again.
    expect(Steady.calls).toBe(1);
    expect(await c.alerts.get(stored.id)).toEqual(redelivered);
  });

  it('counts final outcomes in threatlib_alert_deliveries_total{integration,status}', async () => {
    const c = client();
    c.registerIntegration('flaky', flaky(1, 0));
    await c.start();
    await c.correlate(EVIL);
    await c.correlate(WORSE);
    await c.alerts.settled();
    const metrics = await createClientMetrics(c).metrics();
    expect(metrics).toContain('threatlib_alert_deliveries_total{integration="flaky",status="delivered"} 1');
    expect(metrics).toContain('threatlib_alert_deliveries_total{integration="flaky",status="failed"} 1');
  });

  it('does not make the scan wait for a delivery: the alert is stored pending and completes later', async () => {
    let release: (value: unknown) => void = () => {};
    class Slow implements Integration {
      sendAlert = () => new Promise((resolve) => (release = resolve));
      enrichIndicator = async () => undefined;
    }
    const c = client();
    c.registerIntegration('slow', Slow);
    await c.start();
    const correlation = await c.correlate(EVIL);
    expect(correlation.isThreat).toBe(true);
    await settle();
    const [pending] = (await allAlerts(c)) as [Alert];
    expect(pending.deliveries).toEqual([{ integration: 'slow', status: 'pending', attempts: 0 }]);
    release({ ok: true });
    await c.alerts.settled();
    expect((await c.alerts.get(pending.id))?.deliveries).toEqual([
      expect.objectContaining({ integration: 'slow', status: 'delivered', attempts: 1, result: { ok: true } }),
    ]);
  });

  it('raises alerts from scout, correlate, scoutMany and from what an integration correlates (the queue pipeline)', async () => {
    let context: IntegrationContext | undefined;
    class Pipeline implements Integration {
      constructor(_options: unknown, ctx: IntegrationContext) {
        context = ctx;
      }
      sendAlert = async () => undefined;
      enrichIndicator = async () => undefined;
    }
    const c = client({ alerting: { dedupeWindowMs: 0 } });
    c.registerIntegration('pipeline', Pipeline);
    await c.start();
    await c.scout(EVIL);
    await c.correlate(WORSE);
    for await (const item of c.scoutMany([EVIL, '203.0.113.66', 'clean.threatlib-test.net']))
      expect(item.ok).toBe(true);
    await context?.client.correlate('203.0.113.66', { type: 'ip' });
    await c.alerts.settled();
    const values = (await allAlerts(c)).map((a) => a.indicators[0]?.value).sort();
    expect(values).toEqual(['203.0.113.66', '203.0.113.66', EVIL, EVIL, WORSE]);
  });

  it('a threat an integration concludes while later ones are still starting reaches those too, once they run', async () => {
    // A consumer started first concludes a threat at once (a message already waiting on its queue) while the
    // integration after it is still starting: the alert waits for the start, then goes to both, and to the store
    // kept after start.
    let release!: () => void;
    const slowStart = new Promise<void>((resolve) => {
      release = resolve;
    });
    // Settled once the consumer's correlate has returned: the consumer starts after the client's lists are loaded,
    // so the promise is made here, not in start().
    let concluded!: (correlation: Promise<unknown>) => void;
    const conclusion = new Promise<unknown>((resolve) => {
      concluded = resolve;
    });
    const received: Record<string, string[]> = { consumer: [], ticketing: [] };
    class Consumer implements Integration {
      readonly #context: IntegrationContext;
      constructor(_options: unknown, context: IntegrationContext) {
        this.#context = context;
      }
      async start() {
        // Consuming begins once start() has returned, as the queue integration's does.
        concluded(new Promise((resolve) => setImmediate(resolve)).then(() => this.#context.client.correlate(EVIL)));
      }
      sendAlert = async (alert: Alert) => {
        received.consumer?.push(alert.id);
      };
      enrichIndicator = async () => undefined;
    }
    class Ticketing implements Integration {
      async start() {
        await slowStart;
      }
      sendAlert = async (alert: Alert) => {
        received.ticketing?.push(alert.id);
      };
      enrichIndicator = async () => undefined;
    }
    const c = client();
    c.registerIntegration('consumer', Consumer);
    c.registerIntegration('ticketing', Ticketing);
    const starting = c.start();
    await conclusion;
    // The threat is concluded, and its alert held until every integration has started: not stored, not delivered.
    expect(await allAlerts(c)).toEqual([]);
    expect(received).toEqual({ consumer: [], ticketing: [] });
    release();
    await starting;
    await c.alerts.settled();
    const [alert, ...more] = await allAlerts(c);
    expect(more).toEqual([]);
    expect(alert?.deliveries.map((d) => [d.integration, d.status])).toEqual([
      ['consumer', 'delivered'],
      ['ticketing', 'delivered'],
    ]);
    expect(received).toEqual({ consumer: [alert?.id], ticketing: [alert?.id] });
  });

  it('client.alerts.add stores and delivers an alert given by hand, in the documented form', async () => {
    const Steady = flaky(0);
    const c = client();
    c.registerIntegration('steady', Steady);
    await c.start();
    const alert = await c.alerts.add({
      title: 'Malicious domain detected',
      severity: 'HIGH',
      indicators: [{ type: 'ip', value: '198.51.100.9', confidence: 95 }],
    });
    expect(alert.deliveries).toEqual([{ integration: 'steady', status: 'pending', attempts: 0 }]);
    await c.alerts.settled();
    expect(Steady.received).toEqual([expect.objectContaining({ id: alert.id, severity: 'high' })]);
    expect((await c.alerts.get(alert.id))?.deliveries).toEqual([
      expect.objectContaining({ integration: 'steady', status: 'delivered', attempts: 1 }),
    ]);
  });

  it('hands integrations the record core validated (frozen, branded), so they need not validate it again', async () => {
    const Steady = flaky(0);
    const Other = flaky(0);
    const c = client();
    c.registerIntegration('steady', Steady);
    c.registerIntegration('other', Other);
    await c.start();
    const alert = await c.alerts.add({
      title: 'Malicious domain detected',
      severity: 'high',
      indicators: [{ type: 'domain', value: 'evil.threatlib-test.net', confidence: 95 }],
    });
    await c.alerts.settled();
    expect(Steady.received).toEqual([alert]);
    expect(Other.received).toEqual([alert]);
    const received = Steady.received[0] as Alert;
    expect(isNormalisedAlert(received)).toBe(true);
    // No integration can change what another gets, or what the store holds.
    expect(() => (received.indicators as unknown[]).push({ type: 'domain', value: 'x' })).toThrow(TypeError);
  });

  it('an alert read back from the store (a resumed delivery) is handed over as a copy, not branded', async () => {
    const store = new MemoryAlertStore();
    const left = await store.add({
      title: 'left in flight',
      severity: 'high',
      deliveries: [{ integration: 'steady', status: 'pending', attempts: 1 }],
    });
    const Steady = flaky(0);
    const c = client({}, { alertStore: store });
    c.registerIntegration('steady', Steady);
    await c.start();
    await c.alerts.settled();
    expect(Steady.received).toEqual([expect.objectContaining({ id: left.id, title: 'left in flight' })]);
    expect(isNormalisedAlert(Steady.received[0])).toBe(false);
  });

  it('never puts a secret in lastError or the log: credentials, tokens and the integration options', async () => {
    class Leaky implements Integration {
      sendAlert = async () => {
        throw new Error(
          'POST https://soc:hunter2hunter2@siem.example/api?token=abc123def failed; Authorization: Bearer eyJhbGciOi.x.y; key siem-secret-9876',
        );
      };
      enrichIndicator = async () => undefined;
    }
    const { logger, lines } = recordingLogger();
    const c = client({}, { logger });
    c.registerIntegration('leaky', Leaky, { retries: 0, credentials: { token: 'siem-secret-9876' } });
    await c.start();
    await c.correlate(EVIL);
    await c.alerts.settled();
    const [alert] = (await allAlerts(c)) as [Alert];
    const lastError = alert.deliveries[0]?.lastError ?? '';
    expect(lastError).toMatch(/^POST https:\/\/soc:\[redacted\]@siem\.example/);
    const everything = `${lastError} ${JSON.stringify(lines)}`;
    for (const secret of ['hunter2hunter2', 'abc123def', 'eyJhbGciOi', 'siem-secret-9876']) {
      expect(everything).not.toContain(secret);
    }
    // Never dropped without a trace: the failure is logged, naming the alert and the way to try again.
    expect(lines).toContainEqual(
      expect.objectContaining({
        level: 'warn',
        obj: expect.objectContaining({ integration: 'leaky', alertId: alert.id }),
        msg: expect.stringContaining(`client.alerts.redeliver("${alert.id}")`),
      }),
    );
  });
});
