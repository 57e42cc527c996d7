import { describe, expect, it } from 'vitest';
import { type BatchOutcome, describeOutcomes } from './batch-outcome.js';

const outcome = (batch: number, status: BatchOutcome['status']): BatchOutcome => ({
  batch,
  first: (batch - 1) * 10,
  last: batch * 10 - 1,
  status,
});

describe('describeOutcomes', () => {
  it('counts each status and lists its batches as ranges', () => {
    const statuses: BatchOutcome['status'][] = ['delivered', 'delivered', 'failed', 'delivered', 'delivered'];
    statuses.push('delivered', 'failed', ...Array<BatchOutcome['status']>(13).fill('not sent'));
    expect(describeOutcomes(statuses.map((status, i) => outcome(i + 1, status)))).toBe(
      '2 of 20 batches failed (3, 7); 5 delivered (1-2, 4-6); 13 not sent (8-20)',
    );
  });

  it('leaves out the statuses no batch has', () => {
    expect(describeOutcomes([outcome(1, 'failed')])).toBe('1 of 1 batch failed (1)');
  });
});
