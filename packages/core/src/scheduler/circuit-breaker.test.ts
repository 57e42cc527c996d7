import { describe, expect, it } from 'vitest';
import { type BreakerState, CircuitBreaker } from './circuit-breaker.js';
import { ManualClock } from './clock.js';

const options = { failureThreshold: 3, resetTimeout: 60_000, monitoringWindow: 300_000 };

describe('CircuitBreaker', () => {
  it('goes closed -> open -> half_open -> closed, and half_open -> open on a failed trial', async () => {
    const clock = new ManualClock(0);
    const changes: BreakerState[] = [];
    const breaker = new CircuitBreaker(options, clock, (s) => changes.push(s));
    breaker.failure();
    breaker.failure();
    expect(breaker.state).toBe('closed');
    breaker.failure();
    expect(breaker.state).toBe('open');
    expect(breaker.tryAcquire()).toBe(false);
    expect(breaker.status()).toMatchObject({ state: 'open', nextTrialAt: new Date(60_000).toISOString() });

    await clock.advance(60_000);
    expect(breaker.state).toBe('half_open');
    expect(breaker.tryAcquire()).toBe(true);
    expect(breaker.tryAcquire()).toBe(false); // one trial at a time
    breaker.failure();
    expect(breaker.state).toBe('open');

    await clock.advance(60_000);
    expect(breaker.tryAcquire()).toBe(true);
    breaker.success();
    expect(breaker.state).toBe('closed');
    expect(changes).toEqual(['open', 'half_open', 'open', 'half_open', 'closed']);
  });

  it('only counts failures inside the monitoring window', async () => {
    const clock = new ManualClock(0);
    const breaker = new CircuitBreaker(options, clock);
    breaker.failure();
    breaker.failure();
    await clock.advance(300_001);
    breaker.failure();
    expect(breaker.state).toBe('closed');
    expect(breaker.status().failures).toBe(1);
  });

  it('gives the trial back when it never reached the feed', async () => {
    const clock = new ManualClock(0);
    const breaker = new CircuitBreaker({ ...options, failureThreshold: 1 }, clock);
    breaker.failure();
    await clock.advance(60_000);
    expect(breaker.tryAcquire()).toBe(true);
    breaker.release();
    expect(breaker.tryAcquire()).toBe(true);
  });
});
