import { describe, expect, it, vi } from 'vitest';
import { ThreatClient } from '../client/threat-client.js';
import { ConfigurationError } from '../errors/configuration-error.js';
import { InvalidIndicatorError } from '../errors/invalid-indicator-error.js';
import type { Feed, FeedLookupContext, FeedLookupResult } from '../feeds/feed.js';
import { answer, failure } from '../feeds/feed-response.js';
import type { Indicator } from '../indicators/index.js';
import { silentLogger } from '../logging/logger.js';

const NOW = Date.parse('2026-11-01T00:00:00Z');

/** A third-party feed whose answers a test scripts by indicator, counting calls. */
function scriptedFeed(
  id: string,
  script: (indicator: Indicator, context: FeedLookupContext) => Promise<FeedLookupResult> | FeedLookupResult,
  extra: Partial<Feed> = {},
) {
  const calls: Array<{ indicator: string; apiKey: string | undefined; endpoint: string }> = [];
  const feed: Feed = {
    specificationVersion: 'v1',
    id,
    name: `Scripted ${id}`,
    supportedTypes: ['ipv4', 'domain', 'url', 'sha256'],
    requiresKey: false,
    defaultEndpoint: `https://${id}.example`,
    async lookup(indicator, context) {
      calls.push({ indicator: indicator.value, apiKey: context.apiKey, endpoint: context.endpoint });
      return script(indicator, context);
    },
    ...extra,
  };
  return { feed, calls };
}

const malicious = (score = 0.9) => answer({ status: 'ok', verdict: 'malicious', score, evidence: ['seen in attacks'] });

function client(config: Partial<ConstructorParameters<typeof ThreatClient>[0]> = {}) {
  return new ThreatClient(
    {
      sources: ['feed_otx'],
      strategy: 'aggressive',
      warninglists: { builtin: false },
      ...config,
      performance: { retryAttempts: 0, ...config.performance },
    },
    { env: false, logger: silentLogger, now: () => NOW },
  );
}

