import { silentLogger } from '@threatlib/core';
import { ManualClock } from '@threatlib/core/testing';
import { describe, expect, it } from 'vitest';
import { CloudError } from '../errors/cloud-error.js';
import type { StixIndicatorObject } from './sentinel-indicator.js';
import { type PublishOutcome, ThreatPublisher } from './threat-publisher.js';

function object(n: number): StixIndicatorObject {
  const at = '2026-03-01T12:00:00.000Z';
  return {
    type: 'indicator',
    spec_version: '2.1',
    id: `indicator--${String(n).padStart(8, '0')}-0000-4000-8000-000000000000`,
    created: at,
    modified: at,
    name: `198.51.100.${n}`,
    pattern: `[ipv4-addr:value = '198.51.100.${n}']`,
    pattern_type: 'stix',
    valid_from: at,
  };
}

const busy = new CloudError('sentinel', 'UploadStixObjects', 'HTTP 503', { statusCode: 503, isRetryable: true });
const refused = new CloudError('sentinel', 'UploadStixObjects', 'Error for Property=pattern', {
  serviceCode: 'InvalidStixObject',
});

function publisher(
  answer: (objects: readonly StixIndicatorObject[], call: number) => PublishOutcome[],
  maxQueued = 1000,
) {
  const clock = new ManualClock(0);
  const calls: string[][] = [];
  const p = new ThreatPublisher({
    publish: async (objects) => {
      calls.push(objects.map((o) => o.name ?? ''));
      return answer(objects, calls.length);
    },
    clock,
    logger: silentLogger,
    batchIntervalMs: 1000,
    maxQueued,
    retries: 2,
    retryDelayMs: 1000,
  });
  return { p, clock, calls };
}

const allOk = (objects: readonly StixIndicatorObject[]) => objects.map((): PublishOutcome => ({ ok: true }));

describe('ThreatPublisher', () => {
  it('holds an indicator for batchIntervalMs so that those arriving meanwhile share its request', async () => {
    const { p, clock, calls } = publisher(allOk);
    p.add(object(1));
    await clock.advance(500);
    p.add(object(2));
    await clock.advance(499);
    expect(calls).toEqual([]);
    await clock.advance(1);
    expect(calls).toEqual([['198.51.100.1', '198.51.100.2']]);
    expect(p.stats).toMatchObject({ published: 2, queued: 0 });
  });

  it('sends as soon as 100 wait, without waiting for the interval, 100 per request', async () => {
    const { p, clock, calls } = publisher(allOk);
    for (let n = 0; n < 99; n++) p.add(object(n));
    await clock.advance(0);
    expect(calls).toEqual([]);
    for (let n = 99; n < 150; n++) p.add(object(n));
    await clock.advance(0);
    expect(calls.map((c) => c.length)).toEqual([100, 50]);
    expect(p.stats).toMatchObject({ published: 150, queued: 0 });
  });

  it('retries what failed for a reason worth it, with backoff, counts the refused, and gives up after its retries', async () => {
    const { p, clock, calls } = publisher((objects) =>
      objects.map(
        (o): PublishOutcome => (o.name === '198.51.100.2' ? { ok: false, error: refused } : { ok: false, error: busy }),
      ),
    );
    p.add(object(1));
    p.add(object(2));
    await clock.advance(1000);
    expect(calls).toEqual([['198.51.100.1', '198.51.100.2']]);
    expect(p.stats).toMatchObject({ refused: 1, queued: 1 });
    await clock.advance(60_000);
    expect(calls).toEqual([['198.51.100.1', '198.51.100.2'], ['198.51.100.1'], ['198.51.100.1']]);
    expect(p.stats).toMatchObject({ published: 0, refused: 1, failed: 1, queued: 0 });
    expect(p.lastFailure).toBe(busy);
  });

  it('drops and counts what arrives past maxQueued, and replaces a waiting older version of the same indicator', async () => {
    const { p, clock, calls } = publisher(allOk, 100);
    for (let n = 0; n < 99; n++) p.add(object(n));
    p.add({ ...object(5), confidence: 99 });
    expect(p.add(object(200))).toBe(true);
    expect(p.add(object(201))).toBe(false);
    await clock.advance(1000);
    expect(calls.flat()).toHaveLength(100);
    expect(p.stats).toMatchObject({ published: 100, dropped: 1 });
  });

  it('sends what is queued once on stop, and takes nothing after', async () => {
    const { p, calls } = publisher((objects) => objects.map((): PublishOutcome => ({ ok: false, error: busy })));
    p.add(object(1));
    await p.stop();
    expect(calls).toEqual([['198.51.100.1']]);
    expect(p.stats).toMatchObject({ failed: 1, queued: 0 });
    expect(p.add(object(2))).toBe(false);
  });
});
