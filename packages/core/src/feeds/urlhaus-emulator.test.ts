// The feed emulator's URLhaus API refuses what URLhaus refuses, so that the feed's tests exercise real answers.
import { type FeedEmulator, FIXTURE_REFERENCE_TIMES, startFeedEmulator } from '@threatlib/feed-emulator';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createHttpClient, type HttpClient } from '../http/http-client.js';
import { DOMAIN } from '../test-support/urlhaus-values.js';

let emu: FeedEmulator;
let http: HttpClient;

beforeAll(async () => {
  // The answers as recorded, so their dates can be asserted exactly.
  emu = await startFeedEmulator({ now: FIXTURE_REFERENCE_TIMES.feed_urls });
  http = createHttpClient();
});

afterAll(async () => {
  await http.close();
  await emu.close();
});

beforeEach(() => emu.reset());

describe('urlhausFeed', () => {
  describe('the emulator refuses what URLhaus refuses', () => {
    const post = (path: string, body: string, type = 'application/x-www-form-urlencoded') =>
      http.request(`${emu.endpoints.feed_urls}${path}`, { method: 'POST', headers: { 'content-type': type }, body });

    it('answers a GET with http_post_expected', async () => {
      const response = await http.request(`${emu.endpoints.feed_urls}/host/`);
      expect(response.status).toBe(405);
      expect(JSON.parse(response.body)).toEqual({ query_status: 'http_post_expected' });
    });

    it('answers a JSON body, an IPv6 host or a bad hash with the invalid_* status', async () => {
      expect(JSON.parse((await post('/host/', JSON.stringify({ host: DOMAIN }), 'application/json')).body)).toEqual({
        query_status: 'invalid_host',
      });
      expect(JSON.parse((await post('/host/', 'host=2001%3Adb8%3A%3A1')).body)).toEqual({
        query_status: 'invalid_host',
      });
      expect(JSON.parse((await post('/url/', 'url=not-a-url')).body)).toEqual({ query_status: 'invalid_url' });
      expect(JSON.parse((await post('/payload/', 'sha256_hash=abc')).body)).toEqual({ query_status: 'invalid_sha256' });
      expect(JSON.parse((await post('/payload/', 'md5_hash=abc')).body)).toEqual({ query_status: 'invalid_md5' });
    });
  });
});