describe('client.scout', () => {
  it('answers a listed source without its key as not_configured, and never asks it', async () => {
    const c = client({ sources: ['feed_otx', 'feed_scan'] });
    const result = await c.scout('198.51.100.7');
    expect(result.indicator).toBe('198.51.100.7');
    expect(result.type).toBe('ipv4');
    expect(result.results.map((r) => [r.feed, r.status, r.verdict])).toEqual([
      ['feed_otx', 'not_configured', 'unknown'],
      ['feed_scan', 'not_configured', 'unknown'],
    ]);
    expect(result.results[0]?.evidence[0]).toMatch(/needs an API key/);
  });

  it('asks a registered feed, normalising the indicator first', async () => {
    const c = client();
    const { feed, calls } = scriptedFeed('feed_mine', () => malicious());
    c.registerFeed(feed);
    expect(c.sources).toEqual(['feed_otx', 'feed_mine']);
    const result = await c.scout('hxxp://EVIL[.]example[.]com/a');
    expect(calls).toEqual([
      { indicator: 'http://evil.example.com/a', apiKey: undefined, endpoint: 'https://feed_mine.example' },
    ]);
    const mine = result.results.find((r) => r.feed === 'feed_mine');
    expect(mine).toMatchObject({ status: 'ok', verdict: 'malicious', score: 0.9, type: 'url', cached: false });
    expect(mine?.durationMs).toBeGreaterThanOrEqual(0);
  });

  it('reports types a feed does not support as unsupported, without asking it', async () => {
    const c = client();
    const { feed, calls } = scriptedFeed('feed_mine', () => malicious());
    c.registerFeed(feed);
    const result = await c.scout('user@example.com');
    expect(result.results.find((r) => r.feed === 'feed_mine')?.status).toBe('unsupported');
    expect(calls).toEqual([]);
  });

  it('refuses an invalid indicator with InvalidIndicatorError', async () => {
    await expect(client().scout('not an indicator')).rejects.toSatisfy((e) => InvalidIndicatorError.isInstance(e));
  });

  it('turns a feed that never answers into status timeout after the feed timeout', async () => {
    const c = client({ apiKeys: { feed_slow: { key: 'k', timeout: 30 } } });
    const { feed } = scriptedFeed(
      'feed_slow',
      (_i, ctx) =>
        new Promise((_resolve, reject) => ctx.signal.addEventListener('abort', () => reject(ctx.signal.reason))),
    );
    c.registerFeed(feed);
    const errors = vi.fn();
    c.on('feedError', errors);
    const result = await c.scout('198.51.100.7');
    const slow = result.results.find((r) => r.feed === 'feed_slow');
    expect(slow).toMatchObject({ status: 'timeout', verdict: 'unknown', score: 0 });
    expect(slow?.evidence[0]).toBe('feed_slow did not answer within 30 ms');
    expect(errors).toHaveBeenCalledWith(
      { message: 'feed_slow did not answer within 30 ms', context: { status: 'timeout', indicator: '198.51.100.7' } },
      'feed_slow',
    );
  });

  it('turns an exception into status error, never clean', async () => {
    const c = client();
    c.registerFeed(scriptedFeed('feed_broken', () => Promise.reject(new Error('socket hang up'))).feed);
    const broken = (await c.scout('198.51.100.7')).results.find((r) => r.feed === 'feed_broken');
    expect(broken).toMatchObject({
      status: 'error',
      verdict: 'unknown',
      evidence: ['feed_broken failed: socket hang up'],
    });
  });

  it.each([
    ['null', null, /returned null instead of a result/],
    ['a bad status', { ...malicious(), status: 'great' }, /invalid result: status "great"/],
    ['a score above 1', { ...malicious(), score: 7 }, /invalid result: score 7/],
    [
      'clean with a failure status',
      { ...failure('timeout', 'x'), verdict: 'clean' },
      /verdict "clean" with status "timeout"/,
    ],
  ])('refuses a third-party result with %s as status error', async (_name, returned, message) => {
    const c = client();
    c.registerFeed(scriptedFeed('feed_odd', () => returned as never).feed);
    const odd = (await c.scout('198.51.100.7')).results.find((r) => r.feed === 'feed_odd');
    expect(odd?.status).toBe('error');
    expect(odd?.verdict).toBe('unknown');
    expect(odd?.evidence[0]).toMatch(message);
  });

  it('emits requestComplete for every request, rateLimited on 429 and feedError naming an invalid key', async () => {
    const c = client();
    c.registerFeed(scriptedFeed('feed_a', () => failure('auth_error', 'refused', { statusCode: 401 })).feed);
    c.registerFeed(
      scriptedFeed('feed_b', () => failure('rate_limited', 'slow down', { statusCode: 429, retryAfterMs: 1000 })).feed,
    );
    c.registerFeed(scriptedFeed('feed_c', () => malicious()).feed);
    const completed: string[] = [];
    const limited: string[] = [];
    const errors: unknown[] = [];
    c.on('requestComplete', (duration, feed) => {
      expect(typeof duration).toBe('number');
      completed.push(feed);
    });
    c.on('rateLimited', (feed) => limited.push(feed));
    c.on('feedError', (error, feed) => errors.push([feed, error]));
    await c.scout('198.51.100.7');
    expect(completed.sort()).toEqual(['feed_a', 'feed_b', 'feed_c']);
    expect(limited).toEqual(['feed_b']);
    expect(errors).toEqual([
      [
        'feed_a',
        {
          message: 'The API key for feed_a is invalid or was refused (HTTP 401)',
          context: { status: 'auth_error', indicator: '198.51.100.7', statusCode: 401 },
        },
      ],
    ]);
  });

  it('passes the configured key, endpoint and options of a feed, never an empty key', async () => {
    const c = client({
      apiKeys: { feed_keyed: { key: 'k-123', endpoint: 'https://mirror.example/api/', categories: [14] } },
    });
    let seen: FeedLookupContext | undefined;
    c.registerFeed(
      scriptedFeed(
        'feed_keyed',
        (_i, ctx) => {
          seen = ctx;
          return malicious();
        },
        { requiresKey: true },
      ).feed,
    );
    await c.scout('198.51.100.7');
    expect(seen?.apiKey).toBe('k-123');
    expect(seen?.endpoint).toBe('https://mirror.example/api');
    expect(seen?.options).toEqual({ categories: [14] });
  });

  it('runs feed requests within maxConcurrency', async () => {
    const c = client({ performance: { maxConcurrency: 2 } });
    let active = 0;
    let peak = 0;
    for (const id of ['feed_a', 'feed_b', 'feed_c', 'feed_d', 'feed_e']) {
      c.registerFeed(
        scriptedFeed(id, async () => {
          active += 1;
          peak = Math.max(peak, active);
          await new Promise((resolve) => setImmediate(resolve));
          active -= 1;
          return malicious();
        }).feed,
      );
    }
    await Promise.all([c.scout('198.51.100.7'), c.scout('198.51.100.8')]);
    expect(peak).toBe(2);
  });

  it('refuses a plain-HTTP feed endpoint while enforceHttps is on', () => {
    expect(() => client({ apiKeys: { feed_otx: { key: 'k', endpoint: 'http://otx.mirror.example' } } })).toThrow(
      /apiKeys\.feed_otx\.endpoint http:\/\/otx\.mirror\.example\/ is not HTTPS/,
    );
  });

  it('refuses a feed that does not implement the contract, naming the problems', () => {
    const c = client();
    let error: unknown;
    try {
      c.registerFeed({ id: 'Bad Id', lookup: 'no' } as never);
    } catch (e) {
      error = e;
    }
    expect(ConfigurationError.isInstance(error)).toBe(true);
    expect((error as Error).message).toMatch(/specificationVersion must be "v1"/);
    expect((error as Error).message).toMatch(/id must be lower-case/);
    expect((error as Error).message).toMatch(/lookup must be a function/);
    expect(() => c.registerFeed(scriptedFeed('feed_otx', () => malicious()).feed)).toThrow(/already registered/);
  });
});

