// Browser storage in Chromium (issue 24, point 4): core's cache and alert store compliance suites against IndexedDB,
// localStorage and memory, plain and encrypted; what a dump of IndexedDB and localStorage holds with an
// encryptionKey; reloads (a new connection), version upgrades and a wrong key.
import { openDB } from 'idb';
import { afterAll, describe, expect, it } from 'vitest';
import { alertStoreCompliance } from '../alerts/alert-store.test-suite.js';
import { cacheComplianceSuite } from '../cache/cache.test-suite.js';
import { BrowserAlertStore } from './browser-alert-store.js';
import { BrowserCache } from './browser-cache.js';
import type { BrowserStorageType } from './browser-storage-options.js';

const made: string[] = [];
let counter = 0;
/** A database name no other test uses. */
function freshName(): string {
  const name = `threatlib-test-${Date.now().toString(36)}-${(counter++).toString(36)}`;
  made.push(name);
  return name;
}

afterAll(async () => {
  for (const name of made) indexedDB.deleteDatabase(name);
  localStorage.clear();
});

/** A clock that starts at a realistic time and moves only when a test says so. */
function fakeClock() {
  let now = Date.parse('2025-06-01T12:00:00Z');
  return {
    now: () => now,
    advance: (ms: number) => {
      now += ms;
    },
  };
}

// Low PBKDF2 cost for the suites, which open hundreds of databases; the default (600,000) is checked once below.
const ENCRYPTED = { encryptionKey: 'a storage key, not a real secret', keyDerivationIterations: 1000 };
const TYPES: BrowserStorageType[] = ['indexeddb', 'localstorage', 'memory'];

for (const type of TYPES) {
  for (const encrypted of [false, true]) {
    const label = `${type}${encrypted ? ', encrypted' : ''}`;
    describe(`cache compliance: browser ${label}`, () =>
      cacheComplianceSuite(`browser ${label}`, async () => {
        const clock = fakeClock();
        const options = { type, dbName: freshName(), now: clock.now, ...(encrypted ? ENCRYPTED : {}) };
        return { cache: new BrowserCache(options), advance: clock.advance };
      }));
    describe(`alert store compliance: browser ${label}`, () =>
      alertStoreCompliance(
        () => new BrowserAlertStore({ type, dbName: freshName(), ...(encrypted ? ENCRYPTED : {}) }),
      ));
  }
}

/** Every record of every object store of IndexedDB database `name`, and every localStorage item, as text. */
async function dump(name: string): Promise<string> {
  const db = await openDB(name);
  const parts: string[] = [];
  for (const store of db.objectStoreNames) {
    const keys = await db.getAllKeys(store);
    const values = await db.getAll(store);
    parts.push(store, JSON.stringify(keys), JSON.stringify(values));
  }
  db.close();
  for (let i = 0; i < localStorage.length; i++) {
    const key = localStorage.key(i) as string;
    parts.push(key, localStorage.getItem(key) as string);
  }
  return parts.join('\n');
}

const INDICATOR = '198.51.100.77';
const VERDICT = { verdict: 'malicious', evidence: ['seen in 3 pulses by feed_otx'] };

