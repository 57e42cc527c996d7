import { describe, expect, it } from 'vitest';
import { UnprocessableMessageError } from '../errors/unprocessable-message-error.js';
import { afterFailure, retryDelayBefore } from './retry-policy.js';

const options = { maxAttempts: 4, retryDelay: 100, backoffMultiplier: 2, maxRetryDelay: 300, drainTimeout: 1000 };

describe('retry policy', () => {
  it('backs off exponentially from retryDelay, capped at maxRetryDelay', () => {
    expect([2, 3, 4, 5].map((next) => retryDelayBefore(next, options))).toEqual([100, 200, 300, 300]);
  });

  it('retries until maxAttempts, then dead-letters as exhausted', () => {
    expect(afterFailure(new Error('x'), 1, options)).toEqual({ action: 'retry', delay: 100, next: 2 });
    expect(afterFailure(new Error('x'), 3, options)).toEqual({ action: 'retry', delay: 300, next: 4 });
    expect(afterFailure(new Error('x'), 4, options)).toEqual({ action: 'dead-letter', reason: 'exhausted' });
  });

  it('dead-letters at once what no retry can fix', () => {
    expect(afterFailure(new UnprocessableMessageError('bad'), 1, options)).toEqual({
      action: 'dead-letter',
      reason: 'unprocessable',
    });
    expect(afterFailure(Object.assign(new Error('no'), { isRetryable: false }), 1, options)).toMatchObject({
      action: 'dead-letter',
    });
  });
});