describe('threatFound', () => {
  it('fires once per scout and once per correlate that concludes a threat, with severity = riskScore', async () => {
    const c = client();
    c.registerFeed(scriptedFeed('feed_a', () => malicious(0.9)).feed);
    const threats: Array<{ indicator: string; severity: number }> = [];
    c.on('threatFound', (threat) => {
      threats.push({ indicator: threat.indicator, severity: threat.severity });
    });
    await c.scout('198.51.100.7');
    const correlation = await c.correlate('198.51.100.7');
    expect(correlation.isThreat).toBe(true);
    expect(threats).toEqual([
      { indicator: '198.51.100.7', severity: correlation.riskScore },
      { indicator: '198.51.100.7', severity: correlation.riskScore },
    ]);
  });

  it('does not fire when the answers do not reach the strategy', async () => {
    const c = client({ strategy: 'defensive' });
    c.registerFeed(scriptedFeed('feed_a', () => malicious(0.9)).feed);
    const threats = vi.fn();
    c.on('threatFound', threats);
    const correlation = await c.correlate('198.51.100.7');
    expect(correlation.verdict).toBe('suspicious');
    expect(threats).not.toHaveBeenCalled();
  });
});

describe('client.scoutMany', () => {
  it('streams results and per-input errors with progress', async () => {
    const c = client();
    c.registerFeed(scriptedFeed('feed_a', () => malicious()).feed);
    const progress: number[] = [];
    const items = [];
    for await (const item of c.scoutMany(['198.51.100.1', 'garbage input', 'evil.example.com'], {
      onProgress: (p) => progress.push(p.completed),
    })) {
      items.push(item);
    }
    expect(progress).toEqual([1, 2, 3]);
    expect(
      items
        .filter((i) => i.ok)
        .map((i) => i.input)
        .sort(),
    ).toEqual(['198.51.100.1', 'evil.example.com']);
    const bad = items.find((i) => !i.ok);
    expect(bad).toMatchObject({ input: 'garbage input', ok: false, error: { code: 'INVALID_INDICATOR' } });
  });

  it('pulls inputs only as results are consumed (bounded look-ahead)', async () => {
    const c = client({ performance: { maxConcurrency: 3 } });
    c.registerFeed(scriptedFeed('feed_a', () => malicious()).feed);
    let pulled = 0;
    let consumed = 0;
    let maxAhead = 0;
    function* inputs() {
      for (let i = 0; i < 500; i++) {
        pulled += 1;
        maxAhead = Math.max(maxAhead, pulled - consumed);
        yield `10.0.${i >> 8}.${i & 255}`;
      }
    }
    for await (const _item of c.scoutMany(inputs())) consumed += 1;
    expect(consumed).toBe(500);
    // The window is twice maxConcurrency; one more may be pulled while the last result is handed over.
    expect(maxAhead).toBeLessThanOrEqual(7);
  });
});
