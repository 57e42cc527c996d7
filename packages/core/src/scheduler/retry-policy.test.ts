import { describe, expect, it } from 'vitest';
import { isRetryable, retryDelay } from './retry-policy.js';

describe('retry policy', () => {
  it.each([
    [{ status: 'timeout' }, true],
    [{ status: 'rate_limited' }, true],
    [{ status: 'error', error: { message: 'x', statusCode: 503 } }, true],
    [{ status: 'error', error: { message: 'x', network: true } }, true],
    [{ status: 'error', error: { message: 'bad body', statusCode: 200 } }, false],
    [{ status: 'error', error: { message: 'x', statusCode: 404 } }, false],
    [{ status: 'auth_error', error: { message: 'x', statusCode: 401 } }, false],
    [{ status: 'auth_error', error: { message: 'x', statusCode: 403 } }, false],
    [{ status: 'not_found' }, false],
    [{ status: 'ok' }, false],
    [{ status: 'circuit_open' }, false],
  ] as const)('%j retryable: %s', (result, expected) => {
    expect(isRetryable(result as never)).toBe(expected);
  });

  it('backs off exponentially with equal jitter', () => {
    const options = { retryAttempts: 3, retryDelay: 1000, backoffMultiplier: 2 };
    expect([1, 2, 3].map((a) => retryDelay(a, options, () => 0))).toEqual([500, 1000, 2000]);
    expect([1, 2, 3].map((a) => retryDelay(a, options, () => 1))).toEqual([1000, 2000, 4000]);
  });
});
