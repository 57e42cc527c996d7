import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { Alert } from '../alerts/alert.js';
import { MemoryAlertStore } from '../alerts/memory-alert-store.js';
import type { ThreatConfig } from '../config/schema.js';
import type { Correlation } from '../correlation/correlate.js';
import type { Integration } from '../integration/integration.js';
import { silentLogger } from '../logging/logger.js';
import { ThreatClient } from './threat-client.js';

const dir = mkdtempSync(join(tmpdir(), 'threatlib-keeper-'));
const listFile = join(dir, 'blocklist.txt');
writeFileSync(listFile, 'evil.threatlib-test.net\n');
const EVIL = 'evil.threatlib-test.net';

/** Asks no feed: the local blocklist concludes the threat. */
const offline = {
  sources: [],
  strategy: 'aggressive',
  lists: [{ name: 'blocklist', file: listFile }],
  security: { enforceHttps: false },
} satisfies ThreatConfig;

const clients: ThreatClient[] = [];
afterEach(async () => {
  await Promise.all(clients.splice(0).map((c) => (c.state === 'idle' ? undefined : c.stop())));
});

function client(): ThreatClient {
  const made = new ThreatClient(offline, { env: false, logger: silentLogger });
  clients.push(made);
  return made;
}

/** An integration that offers an alert store of its own, as a storage integration does. */
class Keeper implements Integration {
  static store = new MemoryAlertStore();
  readonly alertStore = Keeper.store;
  readonly received: Alert[] = [];
  async sendAlert(alert: Alert) {
    this.received.push(alert);
    return {};
  }
  async enrichIndicator() {
    return undefined;
  }
}

class Siem implements Integration {
  static received: Alert[] = [];
  async sendAlert(alert: Alert) {
    Siem.received.push(alert);
    return { ok: true };
  }
  async enrichIndicator() {
    return undefined;
  }
}

describe('the correlated event', () => {
  it('fires for every correlation, a clean one as well as a threat, before threatFound', async () => {
    const c = client();
    const seen: Array<[string, Correlation['verdict'] | string]> = [];
    c.on('correlated', (correlation) => seen.push(['correlated', correlation.verdict]));
    c.on('threatFound', (threat) => seen.push(['threatFound', threat.indicator]));
    await c.correlate('clean.threatlib-test.net');
    await c.scout(EVIL);
    expect(seen).toEqual([
      ['correlated', 'unknown'],
      ['correlated', 'malicious'],
      ['threatFound', EVIL],
    ]);
  });
});

describe('an integration that offers an alert store', () => {
  it('keeps the client’s alerts while it runs, those from before start copied over, and is not sent them', async () => {
    Keeper.store = new MemoryAlertStore();
    Siem.received = [];
    const c = client();
    const own = c.alerts.store;
    const early = await c.alerts.add({ title: 'before start', severity: 'low' });
    const keeper = c.registerIntegration('storage', Keeper);
    c.registerIntegration('siem', Siem);
    await c.start();

    expect(c.alerts.store).toBe(Keeper.store);
    expect(await Keeper.store.get(early.id)).toEqual(early);

    await c.scout(EVIL);
    await c.alerts.settled();
    const { items } = await Keeper.store.list();
    expect(items.map((a) => a.title)).toEqual([expect.stringContaining(EVIL), 'before start']);
    const [raised] = items;
    expect(raised?.deliveries.map((d) => [d.integration, d.status])).toEqual([['siem', 'delivered']]);
    expect(Siem.received.map((a) => a.id)).toEqual([raised?.id]);
    expect(keeper.received).toEqual([]);
    expect((await c.alerts.list()).items).toEqual(items);

    await c.stop();
    expect(c.alerts.store).toBe(own);
    expect((await own.list()).items.map((a) => a.id)).toEqual([early.id]);
  });

  it('without one, alerts stay in the client’s own store and reach every integration', async () => {
    Siem.received = [];
    const c = client();
    const own = c.alerts.store;
    c.registerIntegration('siem', Siem);
    await c.start();
    expect(c.alerts.store).toBe(own);
    await c.scout(EVIL);
    await c.alerts.settled();
    expect(Siem.received).toHaveLength(1);
  });
});
