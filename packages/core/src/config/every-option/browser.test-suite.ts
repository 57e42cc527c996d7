// The checks of every-option.test.ts for what acts in a page: `browser`, `storage` and `pwa`.
import { vi } from 'vitest';
import { ManualClock } from '../../scheduler/clock.js';
import { configWith, failed, IP } from '../option-checks.test-suite.js';
import type { ThreatConfig } from '../schema.js';
import { type Check, effect, elsewhere } from './check.test-suite.js';
import { dead, h, hook, START, statuses } from './world.test-suite.js';

/** The requests that reached the `hook` recorder (standing for a CORS proxy) during one scout of `indicator`. */
async function proxied(config: ThreatConfig, indicator: string) {
  const before = hook.requests.length;
  await h.client(config).client.scout(indicator);
  return hook.requests.slice(before);
}

/** What a page's `localStorage` holds after one scout of `IP` (a stand-in over a Map, as Node.js has none). */
async function pageStorage(config: ThreatConfig): Promise<Map<string, string>> {
  const map = new Map<string, string>();
  vi.stubGlobal('localStorage', {
    get length() {
      return map.size;
    },
    key: (index: number) => [...map.keys()][index] ?? null,
    getItem: (key: string) => map.get(key) ?? null,
    setItem: (key: string, value: string) => void map.set(key, String(value)),
    removeItem: (key: string) => void map.delete(key),
  });
  try {
    const { client } = h.client(configWith(config, { caching: { enabled: true } }));
    await client.scout(IP);
    await client.stop();
    return map;
  } finally {
    vi.unstubAllGlobals();
  }
}

/** One check per option of `browser`, `storage` and `pwa`. */
export const BROWSER_CHECKS: Record<string, Check> = {
  'browser.corsProxy': effect(
    () => ({ sources: ['feed_urls'], browser: { corsProxy: `${hook.url}/` } }),
    async (c) => proxied(c, IP),
    () => ({ sources: ['feed_urls'], apiKeys: { feed_urls: { endpoint: `http://127.0.0.1:${dead}/v1` } } }),
  ),
  'browser.proxy.headers': effect(
    { browser: { proxy: { headers: { 'x-proxy-token': 'page-token' } } } },
    async (c) => (await proxied(c, IP)).map((r) => r.headers['x-proxy-token'] ?? null),
    () => ({ sources: ['feed_urls'], browser: { corsProxy: `${hook.url}/` } }),
  ),
  'browser.proxy.addsKeys': effect(
    { browser: { proxy: { addsKeys: true } } },
    async (c) => (await proxied(c, IP)).length,
    () => ({ sources: ['feed_otx'], browser: { corsProxy: `${hook.url}/` } }),
  ),
  'browser.fallbackMode': effect({ browser: { fallbackMode: 'demo' } }, (c) => statuses(c, () => {}, '198.51.100.23'), {
    sources: ['feed_otx'],
  }),
  'browser.offlineRetention': effect(
    { browser: { offlineRetention: 3_600_000 } },
    async (c) => {
      const clock = new ManualClock(START);
      const { client, probe } = h.client(c, { clock });
      await client.scout(IP);
      await clock.advance(24 * 3_600_000);
      probe.answer = () => failed('error', { message: 'probe unreachable', network: true });
      return (await client.scout(IP)).results.map((r) => r.source ?? r.status);
    },
    { browser: { fallbackMode: 'offline' }, caching: { enabled: true } },
  ),
  'browser.secureContext': effect({ browser: { secureContext: false } }, async (c) => {
    vi.stubGlobal('isSecureContext', false);
    try {
      h.client(c);
      return 'accepted';
    } catch (error) {
      return (error as Error).name;
    } finally {
      vi.unstubAllGlobals();
    }
  }),
  'storage.type': effect({ storage: { type: 'localstorage' } }, async (c) => [...(await pageStorage(c)).keys()]),
  'storage.dbName': effect(
    { storage: { dbName: 'other-page' } },
    async (c) => [...(await pageStorage(c)).keys()].map((key) => key.split('/')[0]),
    { storage: { type: 'localstorage' } },
  ),
  'storage.version': effect({ storage: { version: 3 } }, async (c) => (await pageStorage(c)).get('threatlib#version'), {
    storage: { type: 'localstorage' },
  }),
  'storage.encryptionKey': effect(
    { storage: { encryptionKey: 'a page passphrase' } },
    async (c) => [...(await pageStorage(c)).keys()].some((key) => key.includes('feed_probe')),
    { storage: { type: 'localstorage' } },
  ),
  // The client has no page: the served dashboard's page carries the mounted client's `pwa` for its worker.
  ...Object.fromEntries(
    ['enabled', 'cacheStrategy', 'offlineData', 'syncOnReconnect'].map((option) => [
      `pwa.${option}`,
      elsewhere('packages/server/src/routes/dashboard-routes.test.ts', 'config.pwa', `${option}:`),
    ]),
  ),
};
