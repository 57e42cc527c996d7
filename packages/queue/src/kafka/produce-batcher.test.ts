import { ManualClock } from '@threatlib/core/testing';
import { describe, expect, it } from 'vitest';
import { type PendingRecord, ProduceBatcher } from './produce-batcher.js';

function record(n: number): PendingRecord {
  return { topic: 't', key: `k${n}`, value: Buffer.from(String(n)), headers: {} };
}

function harness(options: { enabled: boolean; batchSize: number; flushInterval: number }) {
  const clock = new ManualClock(0);
  const sent: number[][] = [];
  const acks: Array<() => void> = [];
  const batcher = new ProduceBatcher(
    (records) => {
      sent.push(records.map((r) => Number(r.value.toString())));
      return new Promise<void>((resolve) => acks.push(resolve));
    },
    options,
    clock,
  );
  return { clock, sent, acks, batcher };
}

describe('ProduceBatcher', () => {
  it('sends a full batch at once and a partial one after flushInterval, when batching is enabled', async () => {
    const { clock, sent, acks, batcher } = harness({ enabled: true, batchSize: 3, flushInterval: 1000 });
    const done = [1, 2, 3, 4].map((n) => batcher.add(record(n)));
    expect(sent).toEqual([[1, 2, 3]]);
    acks.shift()?.();
    await Promise.all(done.slice(0, 3));
    await clock.advance(999);
    expect(sent).toEqual([[1, 2, 3]]);
    await clock.advance(1);
    expect(sent).toEqual([[1, 2, 3], [4]]);
    acks.shift()?.();
    await done[3];
  });

  it('without batching, sends at once and gathers what arrives while a batch is in flight', async () => {
    const { sent, acks, batcher } = harness({ enabled: false, batchSize: 10, flushInterval: 1000 });
    const first = batcher.add(record(1));
    const rest = [2, 3, 4].map((n) => batcher.add(record(n)));
    expect(sent).toEqual([[1]]);
    acks.shift()?.();
    await first;
    await new Promise((resolve) => setImmediate(resolve)); // lets the acknowledgement's callbacks run
    expect(sent).toEqual([[1], [2, 3, 4]]);
    acks.shift()?.();
    await Promise.all(rest);
  });

  it('rejects every record of a batch the broker refused, and flush() waits for what is pending', async () => {
    const clock = new ManualClock(0);
    let calls = 0;
    const batcher = new ProduceBatcher(
      async () => {
        calls += 1;
        if (calls === 1) throw new Error('not leader');
      },
      { enabled: true, batchSize: 2, flushInterval: 1000 },
      clock,
    );
    const refused = [batcher.add(record(1)), batcher.add(record(2))];
    await expect(Promise.all(refused)).rejects.toThrow('not leader');
    const later = batcher.add(record(3));
    await batcher.flush();
    await later;
    expect(calls).toBe(2);
    expect(batcher.pending).toBe(0);
  });
});
