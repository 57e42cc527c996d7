import { describe, expect, it } from 'vitest';
import { ValidationError } from '../errors/validation-error.js';
import { alertStoreCompliance } from './alert-store.test-suite.js';
import { MemoryAlertStore } from './memory-alert-store.js';

describe('MemoryAlertStore (alert store compliance)', () => alertStoreCompliance(() => new MemoryAlertStore()));

describe('MemoryAlertStore.updateDeliveries within the byte cap', () => {
  const failed = (text: string, n = 1) =>
    Array.from({ length: n }, (_, i) => ({
      integration: `i${i}`,
      status: 'failed' as const,
      attempts: 1,
      lastError: text,
    }));

  it('counts the new deliveries against maxBytes, dropping the alerts stored first (never the one updated)', async () => {
    // Each small alert weighs about 150 bytes; with three 1,900-character errors the first weighs about 6,050.
    const store = new MemoryAlertStore({ maxBytes: 6_300 });
    const first = await store.add({ title: 'first', severity: 'low' });
    const second = await store.add({ title: 'second', severity: 'low' });
    const third = await store.add({ title: 'third', severity: 'low' });
    const before = store.stats().bytes;
    await store.updateDeliveries(first.id, failed('x'.repeat(1_900), 3));
    expect(store.stats().bytes).toBeLessThanOrEqual(6_300);
    expect(await store.get(second.id)).toBeUndefined();
    expect(await store.get(third.id)).toBeDefined();
    expect((await store.get(first.id))?.deliveries).toEqual(failed('x'.repeat(1_900), 3));
    expect(store.stats()).toMatchObject({ alerts: 2, dropped: 1 });
    await store.updateDeliveries(first.id, []);
    expect(store.stats().bytes).toBeLessThan(before);
  });

  it('refuses deliveries that would make one alert larger than the whole store, keeping the old ones', async () => {
    const store = new MemoryAlertStore({ maxBytes: 1_000 });
    const alert = await store.add({ title: 'small', severity: 'low' });
    const error = await store.updateDeliveries(alert.id, failed('x'.repeat(1_500))).catch((e: unknown) => e);
    expect(ValidationError.isInstance(error)).toBe(true);
    expect((error as Error).message).toMatch(/larger than the store holds \(1000 bytes\)/);
    expect((await store.get(alert.id))?.deliveries).toEqual([]);
  });
});
