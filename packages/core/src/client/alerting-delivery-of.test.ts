import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { Alert, AlertInput } from '../alerts/alert.js';
import { MemoryAlertStore } from '../alerts/memory-alert-store.js';
import type { ThreatConfig } from '../config/schema.js';
import type { Integration } from '../integration/integration.js';
import { silentLogger } from '../logging/logger.js';
import { severityForRiskScore } from '../records/severity.js';
import { ThreatClient, type ThreatClientOptions } from './threat-client.js';

/*
 * client.alerts.deliveryOf(correlation, integration): a caller (the queue pipeline) waits for the alert a correlation
 * raised to reach one integration, and learns how that delivery ended.
 */

const dir = mkdtempSync(join(tmpdir(), 'threatlib-delivery-of-'));
const listFile = join(dir, 'blocklist.txt');
writeFileSync(listFile, 'evil.threatlib-test.net\n');
const watchFile = join(dir, 'watchlist.txt');
writeFileSync(watchFile, 'watched.threatlib-test.net\n');
const EVIL = 'evil.threatlib-test.net';
const WATCHED = 'watched.threatlib-test.net';

const offline = {
  sources: [],
  strategy: 'aggressive',
  lists: [{ name: 'blocklist', file: listFile }],
  performance: { retryDelay: 2, backoffMultiplier: 2, retryAttempts: 1 },
} satisfies ThreatConfig;

