import { describe, expect, it } from 'vitest';
import { ManualClock, systemClock } from './clock.js';

describe('systemClock timers', () => {
  it('keep the process alive by default, and not with { unref: true }', () => {
    const ref = systemClock.setTimeout(() => {}, 60_000) as NodeJS.Timeout;
    const unref = systemClock.setTimeout(() => {}, 60_000, { unref: true }) as NodeJS.Timeout;
    try {
      expect(ref.hasRef()).toBe(true);
      expect(unref.hasRef()).toBe(false);
    } finally {
      systemClock.clearTimeout(ref);
      systemClock.clearTimeout(unref);
    }
  });

  it('hold a wait past the timer limit (a Retry-After weeks ahead) instead of firing at once', async () => {
    let fired = false;
    const timer = systemClock.setTimeout(() => {
      fired = true;
    }, 30 * 86_400_000);
    try {
      await new Promise((resolve) => setTimeout(resolve, 20));
      expect(fired).toBe(false);
    } finally {
      systemClock.clearTimeout(timer);
    }
  });
});

describe('ManualClock', () => {
  it('runs an unref timer like any other when time is advanced', async () => {
    const clock = new ManualClock(0);
    let fired = 0;
    clock.setTimeout(() => fired++, 100, { unref: true });
    await clock.advance(99);
    expect(fired).toBe(0);
    await clock.advance(1);
    expect(fired).toBe(1);
  });
});
