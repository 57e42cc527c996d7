import { mkdtempSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { AlertWebhookPlugin } from '../../examples/alert-webhook-plugin.js';
import type { Alert } from '../alerts/alert.js';
import type { AlertPage, AlertStore } from '../alerts/alert-store.js';
import { MemoryAlertStore } from '../alerts/memory-alert-store.js';
import { isNormalisedAlert } from '../alerts/normalised-alert.js';
import type { ThreatConfig } from '../config/schema.js';
import type { Integration, IntegrationContext, SendAlertOptions } from '../integration/integration.js';
import type { Logger } from '../logging/logger.js';
import { silentLogger } from '../logging/logger.js';
import { createClientMetrics } from '../metrics/client-metrics.js';
import { SEVERITIES, severityForRiskScore } from '../records/severity.js';
import { ManualClock } from '../scheduler/clock.js';
import { extraResources as extra, activeResources as resources, settle } from './active-resources.test-suite.js';
import { ThreatClient, type ThreatClientOptions } from './threat-client.js';

const dir = mkdtempSync(join(tmpdir(), 'threatlib-alerting-'));
const listFile = join(dir, 'blocklist.txt');
writeFileSync(listFile, 'evil.threatlib-test.net\nworse.threatlib-test.net\n203.0.113.66\n');
const watchFile = join(dir, 'watchlist.txt');
writeFileSync(watchFile, 'watched.threatlib-test.net\n');
const EVIL = 'evil.threatlib-test.net';
const WATCHED = 'watched.threatlib-test.net';
const WORSE = 'worse.threatlib-test.net';

/** Asks no feed: the local blocklist concludes the threats. Backoff of a few ms, so retries take no real time. */
const offline = {
  sources: [],
  strategy: 'aggressive',
  lists: [{ name: 'blocklist', file: listFile }],
  security: { enforceHttps: false },
  performance: { retryDelay: 2, backoffMultiplier: 2 },
} satisfies ThreatConfig;

const clients: ThreatClient[] = [];
const servers: Server[] = [];
afterEach(async () => {
  await Promise.all(clients.splice(0).map((c) => (c.state === 'idle' ? undefined : c.stop())));
  await Promise.all(servers.splice(0).map(closeServer));
});

function client(config: Partial<ThreatConfig> = {}, options: ThreatClientOptions = {}): ThreatClient {
  const made = new ThreatClient({ ...offline, ...config } as ThreatConfig, {
    env: false,
    logger: silentLogger,
    ...options,
  });
  clients.push(made);
  return made;
}

/** An integration that fails its first `failures` deliveries, then takes them; `retries` is its own. */
function flaky(failures: number, retries?: number) {
  return class Flaky implements Integration {
    static calls = 0;
    static received: Alert[] = [];
    readonly retries = retries;
    async sendAlert(alert: Alert) {
      Flaky.calls += 1;
      if (Flaky.calls <= failures) throw new Error(`flaky refused delivery ${Flaky.calls}`);
      Flaky.received.push(alert);
      return { ticket: `T-${Flaky.received.length}` };
    }
    async enrichIndicator() {
      return undefined;
    }
  };
}

/** The documented plugin's receiver: takes `POST <endpoint>/alerts` with the bearer token, answers JSON. */
async function receiver(port = 0) {
  const received: Array<{ url: string; authorization: string | undefined; body: Alert }> = [];
  const server = createServer(async (req, res) => {
    const body = await readBody(req);
    received.push({ url: req.url ?? '', authorization: req.headers.authorization, body: JSON.parse(body) });
    res.writeHead(201, { 'content-type': 'application/json' }).end(JSON.stringify({ accepted: received.length }));
  });
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  servers.push(server);
  return { server, received, endpoint: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
}

async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

async function closeServer(server: Server): Promise<void> {
  if (!server.listening) return;
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
}

async function allAlerts(c: ThreatClient): Promise<Alert[]> {
  return (await c.alerts.list({ limit: 500 })).items;
}

function recordingLogger() {
  const lines: Array<{ level: string; obj: Record<string, unknown>; msg: string }> = [];
  const at = (level: string) => (obj: object, msg?: string) => {
    lines.push({ level, obj: obj as Record<string, unknown>, msg: msg ?? '' });
  };
  const logger: Logger = { debug: at('debug'), info: at('info'), warn: at('warn'), error: at('error') };
  return { logger, lines };
}

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

describe('alerting options', () => {
  it('dedupeWindowMs: the same indicator concluded again within the window raises no second alert', async () => {
    let now = Date.parse('2026-03-01T12:00:00Z');
    const c = client({ alerting: { dedupeWindowMs: 60_000 } }, { now: () => now });
    await c.correlate(EVIL);
    await c.correlate(EVIL);
    await c.scout(EVIL);
    await c.correlate(WORSE);
    now += 59_999;
    await c.correlate(EVIL);
    await c.alerts.settled();
    expect((await allAlerts(c)).map((a) => a.indicators[0]?.value).sort()).toEqual([EVIL, WORSE]);
    now += 1;
    await c.correlate(EVIL);
    await c.alerts.settled();
    expect((await allAlerts(c)).map((a) => a.indicators[0]?.value).sort()).toEqual([EVIL, EVIL, WORSE]);
  });

  it('dedupeWindowMs defaults to an hour, and 0 raises an alert at every conclusion', async () => {
    expect(client().config.alerting).toEqual({
      enabled: true,
      minSeverity: 'informational',
      dedupeWindowMs: 3_600_000,
    });
    const c = client({ alerting: { dedupeWindowMs: 0 } });
    await c.correlate(EVIL);
    await c.correlate(EVIL);
    await c.alerts.settled();
    expect(await allAlerts(c)).toHaveLength(2);
  });

  it('enabled: false raises no alert for a threat, while alerts.add still stores and delivers', async () => {
    const Steady = flaky(0);
    const c = client({ alerting: { enabled: false } });
    c.registerIntegration('steady', Steady);
    await c.start();
    expect((await c.correlate(EVIL)).isThreat).toBe(true);
    await c.alerts.settled();
    expect(await allAlerts(c)).toEqual([]);
    expect(Steady.calls).toBe(0);
    const alert = await c.alerts.add({ title: 'by hand', severity: 'low' });
    await c.alerts.settled();
    expect(Steady.received.map((a) => a.id)).toEqual([alert.id]);
  });

  it('minSeverity filters automatic alerts by the severity of the risk score', async () => {
    // A list that calls its entries suspicious concludes a threat below critical.
    const lists = [{ name: 'watch', file: watchFile, verdict: 'suspicious' as const }];
    const probe = client({ lists, alerting: { enabled: false } });
    const correlation = await probe.correlate(WATCHED);
    expect(correlation.isThreat).toBe(true);
    const severity = severityForRiskScore(correlation.riskScore);
    const above = SEVERITIES[SEVERITIES.indexOf(severity) + 1];
    expect(above, 'the watched threat must not be critical for this test').toBeDefined();

    const strict = client({ lists, alerting: { minSeverity: above?.toUpperCase() as never } });
    expect(strict.config.alerting.minSeverity).toBe(above);
    await strict.correlate(WATCHED);
    await strict.alerts.settled();
    expect(await allAlerts(strict)).toEqual([]);

    const exact = client({ lists, alerting: { minSeverity: severity } });
    await exact.correlate(WATCHED);
    await exact.alerts.settled();
    expect((await allAlerts(exact)).map((a) => a.severity)).toEqual([severity]);
  });

  it('refuses invalid alerting options, naming each', () => {
    expect(() => client({ alerting: { minSeverity: 'severe' as never } })).toThrow(
      /^Configuration invalid: alerting\.minSeverity: expected one of informational, low, medium, high, critical/,
    );
    expect(() => client({ alerting: { dedupeWindowMs: -1 } })).toThrow(/alerting\.dedupeWindowMs/);
    expect(() => client({ alerting: { enabled: 'yes' as never } })).toThrow(/alerting\.enabled/);
    expect(() => client({ alerting: { dedupe: 5 } as never })).toThrow(/alerting/);
  });
});

describe('stop() and deliveries under way', () => {
  it('lets an attempt under way finish within the grace, then aborts it: it stays pending, and no timer is left', async () => {
    const clock = new ManualClock(Date.parse('2026-03-01T12:00:00Z'));
    let signal: AbortSignal | undefined;
    class Hanging implements Integration {
      sendAlert = (_alert: Alert, options?: SendAlertOptions) => {
        signal = options?.signal;
        return new Promise<never>(() => {});
      };
      enrichIndicator = async () => undefined;
    }
    const c = client({}, { clock });
    c.registerIntegration('hanging', Hanging, { retries: 0, timeout: 600_000 });
    await c.start();
    await c.correlate(EVIL);
    await settle();
    expect(signal?.aborted).toBe(false);

    const stopping = c.stop();
    await clock.advance(4_999);
    expect(c.state).toBe('stopping');
    await clock.advance(1);
    await stopping;
    expect(signal?.aborted).toBe(true);
    expect(clock.pending).toBe(0);
    const [alert] = (await allAlerts(c)) as [Alert];
    expect(alert.deliveries).toEqual([
      expect.objectContaining({
        integration: 'hanging',
        status: 'pending',
        attempts: 1,
        lastError: 'the client stopped before the delivery ended; it resumes when the client starts again',
      }),
    ]);
    expect(c.alerts.deliveryCounts()).toEqual({});
  });

  it('ends a wait for the next retry at once; the delivery stays pending and the next start() delivers it', async () => {
    const clock = new ManualClock(Date.parse('2026-03-01T12:00:00Z'));
    const Flaky = flaky(1, 3);
    const c = client({ performance: { retryDelay: 60_000 } }, { clock });
    c.registerIntegration('flaky', Flaky);
    await c.start();
    await c.correlate(EVIL);
    await settle();
    const [alert] = (await allAlerts(c)) as [Alert];
    expect((await c.alerts.get(alert.id))?.deliveries[0]).toMatchObject({ status: 'pending', attempts: 1 });
    await c.stop();
    expect(clock.pending).toBe(0);
    expect((await c.alerts.get(alert.id))?.deliveries[0]).toMatchObject({
      status: 'pending',
      attempts: 1,
      lastError: expect.stringMatching(/^flaky refused delivery 1; the client stopped before the delivery ended/),
    });
    await c.start();
    await c.alerts.settled();
    expect((await c.alerts.get(alert.id))?.deliveries[0]).toMatchObject({ status: 'delivered', attempts: 2 });
    expect(Flaky.received.map((a) => a.id)).toEqual([alert.id]);
  });

  it('a last attempt that fails by itself during the grace is failed: its attempts ran out', async () => {
    const clock = new ManualClock(Date.parse('2026-03-01T12:00:00Z'));
    let refuse: ((error: Error) => void) | undefined;
    class LastChance implements Integration {
      sendAlert = () => new Promise<never>((_resolve, reject) => (refuse = reject));
      enrichIndicator = async () => undefined;
    }
    const c = client({}, { clock });
    c.registerIntegration('last', LastChance, { retries: 0, timeout: 600_000 });
    await c.start();
    await c.correlate(EVIL);
    await settle();
    const stopping = c.stop();
    await clock.advance(1_000);
    refuse?.(new Error('HTTP 503'));
    await stopping;
    const [alert] = (await allAlerts(c)) as [Alert];
    expect(alert.deliveries).toEqual([
      expect.objectContaining({ integration: 'last', status: 'failed', attempts: 1, lastError: 'HTTP 503' }),
    ]);
    expect(c.alerts.deliveryCounts()).toEqual({ last: { delivered: 0, failed: 1 } });
  });

  it('a started client that raised, retried and delivered alerts leaves no timer after stop()', async () => {
    const baseline = resources();
    const c = client();
    c.registerIntegration('flaky', flaky(1, 1));
    await c.start();
    await c.correlate(EVIL);
    await c.alerts.settled();
    await c.stop();
    await settle();
    expect(extra(baseline)).toEqual([]);
  });
});

describe('start() resumes the deliveries left pending', () => {
  const pendingFor = (integration: string, attempts = 1) => ({ integration, status: 'pending' as const, attempts });

  it('delivers each pending delivery to its started integration; failed, delivered and unknown ones are left', async () => {
    const store = new MemoryAlertStore();
    const left = await store.add({
      title: 'left in flight',
      severity: 'high',
      deliveries: [pendingFor('flaky', 2), { integration: 'steady', status: 'delivered', attempts: 1 }],
    });
    const elsewhere = await store.add({
      title: 'for an integration not started',
      severity: 'low',
      deliveries: [pendingFor('gone')],
    });
    const failed = await store.add({
      title: 'failed for good',
      severity: 'low',
      deliveries: [{ integration: 'flaky', status: 'failed', attempts: 4, lastError: 'HTTP 503' }],
    });
    const Flaky = flaky(0);
    const Steady = flaky(0);
    const { logger, lines } = recordingLogger();
    const c = client({}, { alertStore: store, logger });
    c.registerIntegration('flaky', Flaky);
    c.registerIntegration('steady', Steady);
    await c.start();
    await c.alerts.settled();

    expect(Flaky.received.map((a) => a.title)).toEqual(['left in flight']);
    expect(Steady.calls).toBe(0);
    expect((await c.alerts.get(left.id))?.deliveries).toEqual([
      {
        integration: 'flaky',
        status: 'delivered',
        attempts: 3,
        lastAttemptAt: expect.any(String),
        result: { ticket: 'T-1' },
      },
      { integration: 'steady', status: 'delivered', attempts: 1 },
    ]);
    expect((await c.alerts.get(elsewhere.id))?.deliveries).toEqual([pendingFor('gone')]);
    expect(await c.alerts.get(failed.id)).toEqual(failed);
    expect(lines).toContainEqual(
      expect.objectContaining({ level: 'info', msg: 'resumed 1 alert delivery left pending (1 alert)' }),
    );
  });

  it('pages through more pending alerts than one page holds', async () => {
    const store = new MemoryAlertStore();
    for (let i = 0; i < 250; i++)
      await store.add({ title: `a${i}`, severity: 'low', deliveries: [pendingFor('steady', 0)] });
    const Steady = flaky(0);
    const c = client({}, { alertStore: store });
    c.registerIntegration('steady', Steady);
    await c.start();
    await c.alerts.settled();
    expect(new Set(Steady.received.map((a) => a.title)).size).toBe(250);
    expect(Steady.calls).toBe(250);
    expect(await store.pending()).toEqual({ items: [] });
  });

  it('does not deliver again an alert this run delivered while the resume was reading an older page', async () => {
    const inner = new MemoryAlertStore();
    let release: ((page: AlertPage) => void) | undefined;
    // A store whose pending() answers late, with a page read before the new alert's delivery was recorded.
    const slow: AlertStore = {
      add: (input) => inner.add(input),
      get: (id) => inner.get(id),
      list: (query) => inner.list(query),
      updateDeliveries: (id, deliveries) => inner.updateDeliveries(id, deliveries),
      pending: () => new Promise<AlertPage>((resolve) => (release = resolve)),
    };
    const Steady = flaky(0);
    const c = client({}, { alertStore: slow });
    c.registerIntegration('steady', Steady);
    await c.start();
    const added = await c.alerts.add({ title: 'new', severity: 'high' });
    expect(added.deliveries).toEqual([pendingFor('steady', 0)]);
    while (Steady.calls === 0 || (await inner.get(added.id))?.deliveries[0]?.status !== 'delivered') await settle();
    release?.({ items: [added] });
    await c.alerts.settled();
    expect(Steady.calls).toBe(1);
  });

  it('a store without pending() has nothing resumed, and start() does not fail', async () => {
    const inner = new MemoryAlertStore();
    const alert = await inner.add({ title: 'pending', severity: 'high', deliveries: [pendingFor('steady')] });
    const bare: AlertStore = {
      add: (input) => inner.add(input),
      get: (id) => inner.get(id),
      list: (query) => inner.list(query),
      updateDeliveries: (id, deliveries) => inner.updateDeliveries(id, deliveries),
    };
    const Steady = flaky(0);
    const c = client({}, { alertStore: bare });
    c.registerIntegration('steady', Steady);
    await c.start();
    await c.alerts.settled();
    expect(Steady.calls).toBe(0);
    expect(await c.alerts.get(alert.id)).toEqual(alert);
  });

  it('a store whose pending() fails logs why, and the client runs', async () => {
    const inner = new MemoryAlertStore();
    const broken: AlertStore = {
      add: (input) => inner.add(input),
      get: (id) => inner.get(id),
      list: (query) => inner.list(query),
      updateDeliveries: (id, deliveries) => inner.updateDeliveries(id, deliveries),
      pending: async () => {
        throw new Error('the alert store is unreachable');
      },
    };
    const { logger, lines } = recordingLogger();
    const c = client({}, { alertStore: broken, logger });
    c.registerIntegration('steady', flaky(0));
    await c.start();
    await c.alerts.settled();
    expect(c.state).toBe('running');
    expect(lines).toContainEqual(
      expect.objectContaining({
        level: 'error',
        msg: expect.stringMatching(/^the deliveries left pending could not be resumed: the alert store is unreachable/),
      }),
    );
  });
});