const clients: ThreatClient[] = [];
afterEach(async () => {
  await Promise.all(clients.splice(0).map((c) => (c.state === 'idle' ? undefined : c.stop())));
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

/** An integration that refuses its first `failures` deliveries (no retries of its own unless given), then takes them. */
function refusing(failures: number, retries = 0) {
  return class Refusing implements Integration {
    static calls = 0;
    static received: Alert[] = [];
    readonly retries = retries;
    sendAlert = async (alert: Alert) => {
      Refusing.calls += 1;
      if (Refusing.calls <= failures) throw new Error(`refused delivery ${Refusing.calls}`);
      Refusing.received.push(alert);
      return { ticket: `T-${Refusing.received.length}` };
    };
    enrichIndicator = async () => undefined;
  };
}

/** An integration whose deliveries wait until `release()`. */
function held() {
  let release!: () => void;
  const gate = new Promise<void>((resolve) => {
    release = resolve;
  });
  class Held implements Integration {
    static received: Alert[] = [];
    sendAlert = async (alert: Alert) => {
      await gate;
      Held.received.push(alert);
      return { held: true };
    };
    enrichIndicator = async () => undefined;
  }
  return { Held, release };
}

/** Whether `promise` is still pending after the work queued so far has run. */
async function pending(promise: Promise<unknown>): Promise<boolean> {
  const marker = Symbol('pending');
  const first = await Promise.race([promise, new Promise((resolve) => setImmediate(() => resolve(marker)))]);
  return first === marker;
}

describe('client.alerts.deliveryOf', () => {
  it('resolves, once each delivery ended and is recorded, with delivered and its answer, or failed and its error', async () => {
    const Good = refusing(0);
    const Down = refusing(Number.POSITIVE_INFINITY, 1);
    const c = client();
    c.registerIntegration('good', Good);
    c.registerIntegration('down', Down);
    await c.start();

    const correlation = await c.correlate(EVIL);
    expect(correlation.isThreat).toBe(true);
    await expect(c.alerts.deliveryOf(correlation, 'good')).resolves.toMatchObject({
      integration: 'good',
      status: 'delivered',
      attempts: 1,
      result: { ticket: 'T-1' },
    });
    const down = await c.alerts.deliveryOf(correlation, 'down');
    expect(down).toMatchObject({ integration: 'down', status: 'failed', attempts: 2 });
    expect(down?.lastError).toContain('refused delivery 2');
    // What it resolves with is what the alert store holds by then.
    const [stored] = (await c.alerts.list()).items;
    expect(stored?.deliveries.find((d) => d.integration === 'down')).toEqual(down);
    await expect(c.alerts.deliveryOf(correlation, 'not-registered')).resolves.toBeUndefined();
  });

  it('is undefined when no alert was raised: not a threat, alerting off, below minSeverity, not a correlation', async () => {
    const Good = refusing(0);
    const on = client();
    on.registerIntegration('good', Good);
    await on.start();
    const clean = await on.correlate('fine.threatlib-test.net');
    expect(clean.isThreat).toBe(false);
    await expect(on.alerts.deliveryOf(clean, 'good')).resolves.toBeUndefined();
    await expect(on.alerts.deliveryOf({}, 'good')).resolves.toBeUndefined();
    await expect(on.alerts.deliveryOf(null as unknown as object, 'good')).resolves.toBeUndefined();

    const off = client({ alerting: { enabled: false } });
    off.registerIntegration('good', Good);
    await off.start();
    await expect(off.alerts.deliveryOf(await off.correlate(EVIL), 'good')).resolves.toBeUndefined();

    // A list that calls its entries suspicious concludes a threat below critical.
    const lists = [{ name: 'watch', file: watchFile, verdict: 'suspicious' as const }];
    const strict = client({ lists, alerting: { minSeverity: 'critical' } });
    strict.registerIntegration('good', Good);
    await strict.start();
    const below = await strict.correlate(WATCHED);
    expect(below.isThreat).toBe(true);
    expect(severityForRiskScore(below.riskScore)).not.toBe('critical');
    await expect(strict.alerts.deliveryOf(below, 'good')).resolves.toBeUndefined();
    expect(Good.calls).toBe(0);
  });

  it('a duplicate within the window raises nothing, and waits for the alert it duplicates while that is delivered', async () => {
    const { Held, release } = held();
    const c = client();
    c.registerIntegration('held', Held);
    await c.start();

    const first = await c.correlate(EVIL);
    const second = await c.correlate(EVIL);
    const firstDelivery = c.alerts.deliveryOf(first, 'held');
    const secondDelivery = c.alerts.deliveryOf(second, 'held');
    expect(await pending(secondDelivery)).toBe(true);
    release();
    expect(await firstDelivery).toMatchObject({ status: 'delivered', result: { held: true } });
    expect(await secondDelivery).toEqual(await firstDelivery);
    await c.alerts.settled();

    // Once the alert is out, a duplicate has nothing to wait for.
    const third = await c.correlate(EVIL);
    await expect(c.alerts.deliveryOf(third, 'held')).resolves.toBeUndefined();
    expect((await c.alerts.list()).items).toHaveLength(1);
    expect(Held.received).toHaveLength(1);
  });

  it('an alert that did not reach an integration does not deduplicate the next conclusion: a retry raises it again', async () => {
    const Once = refusing(1);
    const c = client();
    c.registerIntegration('once', Once);
    await c.start();

    const first = await c.correlate(EVIL);
    await expect(c.alerts.deliveryOf(first, 'once')).resolves.toMatchObject({ status: 'failed', attempts: 1 });
    const retried = await c.correlate(EVIL);
    await expect(c.alerts.deliveryOf(retried, 'once')).resolves.toMatchObject({ status: 'delivered' });
    const alerts = (await c.alerts.list()).items;
    expect(alerts).toHaveLength(2);
    expect(Once.received.map((a) => a.id)).toEqual([alerts.find((a) => a.deliveries[0]?.status === 'delivered')?.id]);

    // Delivered now: the next conclusion within the window is a duplicate again.
    await expect(c.alerts.deliveryOf(await c.correlate(EVIL), 'once')).resolves.toBeUndefined();
    expect((await c.alerts.list()).items).toHaveLength(2);
  });

  it('dedupeWindowMs: 0 raises and delivers an alert for every conclusion', async () => {
    const Good = refusing(0);
    const c = client({ alerting: { dedupeWindowMs: 0 } });
    c.registerIntegration('good', Good);
    await c.start();
    const deliveries = await Promise.all(
      [await c.correlate(EVIL), await c.correlate(EVIL)].map((r) => c.alerts.deliveryOf(r, 'good')),
    );
    expect(deliveries.map((d) => d?.status)).toEqual(['delivered', 'delivered']);
    expect(Good.received).toHaveLength(2);
  });

  it("rejects with the store's error when the alert could not be stored, and the next conclusion raises it again", async () => {
    class FailingOnce extends MemoryAlertStore {
      failures = 1;
      override async add(input: AlertInput): Promise<Alert> {
        if (this.failures-- > 0) throw new Error('alert store unavailable');
        return super.add(input);
      }
    }
    const Good = refusing(0);
    const c = client({}, { alertStore: new FailingOnce() });
    c.registerIntegration('good', Good);
    await c.start();
    const lost = await c.correlate(EVIL);
    await expect(c.alerts.deliveryOf(lost, 'good')).rejects.toThrow('alert store unavailable');
    await c.alerts.settled();
    const again = await c.correlate(EVIL);
    await expect(c.alerts.deliveryOf(again, 'good')).resolves.toMatchObject({ status: 'delivered' });
    expect(Good.received).toHaveLength(1);
  });
});
