// The encryption record of a browser database (record-sealer.ts) when two stores of one client open the same fresh
// database at once: the verdict cache and the alert store each find no salt, and only one salt may be kept, or the
// records sealed under the other become unreadable after a reload.
import { afterAll, describe, expect, it } from 'vitest';
import { BrowserAlertStore } from './browser-alert-store.js';
import { BrowserCache } from './browser-cache.js';

const made: string[] = [];
let counter = 0;
/** A database name no other test uses. */
function freshName(): string {
  const name = `threatlib-salt-${Date.now().toString(36)}-${(counter++).toString(36)}`;
  made.push(name);
  return name;
}

afterAll(async () => {
  for (const name of made) {
    indexedDB.deleteDatabase(name);
    for (const key of Object.keys(localStorage)) if (key.startsWith(name)) localStorage.removeItem(key);
  }
});

describe('an encrypted browser database opened by the cache and the alert store at once', () => {
  for (const type of ['indexeddb', 'localstorage'] as const) {
    it(`${type}: both stores seal under one salt, and each reads back what it wrote after a reload`, async () => {
      // Several rounds: each is a fresh database, so each is a new chance for the two first opens to interleave.
      for (let round = 0; round < 5; round++) {
        const options = {
          type,
          dbName: freshName(),
          encryptionKey: 'a storage key, not a real secret',
          keyDerivationIterations: 1000,
        };
        const cache = new BrowserCache(options);
        const alerts = new BrowserAlertStore(options);
        // Both first opens start before either has written the encryption record.
        const [, alert] = await Promise.all([
          cache.set('feed_otx:ipv4:198.51.100.7', { verdict: 'malicious' }, 3_600_000),
          alerts.add({ title: 'Malicious IP 198.51.100.7', severity: 'high' }),
        ]);
        await Promise.all([cache.close(), alerts.close()]);

        const cacheAgain = new BrowserCache(options);
        const alertsAgain = new BrowserAlertStore(options);
        expect((await cacheAgain.get('feed_otx:ipv4:198.51.100.7'))?.value).toEqual({ verdict: 'malicious' });
        expect(await alertsAgain.get(alert.id)).toEqual(alert);
        await Promise.all([cacheAgain.close(), alertsAgain.close()]);
      }
    });
  }
});
