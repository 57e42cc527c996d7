import { describe, expect, it } from 'vitest';
import { ThreatClient } from '../client/threat-client.js';
import { InvalidIndicatorError } from '../errors/invalid-indicator-error.js';
import type { Feed } from '../feeds/feed.js';
import { answer } from '../feeds/feed-response.js';
import { silentLogger } from '../logging/logger.js';

function client() {
  const asked: Array<{ type: string; value: string }> = [];
  const feed: Feed = {
    specificationVersion: 'v1',
    id: 'feed_mine',
    name: 'Mine',
    supportedTypes: ['ipv4', 'ipv6', 'domain'],
    requiresKey: false,
    defaultEndpoint: 'https://mine.example',
    async lookup(indicator) {
      asked.push({ type: indicator.type, value: indicator.value });
      return answer({ status: 'ok', verdict: 'malicious', score: 0.9 });
    },
  };
  const c = new ThreatClient(
    {
      sources: ['feed_otx'],
      strategy: 'aggressive',
      warninglists: { builtin: false },
      performance: { retryAttempts: 0 },
    },
    { env: false, logger: silentLogger },
  );
  c.registerFeed(feed);
  return { c, asked };
}

describe('scout and correlate with the documented type names', () => {
  it("scout(x, {type: 'ip'}) takes an IPv4 or IPv6 address and reports the precise type", async () => {
    const { c, asked } = client();
    const v4 = await c.scout('8.8.8.8', { type: 'ip' });
    expect([v4.type, v4.results.find((r) => r.feed === 'feed_mine')?.type]).toEqual(['ipv4', 'ipv4']);
    const v6 = await c.correlate('2001:DB8::1', { type: 'ip' });
    expect([v6.type, v6.indicator]).toEqual(['ipv6', '2001:db8::1']);
    expect(asked).toEqual([
      { type: 'ipv4', value: '8.8.8.8' },
      { type: 'ipv6', value: '2001:db8::1' },
    ]);
  });

  it("scout(x, {type: 'hostname'}) is a domain", async () => {
    const { c } = client();
    expect((await c.scout('Evil.example.COM', { type: 'hostname' })).type).toBe('domain');
  });

  it("refuses a domain given as {type: 'ip'}, saying what it is, and asks no feed", async () => {
    const { c, asked } = client();
    const error = await c.scout('evil.example.com', { type: 'ip' }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(InvalidIndicatorError);
    expect((error as Error).message).toContain('not a valid ip: expected an IPv4 or IPv6 address; this is a domain');
    expect(asked).toEqual([]);
  });
});
