import { describe, expect, it } from 'vitest';
import { deliveryPolicy } from './delivery-policy.js';

const defaults = { retryAttempts: 3, requestTimeout: 30_000, retryDelay: 1_000, backoffMultiplier: 2 };

describe('deliveryPolicy', () => {
  it("takes the integration's own retries and timeout: options first, then the instance, then its options", () => {
    expect(deliveryPolicy({}, { retries: 5, timeout: 2_000 }, defaults)).toEqual({
      retryAttempts: 5,
      timeout: 2_000,
      retryDelay: 1_000,
      backoffMultiplier: 2,
    });
    expect(deliveryPolicy({ retries: 1, timeout: 700 }, {}, defaults)).toMatchObject({
      retryAttempts: 1,
      timeout: 700,
    });
    expect(deliveryPolicy({ options: { retries: 0, timeout: 10 } }, undefined, defaults)).toMatchObject({
      retryAttempts: 0,
      timeout: 10,
    });
    expect(deliveryPolicy({ retries: 1 }, { retries: 4 }, defaults).retryAttempts).toBe(4);
  });

  it('falls back to performance.retryAttempts and requestTimeout, ignoring values out of range', () => {
    expect(deliveryPolicy({}, {}, defaults)).toMatchObject({ retryAttempts: 3, timeout: 30_000 });
    expect(deliveryPolicy({ retries: 1.5, timeout: 0 }, { retries: -1, timeout: '5s' }, defaults)).toMatchObject({
      retryAttempts: 3,
      timeout: 30_000,
    });
    expect(deliveryPolicy({ retries: 11 }, null, defaults).retryAttempts).toBe(3);
  });

  it('survives an integration whose property getter throws', () => {
    const instance = {
      get retries(): number {
        throw new Error('not connected');
      },
    };
    expect(deliveryPolicy(instance, {}, defaults).retryAttempts).toBe(3);
  });
});