describe('browser storage with an encryptionKey', () => {
  for (const type of ['indexeddb', 'localstorage'] as const) {
    it(`${type}: a dump holds no indicator, verdict or alert in clear, and a reload reads them back`, async () => {
      localStorage.clear();
      const dbName = freshName();
      const options = { type, dbName, encryptionKey: 'correct horse battery staple' };
      const cache = new BrowserCache(options);
      await cache.set(`feed_otx:ipv4:${INDICATOR}`, VERDICT, 3_600_000);
      const alerts = new BrowserAlertStore(options);
      const alert = await alerts.add({
        title: `Malicious IP ${INDICATOR}`,
        severity: 'high',
        indicators: [{ type: 'ip', value: INDICATOR, confidence: 90 }],
      });
      await Promise.all([cache.close(), alerts.close()]);

      const text = type === 'indexeddb' ? await dump(dbName) : await dump(freshName());
      expect(text.length).toBeGreaterThan(100);
      for (const secret of [INDICATOR, 'malicious', 'pulses', 'Malicious IP', alert.id, 'correct horse']) {
        expect(text).not.toContain(secret);
      }

      // A reload: new objects, new connections, the same key.
      const reopened = new BrowserCache(options);
      expect((await reopened.get(`feed_otx:ipv4:${INDICATOR}`))?.value).toEqual(VERDICT);
      const reopenedAlerts = new BrowserAlertStore(options);
      expect(await reopenedAlerts.get(alert.id)).toEqual(alert);
      await Promise.all([reopened.close(), reopenedAlerts.close()]);

      // Another key is refused with a clear error, not read as misses.
      const wrong = new BrowserCache({ ...options, encryptionKey: 'another key' });
      await expect(wrong.start()).rejects.toThrow(/written with another encryptionKey/);
      await wrong.close();
    });
  }

  it('derives with 600,000 PBKDF2 iterations by default, and keeps a database at the count it was made with', async () => {
    const dbName = freshName();
    const cache = new BrowserCache({ dbName, encryptionKey: 'k' });
    await cache.set('a', 1, 60_000);
    await cache.close();
    const db = await openDB(dbName);
    const record = JSON.parse((await db.get('meta', 'encryption')) as string) as { iterations: number };
    db.close();
    expect(record.iterations).toBe(600_000);
    const again = new BrowserCache({ dbName, encryptionKey: 'k', keyDerivationIterations: 1000 });
    expect((await again.get('a'))?.value).toBe(1);
    await again.close();
  }, 30_000);

  it('a value moved under another key does not decrypt: a miss, and removed', async () => {
    const dbName = freshName();
    const cache = new BrowserCache({ dbName, ...ENCRYPTED });
    await cache.set('a', 'value of a', 60_000);
    await cache.set('b', 'value of b', 60_000);
    await cache.close();
    const db = await openDB(dbName);
    const keys = (await db.getAllKeys('cache')) as string[];
    const [first, second] = keys as [string, string];
    await db.put('cache', await db.get('cache', first), second);
    db.close();
    const reopened = new BrowserCache({ dbName, ...ENCRYPTED });
    const values = [(await reopened.get('a'))?.value, (await reopened.get('b'))?.value];
    expect(values.filter((value) => value === undefined)).toHaveLength(1);
    await reopened.close();
  });
});

describe('browser alert store', () => {
  it('weighs alert metadata in a page (UTF-8 bytes, without Buffer): keeps 60 KB, refuses 80 KB', async () => {
    const store = new BrowserAlertStore({ type: 'memory', dbName: freshName() });
    const kept = { blob: 'é'.repeat(30_000) };
    const alert = await store.add({ title: 'large metadata', severity: 'low', metadata: kept });
    expect((await store.get(alert.id))?.metadata).toEqual(kept);
    await expect(
      store.add({ title: 'too large', severity: 'low', metadata: { blob: 'é'.repeat(40_000) } }),
    ).rejects.toThrow(/at most 65536 bytes as JSON/);
    await store.close();
  });
});

describe('browser storage versions', () => {
  it('indexeddb: a higher version upgrades and keeps the records; a lower one is refused', async () => {
    const dbName = freshName();
    const v1 = new BrowserCache({ dbName, version: 1 });
    await v1.set('k', 'kept', 60_000);
    await v1.close();
    const v3 = new BrowserCache({ dbName, version: 3 });
    expect((await v3.get('k'))?.value).toBe('kept');
    await v3.close();
    const db = await openDB(dbName);
    expect(db.version).toBe(3);
    expect([...db.objectStoreNames].sort()).toEqual(['alerts', 'cache', 'meta']);
    db.close();
    const v2 = new BrowserCache({ dbName, version: 2 });
    await expect(v2.start()).rejects.toThrow(/newer version than the version 2/);
    await v2.close();
  });

  it('localstorage: the same rules', async () => {
    const dbName = freshName();
    const v1 = new BrowserCache({ type: 'localstorage', dbName, version: 1 });
    await v1.set('k', 'kept', 60_000);
    const v2 = new BrowserCache({ type: 'localstorage', dbName, version: 2 });
    expect((await v2.get('k'))?.value).toBe('kept');
    expect(localStorage.getItem(`${dbName}#version`)).toBe('2');
    const old = new BrowserCache({ type: 'localstorage', dbName, version: 1 });
    await expect(old.start()).rejects.toThrow(/version 2, newer than the version 1/);
  });

  it('refuses options that are wrong, naming each', async () => {
    const cache = new BrowserCache({ type: 'websql' as never, dbName: '../x', version: 0 });
    await expect(cache.start()).rejects.toThrow(/storage\.type.*storage\.dbName.*storage\.version/);
  });
});
