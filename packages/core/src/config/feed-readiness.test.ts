import { describe, expect, it } from 'vitest';
import { feedReadiness, redactConfig } from './feed-readiness.js';
import { parseConfig } from './parse-config.js';

describe('an apiKeys entry without its key (settings for a key kept in a vault or the environment)', () => {
  const config = parseConfig({
    sources: ['feed_otx', 'feed_urls'],
    apiKeys: { feed_otx: { endpoint: 'https://otx.mirror.example' }, feed_urls: { timeout: 5000 } },
  });

  it('is valid configuration, but a feed that needs a key is not ready with it alone', () => {
    expect(feedReadiness(config).map((r) => [r.feed, r.status, r.reason])).toEqual([
      ['feed_otx', 'not_configured', 'needs an API key (apiKeys or its environment variable)'],
      ['feed_urls', 'ready', 'no key needed'],
    ]);
  });

  it('is printed without inventing a redacted key', () => {
    expect((redactConfig(config).apiKeys as Record<string, unknown>).feed_otx).toEqual({
      endpoint: 'https://otx.mirror.example',
    });
  });
});
