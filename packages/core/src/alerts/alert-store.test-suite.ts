import { expect, it } from 'vitest';
import { ValidationError } from '../errors/validation-error.js';
import type { AlertInput } from './alert.js';
import type { AlertDelivery } from './alert-delivery.js';
import type { AlertStore } from './alert-store.js';

/**
 * The alert store compliance suite: what every `AlertStore` does, registered under the caller's `describe`. Pass a
 * factory of fresh, empty stores.
 *
 * @example
 * ```ts
 * describe('MemoryAlertStore', () => alertStoreCompliance(() => new MemoryAlertStore()));
 * ```
 */
export function alertStoreCompliance(makeStore: () => AlertStore | Promise<AlertStore>): void {
  const documented = {
    title: 'Malicious domain detected',
    severity: 'High',
    description: 'Domain flagged by threat intelligence',
    indicators: [{ type: 'domain', value: 'malicious-site.com', confidence: 95 }],
    timestamp: '2026-03-01T11:59:00.000Z',
  } satisfies AlertInput;

  it('stores the documented alert with an id and no deliveries, and gives it back by id', async () => {
    const store = await makeStore();
    const alert = await store.add(documented);
    expect(alert).toEqual({ ...documented, severity: 'high', id: expect.any(String), deliveries: [] });
    expect(await store.get(alert.id)).toEqual(alert);
    expect(await store.get('no-such-alert')).toBeUndefined();
    await store.close?.();
  });

  it('updateDeliveries replaces the deliveries and nothing else, and they list back', async () => {
    const store = await makeStore();
    const alert = await store.add(documented);
    const deliveries: AlertDelivery[] = [
      {
        integration: 'siem',
        status: 'delivered',
        attempts: 2,
        lastAttemptAt: '2026-03-01T12:00:00.000Z',
        result: { id: 7 },
      },
      { integration: 'webhooks', status: 'failed', attempts: 4, lastError: 'HTTP 503' },
    ];
    const updated = await store.updateDeliveries(alert.id, deliveries);
    expect(updated).toEqual({ ...alert, deliveries });
    expect(await store.get(alert.id)).toEqual({ ...alert, deliveries });
    expect((await store.list()).items).toEqual([{ ...alert, deliveries }]);
    // The store keeps its own copy: changing the array given changes nothing stored.
    (deliveries[1] as AlertDelivery).status = 'delivered';
    expect((await store.get(alert.id))?.deliveries[1]?.status).toBe('failed');
    await store.close?.();
  });

  it('updateDeliveries resolves undefined for an alert it does not hold', async () => {
    const store = await makeStore();
    expect(await store.updateDeliveries('no-such-alert', [])).toBeUndefined();
    await store.close?.();
  });

  it('updateDeliveries refuses a delivery that is not a delivery record, naming the field', async () => {
    const store = await makeStore();
    const alert = await store.add(documented);
    const error = await store
      .updateDeliveries(alert.id, [{ integration: 'siem', status: 'sent', attempts: -1 } as never])
      .catch((e: unknown) => e);
    expect(ValidationError.isInstance(error)).toBe(true);
    expect((error as Error).message).toMatch(/\[0\]\.status: .*\[0\]\.attempts: /);
    expect((await store.get(alert.id))?.deliveries).toEqual([]);
    await store.close?.();
  });

  it('list() filters by exact severity (one or several), and with minSeverity both apply', async () => {
    const store = await makeStore();
    const severities = ['low', 'high', 'critical', 'medium', 'high', 'informational'] as const;
    for (const [i, severity] of severities.entries()) {
      await store.add({ title: `a${i}`, severity, timestamp: `2026-03-01T12:0${i}:00.000Z` });
    }
    const titles = async (query: Parameters<AlertStore['list']>[0]) =>
      (await store.list(query)).items.map((a) => a.title);
    expect(await titles({ severity: 'high' })).toEqual(['a4', 'a1']);
    expect(await titles({ severity: 'HIGH' as never })).toEqual(['a4', 'a1']);
    expect(await titles({ severity: ['critical', 'low'] })).toEqual(['a2', 'a0']);
    expect(await titles({ severity: ['low', 'high'], minSeverity: 'medium' })).toEqual(['a4', 'a1']);
    expect(await titles({ severity: 'low', minSeverity: 'high' })).toEqual([]);
    // Paging keeps the filter.
    const first = await store.list({ severity: 'high', limit: 1 });
    expect(first.items.map((a) => a.title)).toEqual(['a4']);
    const second = await store.list({ severity: 'high', limit: 1, cursor: first.nextCursor as string });
    expect(second.items.map((a) => a.title)).toEqual(['a1']);
    expect(second.nextCursor).toBeUndefined();
    const error = await store.list({ severity: 'severe' as never }).catch((e: unknown) => e);
    expect(ValidationError.isInstance(error)).toBe(true);
    expect((error as Error).message).toMatch(/severity: expected one of informational, low, medium, high, critical/);
    await store.close?.();
  });

  it('pending() lists the alerts with a delivery still pending, newest first, in pages (a store that has it)', async (ctx) => {
    const store = await makeStore();
    ctx.onTestFinished(() => store.close?.());
    const pendingOf = store.pending?.bind(store);
    if (pendingOf === undefined) return ctx.skip('this store has no pending(): nothing is resumed at start');
    const pending = (integration: string): AlertDelivery => ({ integration, status: 'pending', attempts: 1 });
    const delivered = (integration: string): AlertDelivery => ({ integration, status: 'delivered', attempts: 1 });
    const at = (minute: number) => `2026-03-01T12:0${minute}:00.000Z`;
    const none = await store.add({ ...documented, title: 'none', timestamp: at(0) });
    const waiting = await store.add({
      ...documented,
      title: 'waiting',
      timestamp: at(1),
      deliveries: [pending('siem')],
    });
    await store.add({ ...documented, title: 'done', timestamp: at(2), deliveries: [delivered('siem')] });
    const mixed = await store.add({
      ...documented,
      title: 'mixed',
      severity: 'low',
      timestamp: at(3),
      deliveries: [delivered('siem'), pending('webhooks')],
    });
    await store.add({
      ...documented,
      title: 'failed',
      timestamp: at(4),
      deliveries: [{ integration: 'siem', status: 'failed', attempts: 4, lastError: 'HTTP 503' }],
    });

    expect((await pendingOf()).items.map((a) => a.title)).toEqual(['mixed', 'waiting']);
    expect((await pendingOf({ minSeverity: 'high' })).items.map((a) => a.title)).toEqual(['waiting']);
    const first = await pendingOf({ limit: 1 });
    expect(first.items).toEqual([mixed]);
    const second = await pendingOf({ limit: 1, cursor: first.nextCursor as string });
    expect(second).toEqual({ items: [waiting] });

    // A delivery that ends leaves the list; one that is started again joins it.
    await store.updateDeliveries(waiting.id, [delivered('siem')]);
    await store.updateDeliveries(none.id, [pending('siem')]);
    expect((await pendingOf()).items.map((a) => a.title)).toEqual(['mixed', 'none']);
    await store.updateDeliveries(mixed.id, [delivered('siem'), delivered('webhooks')]);
    await store.updateDeliveries(none.id, [{ integration: 'siem', status: 'failed', attempts: 4 }]);
    expect(await pendingOf()).toEqual({ items: [] });
  });
}
