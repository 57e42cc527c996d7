import type { Alert } from '@threatlib/core';
import { describe, expect, it } from 'vitest';
import { batchAlerts } from './alert-batches.js';

const alert = (id: string, size = 0): Alert => ({
  id,
  title: 'x'.repeat(size),
  severity: 'low',
  indicators: [],
  timestamp: '2026-01-01T00:00:00.000Z',
  deliveries: [],
});

describe('batchAlerts', () => {
  it('keeps the order and fills batches up to the count limit', () => {
    const batches = batchAlerts(
      ['a', 'b', 'c', 'd', 'e'].map((id) => alert(id)),
      {
        maxBatchAlerts: 2,
        maxBatchBytes: 1e9,
      },
    );
    expect(batches.map((b) => b.map((a) => a.id))).toEqual([['a', 'b'], ['c', 'd'], ['e']]);
  });

  it('starts a new batch before the byte limit, and gives an oversized alert a batch of its own', () => {
    const size = Buffer.byteLength(JSON.stringify(alert('a', 100)));
    const batches = batchAlerts([alert('a', 100), alert('b', 100), alert('big', 10_000), alert('c', 100)], {
      maxBatchAlerts: 100,
      maxBatchBytes: size * 2,
    });
    expect(batches.map((b) => b.map((a) => a.id))).toEqual([['a', 'b'], ['big'], ['c']]);
  });
});
