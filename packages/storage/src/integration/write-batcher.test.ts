import type { Logger } from '@threatlib/core';
import { ManualClock } from '@threatlib/core/testing';
import { describe, expect, it } from 'vitest';
import { DEFAULT_BATCHING, WriteBatcher } from './write-batcher.js';

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

/** A server that takes writes unless told it is down; `release` lets one pending write answer. */
function fakeServer() {
  const written: number[][] = [];
  let down = false;
  return {
    written,
    setDown(value: boolean) {
      down = value;
    },
    async write(batch: readonly number[]) {
      await Promise.resolve();
      if (down) throw new Error('connect ECONNREFUSED 127.0.0.1:27018');
      written.push([...batch]);
    },
  };
}

function batcher(overrides: Partial<typeof DEFAULT_BATCHING> = {}) {
  const clock = new ManualClock(0);
  const server = fakeServer();
  const { logger, lines } = recordingLogger();
  const made = new WriteBatcher<number>({
    ...DEFAULT_BATCHING,
    ...overrides,
    clock,
    logger,
    what: 'threat records',
    write: (batch) => server.write(batch),
  });
  return { batcher: made, clock, server, lines };
}

describe('WriteBatcher', () => {
  it('add only queues; a batch is written once the oldest has waited maxDelayMs', async () => {
    const { batcher: b, clock, server } = batcher({ maxDelayMs: 50 });
    expect(b.add(1)).toBe(true);
    b.add(2);
    expect(server.written).toEqual([]);
    await clock.advance(49);
    expect(server.written).toEqual([]);
    await clock.advance(1);
    await b.flush();
    expect(server.written).toEqual([[1, 2]]);
    expect(b.stats).toEqual({ written: 2, buffered: 0, dropped: 0, failedWrites: 0, batches: 1 });
  });

  it('a full batch is written at once, without waiting for the delay', async () => {
    const { batcher: b, server } = batcher({ maxBatch: 3 });
    for (const n of [1, 2, 3, 4]) b.add(n);
    await Promise.resolve();
    await Promise.resolve();
    expect(server.written).toEqual([[1, 2, 3]]);
    await b.flush();
    expect(server.written).toEqual([[1, 2, 3], [4]]);
  });

  it('keeps and retries with backoff while the server is down, then writes everything in order', async () => {
    const { batcher: b, clock, server, lines } = batcher({ maxDelayMs: 10, retryDelayMs: 100, maxRetryDelayMs: 400 });
    server.setDown(true);
    for (const n of [1, 2, 3]) b.add(n);
    await clock.advance(10);
    await clock.advance(100 + 200 + 400 + 400);
    expect(b.stats).toMatchObject({ written: 0, buffered: 3, failedWrites: 5, dropped: 0 });
    expect(lines.filter((l) => l.level === 'warn')).toHaveLength(1);
    expect(lines[0]?.msg).toMatch(/could not write 3 threat records; kept and tried again \(3 held, at most 10000\)/);
    b.add(4);
    server.setDown(false);
    await clock.advance(400);
    await b.flush();
    expect(server.written.flat()).toEqual([1, 2, 3, 4]);
    expect(b.stats).toMatchObject({ written: 4, buffered: 0, dropped: 0 });
  });

  it('past maxBuffered, new items are dropped, counted and logged, never silently', async () => {
    const { batcher: b, clock, server, lines } = batcher({ maxBuffered: 3, maxDelayMs: 10 });
    server.setDown(true);
    const accepted = [1, 2, 3, 4, 5].map((n) => b.add(n));
    expect(accepted).toEqual([true, true, true, false, false]);
    expect(b.stats).toMatchObject({ buffered: 3, dropped: 2 });
    const drops = lines.filter((l) => l.msg?.includes('could not be kept'));
    // One line for the first drop; the second, within a minute, waits for the next line's count.
    expect(drops).toEqual([
      expect.objectContaining({ level: 'warn', obj: expect.objectContaining({ dropped: 1, droppedTotal: 1 }) }),
    ]);
    await clock.advance(60_000);
    b.add(6);
    expect(lines.filter((l) => l.msg?.includes('could not be kept')).at(-1)?.obj).toMatchObject({
      dropped: 2,
      droppedTotal: 3,
    });
    server.setDown(false);
    await clock.advance(10_000);
    await b.flush();
    expect(server.written.flat()).toEqual([1, 2, 3]);
  });

  it('stop writes what is left once; what cannot be written is counted and logged as an error; no timer is left', async () => {
    const { batcher: b, clock, server, lines } = batcher({ maxDelayMs: 10 });
    b.add(1);
    await b.stop();
    expect(server.written).toEqual([[1]]);
    expect(clock.pending).toBe(0);

    const second = batcher({ maxDelayMs: 10, retryDelayMs: 1_000 });
    second.server.setDown(true);
    second.batcher.add(1);
    second.batcher.add(2);
    await second.clock.advance(10);
    expect(second.clock.pending).toBe(1);
    await second.batcher.stop();
    expect(second.batcher.stats).toMatchObject({ written: 0, buffered: 0, dropped: 2 });
    expect(second.lines.at(-1)).toMatchObject({
      level: 'error',
      msg: expect.stringMatching(/2 threat records could not be kept \(2 in all\): the write failed while stopping/),
    });
    expect(second.clock.pending).toBe(0);
    expect(second.batcher.add(3)).toBe(false);
    expect(lines).toEqual([]);
  });
});
