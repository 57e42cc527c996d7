// BUILTIN_FEEDS states each built-in feed's default endpoint and key header for code that does not run the feed
// (the server's feed proxy): they must be what the feed itself uses.
import { describe, expect, it } from 'vitest';
import type { HttpClient } from '../http/http-client.js';
import { parseIndicator } from '../indicators/index.js';
import { silentLogger } from '../logging/logger.js';
import { BUILTIN_FEED_LIST } from './builtin-feeds.js';
import { BUILTIN_FEEDS, isBuiltinFeedId } from './feed-ids.js';

describe('BUILTIN_FEEDS', () => {
  it.each(BUILTIN_FEED_LIST.map((feed) => [feed.id, feed] as const))(
    '%s: the default endpoint and the header that carries the key are those its lookup uses',
    async (id, feed) => {
      if (!isBuiltinFeedId(id)) throw new Error(`${id} is not a built-in feed id`);
      expect(BUILTIN_FEEDS[id].defaultEndpoint).toBe(feed.defaultEndpoint);
      const seen: Array<Record<string, string>> = [];
      const http = {
        request: async (_url: string, init: { headers?: Record<string, string> }) => {
          seen.push(Object.fromEntries(Object.entries(init.headers ?? {}).map(([k, v]) => [k.toLowerCase(), v])));
          return { status: 401, headers: {}, body: '{}' };
        },
      } as unknown as HttpClient;
      const type = feed.supportedTypes.includes('ipv4') ? '198.51.100.7' : 'example.com';
      await feed
        .lookup(parseIndicator(type), {
          signal: new AbortController().signal,
          apiKey: 'the-key',
          endpoint: feed.defaultEndpoint,
          http,
          options: {},
          includeRaw: false,
          logger: silentLogger,
        })
        .catch(() => undefined);
      expect(seen.length).toBeGreaterThan(0);
      expect(seen[0]?.[BUILTIN_FEEDS[id].keyHeader]).toBe('the-key');
    },
  );
});
