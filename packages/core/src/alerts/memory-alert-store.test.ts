import { describe, expect, it } from 'vitest';
import { ValidationError } from '../errors/validation-error.js';
import type { Logger } from '../logging/logger.js';
import { ALERT_METADATA_MAX_BYTES } from './alert-metadata.js';
import { MemoryAlertStore } from './memory-alert-store.js';

function recordingLogger() {
  const lines: Array<{ level: string; obj: Record<string, unknown>; msg: string | undefined }> = [];
  const at =
    (level: string) =>
    (obj: object, msg?: string): void => {
      lines.push({ level, obj: obj as Record<string, unknown>, msg });
    };
  const logger: Logger = { debug: at('debug'), info: at('info'), warn: at('warn'), error: at('error') };
  return { logger, lines };
}

function manualClock(start = Date.parse('2026-01-01T00:00:00Z')) {
  let now = start;
  return { now: () => new Date(now), advance: (ms: number) => (now += ms) };
}

const titles = async (store: MemoryAlertStore) => (await store.list({ limit: 500 })).items.map((a) => a.title);

describe('MemoryAlertStore is bounded', () => {
  it('keeps at most maxAlerts: the first stored is dropped first, counted, and logged', async () => {
    const { logger, lines } = recordingLogger();
    const store = new MemoryAlertStore({ maxAlerts: 3, logger });
    for (const title of ['a', 'b', 'c', 'd', 'e']) await store.add({ title, severity: 'high' });
    expect(await titles(store)).toEqual(['e', 'd', 'c']);
    expect(store.stats()).toMatchObject({ alerts: 3, dropped: 2 });
    expect(lines).toEqual([
      expect.objectContaining({
        level: 'warn',
        obj: expect.objectContaining({ dropped: 1, droppedTotal: 1, maxAlerts: 3 }),
        msg: expect.stringMatching(/alert store is full .* dropped the oldest/),
      }),
    ]);
  });

  it('a dropped alert is gone from get() too', async () => {
    const store = new MemoryAlertStore({ maxAlerts: 1 });
    const first = await store.add({ title: 'first', severity: 'low' });
    await store.add({ title: 'second', severity: 'low' });
    expect(await store.get(first.id)).toBeUndefined();
  });

  it('keeps at most maxBytes of alerts (as JSON), dropping the oldest', async () => {
    const store = new MemoryAlertStore({ maxBytes: 10_000 });
    for (let i = 0; i < 10; i++) await store.add({ title: `t${i}`, severity: 'high', description: 'x'.repeat(2_000) });
    const stats = store.stats();
    expect(stats.bytes).toBeLessThanOrEqual(10_000);
    expect(stats.alerts).toBe(4);
    expect(stats.dropped).toBe(6);
    expect(await titles(store)).toEqual(['t9', 't8', 't7', 't6']);
  });

  it('refuses one alert larger than the whole store', async () => {
    const store = new MemoryAlertStore({ maxBytes: 1_000 });
    await store.add({ title: 'small', severity: 'low' });
    await expect(store.add({ title: 'big', severity: 'low', description: 'x'.repeat(2_000) })).rejects.toThrow(
      /larger than the store holds \(1000 bytes\)/,
    );
    expect(await titles(store)).toEqual(['small']);
  });

  it('alerts of 1 MB each stay within the default 32 MiB, the oldest dropped', async () => {
    const store = new MemoryAlertStore();
    const indicators = Array.from({ length: 128 }, (_, i) => ({
      type: 'url' as const,
      value: `http://h${i}.example.com/${'p'.repeat(8_000)}`,
    }));
    for (let i = 0; i < 40; i++) await store.add({ title: `t${i}`, severity: 'high', indicators });
    const stats = store.stats();
    expect(stats.bytes).toBeGreaterThan(30 * 1024 * 1024);
    expect(stats.bytes).toBeLessThanOrEqual(32 * 1024 * 1024);
    expect(stats.dropped).toBe(40 - stats.alerts);
    expect(stats.dropped).toBeGreaterThanOrEqual(8);
  });

  it('logs at most one line a minute while dropping, with the count since the last line', async () => {
    const { logger, lines } = recordingLogger();
    const clock = manualClock();
    const store = new MemoryAlertStore({ maxAlerts: 1, logger, now: clock.now });
    for (let i = 0; i < 5; i++) await store.add({ title: `t${i}`, severity: 'low' });
    expect(lines).toHaveLength(1);
    clock.advance(60_000);
    await store.add({ title: 'later', severity: 'low' });
    expect(lines.map((l) => [l.obj.dropped, l.obj.droppedTotal])).toEqual([
      [1, 1],
      [4, 5],
    ]);
  });

  it('refuses a limit that is not a positive integer', () => {
    expect(() => new MemoryAlertStore({ maxAlerts: 0 })).toThrow(/maxAlerts/);
    expect(() => new MemoryAlertStore({ maxBytes: Number.NaN })).toThrow(/maxBytes/);
  });
});

describe('alert metadata', () => {
  it(`is at most ${ALERT_METADATA_MAX_BYTES} bytes as JSON`, async () => {
    const store = new MemoryAlertStore();
    const sized = (bytes: number) => ({ blob: 'x'.repeat(bytes - '{"blob":""}'.length) });
    await expect(
      store.add({ title: 't', severity: 'low', metadata: sized(ALERT_METADATA_MAX_BYTES) }),
    ).resolves.toBeDefined();
    const error = await store
      .add({ title: 't', severity: 'low', metadata: sized(ALERT_METADATA_MAX_BYTES + 1) })
      .catch((e: unknown) => e);
    expect(ValidationError.isInstance(error)).toBe(true);
    expect((error as ValidationError).issues).toEqual([
      {
        path: 'metadata',
        message: `at most ${ALERT_METADATA_MAX_BYTES} bytes as JSON; this is ${ALERT_METADATA_MAX_BYTES + 1}`,
      },
    ]);
  });

  it('counts UTF-8 bytes, not characters', async () => {
    const store = new MemoryAlertStore();
    const emoji = '\u{1F600}'.repeat(ALERT_METADATA_MAX_BYTES / 4);
    await expect(store.add({ title: 't', severity: 'low', metadata: { emoji } })).rejects.toThrow(
      /at most 65536 bytes/,
    );
  });

  it('that is not JSON (a cycle, nested past the stack) is refused, not thrown raw', async () => {
    const store = new MemoryAlertStore();
    const cycle: Record<string, unknown> = {};
    cycle.self = cycle;
    await expect(store.add({ title: 't', severity: 'low', metadata: cycle })).rejects.toThrow(/not JSON/);
    let deep: Record<string, unknown> = {};
    for (let i = 0; i < 200_000; i++) deep = { a: deep };
    await expect(store.add({ title: 't', severity: 'low', metadata: deep })).rejects.toThrow(/not JSON/);
  });

  it('is a copy: changing the object given afterwards does not change the stored alert', async () => {
    const store = new MemoryAlertStore();
    const metadata = { tags: ['a'] };
    const alert = await store.add({ title: 't', severity: 'low', metadata });
    metadata.tags.push('b');
    expect((await store.get(alert.id))?.metadata).toEqual({ tags: ['a'] });
  });
});
