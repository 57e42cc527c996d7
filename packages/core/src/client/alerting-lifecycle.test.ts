// Deliveries across the client's lifecycle: what stop() does to those under way, and what start() resumes.
import { afterEach, describe, expect, it } from 'vitest';
import type { Alert } from '../alerts/alert.js';
import type { AlertPage, AlertStore } from '../alerts/alert-store.js';
import { MemoryAlertStore } from '../alerts/memory-alert-store.js';
import type { Integration, SendAlertOptions } from '../integration/integration.js';
import { ManualClock } from '../scheduler/clock.js';
import { extraResources as extra, activeResources as resources, settle } from './active-resources.test-suite.js';
import {
  allAlerts,
  client,
  EVIL,
  flaky,
  recordingLogger,
  stopClientsAndServers,
} from './alerting-clients.test-suite.js';

afterEach(stopClientsAndServers);

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
