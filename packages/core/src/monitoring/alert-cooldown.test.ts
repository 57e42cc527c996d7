import { describe, expect, it } from 'vitest';
import { AlertCooldown } from './alert-cooldown.js';

describe('AlertCooldown', () => {
  it('lets one alert per feed and condition through per cooldown', () => {
    let now = 0;
    const cooldown = new AlertCooldown(60_000, () => now);
    expect(cooldown.admit('feed_otx', 'key_rejected')).toBe(true);
    expect(cooldown.admit('feed_otx', 'key_rejected')).toBe(false);
    // Another condition, another feed: their own cooldowns.
    expect(cooldown.admit('feed_otx', 'breaker_open')).toBe(true);
    expect(cooldown.admit('feed_cti', 'key_rejected')).toBe(true);
    now = 59_999;
    expect(cooldown.admit('feed_otx', 'key_rejected')).toBe(false);
    now = 60_000;
    expect(cooldown.admit('feed_otx', 'key_rejected')).toBe(true);
    // The cooldown restarts from the alert let through, not from the suppressed ones.
    now = 119_999;
    expect(cooldown.admit('feed_otx', 'key_rejected')).toBe(false);
    now = 120_000;
    expect(cooldown.admit('feed_otx', 'key_rejected')).toBe(true);
  });
});
