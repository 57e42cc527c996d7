// The feed emulator's VirusTotal API refuses what the real API refuses, so that the feed's tests exercise real answers.
import { type FeedEmulator, FIXTURE_REFERENCE_TIMES, startFeedEmulator } from '@threatlib/feed-emulator';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createHttpClient, type HttpClient } from '../http/http-client.js';
import { KEY, URL_ID } from '../test-support/virustotal-cases.js';

let emu: FeedEmulator;
let http: HttpClient;

beforeAll(async () => {
  // The answers as recorded, so their dates can be asserted exactly.
  emu = await startFeedEmulator({ now: FIXTURE_REFERENCE_TIMES.feed_scan });
  http = createHttpClient();
});

afterAll(async () => {
  await http.close();
  await emu.close();
});

beforeEach(() => {
  emu.reset();
});

describe('virustotalFeed', () => {
  describe('the emulator refuses what the real API refuses', () => {
    const base = () => emu.endpoints.feed_scan;

    it('answers a request without the key with AuthenticationRequiredError', async () => {
      const response = await http.request(`${base()}/domains/evil.com`);
      expect(response.status).toBe(401);
      expect(JSON.parse(response.body)).toEqual({
        error: { code: 'AuthenticationRequiredError', message: 'X-Apikey header is missing' },
      });
    });

    it('answers another method with BadRequestError', async () => {
      const response = await http.request(`${base()}/domains/evil.com`, {
        method: 'POST',
        headers: { 'x-apikey': KEY },
      });
      expect(response.status).toBe(400);
      expect(JSON.parse(response.body).error.code).toBe('BadRequestError');
    });

    it('answers an invalid domain, IP address or hash with InvalidArgumentError', async () => {
      for (const path of ['/domains/not_a_domain', '/ip_addresses/300.1.1.1', '/files/abc123']) {
        const response = await http.request(`${base()}${path}`, { headers: { 'x-apikey': KEY } });
        expect(response.status).toBe(400);
        expect(JSON.parse(response.body).error.code).toBe('InvalidArgumentError');
      }
    });

    it('finds no URL for a padded or standard-alphabet identifier', async () => {
      for (const id of [`${URL_ID}==`, URL_ID.replace('-', '+')]) {
        const response = await http.request(`${base()}/urls/${encodeURIComponent(id)}`, {
          headers: { 'x-apikey': KEY },
        });
        expect(response.status).toBe(404);
        expect(JSON.parse(response.body).error.code).toBe('NotFoundError');
      }
    });
  });
});
