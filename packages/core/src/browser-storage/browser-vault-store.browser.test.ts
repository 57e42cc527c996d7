// The vault in a page's browser storage (issue 24, points 4 and 5): with `storage` in the vault's client
// configuration, ThreatClient.createVault keeps the vault's envelope in IndexedDB, localStorage or the page's memory,
// every change after it too, and ThreatClient.openVault reads it back from a new client, as after a reload. With an
// `encryptionKey`, a dump of IndexedDB and localStorage after scans and createVault holds neither the API key nor
// the indicator in clear. The feeds are the feed emulator's, through the page's corsProxy route
// (feed-proxy.test-suite.ts; interface-examples.browser.test.ts declares its commands).
/// <reference path="../../../../e2e/browser/browser-commands.d.ts" />
import { openDB } from 'idb';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { commands } from 'vitest/browser';
import type { ThreatConfig } from '../config/schema.js';
import { RuntimeUnsupportedError } from '../errors/runtime-unsupported-error.js';
import { ThreatClient, ValidationError, VaultAuthError } from '../index.js';
import type { VaultOptions } from '../vault/vault-options.js';
import type { BrowserStorageType } from './browser-storage-options.js';

const PASSWORD = 'a page password, not a secret';
// Recognizable keys, so that a dump that held one in clear would show it.
const ABUSE_KEY = 'ABUSE-KEY-kept-in-the-page-vault-0123456789';
const OTX_KEY = 'OTX-KEY-kept-in-the-page-vault-9876543210';
// A cheap KDF for the vaults of these tests (the default argon2id is vault.browser.test.ts's).
const FAST_KDF = { keyDerivation: 'pbkdf2', iterations: 1000 } as const;

const clients: ThreatClient[] = [];
const dbNames: string[] = [];
/** A database name no other run uses (IndexedDB outlives a test file in the same browser profile). */
function freshName(label: string): string {
  const name = `${label}-${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 8)}`;
  dbNames.push(name);
  return name;
}

let endpoints: Record<string, string>;
let corsProxy: string;

beforeAll(async () => {
  const feeds = await commands.feeds();
  endpoints = feeds.endpoints;
  corsProxy = `${location.origin}${feeds.proxyPath}`;
});

afterEach(async () => {
  await Promise.all(clients.splice(0).map((client) => client.stop()));
});

afterAll(() => {
  for (const name of dbNames) {
    indexedDB.deleteDatabase(name);
    for (const key of Object.keys(localStorage)) if (key.startsWith(name)) localStorage.removeItem(key);
  }
});

/** Vault options whose client keeps everything in `storage`, with the emulator's feed_abuse through the proxy. */
function vaultOptions(storage: ThreatConfig['storage'], extra: Partial<VaultOptions> = {}): VaultOptions {
  return {
    autoLock: false,
    ...FAST_KDF,
    ...extra,
    config: {
      sources: ['feed_abuse'],
      apiKeys: { feed_abuse: { endpoint: endpoints.feed_abuse } } as ThreatConfig['apiKeys'],
      browser: { corsProxy },
      security: { enforceHttps: false },
      logging: { enabled: false },
      storage,
    },
  };
}

/** Opens the vault `name` of `storage` from a new client, as a page does after a reload; the vault's keys. */
async function reopen(name: string, storage: ThreatConfig['storage'], password = PASSWORD) {
  const { trojan, vault } = await ThreatClient.openVault(name, password, vaultOptions(storage));
  clients.push(trojan);
  return Object.fromEntries(vault.keys().map((feed) => [feed, vault.get(feed)]));
}

/** Every record of every object store of IndexedDB database `name`, and every localStorage item, as text. */
async function dump(name: string): Promise<{ text: string; records: number }> {
  const parts: string[] = [];
  let records = 0;
  if ((await indexedDB.databases()).some((db) => db.name === name)) {
    const db = await openDB(name);
    for (const store of db.objectStoreNames) {
      const keys = await db.getAllKeys(store);
      const values = await db.getAll(store);
      records += keys.length;
      parts.push(store, JSON.stringify(keys), JSON.stringify(values));
    }
    db.close();
  }
  for (let i = 0; i < localStorage.length; i++) {
    const key = localStorage.key(i) as string;
    if (key.startsWith(`${name}/`)) records += 1;
    parts.push(key, localStorage.getItem(key) as string);
  }
  return { text: parts.join('\n'), records };
}

describe('a vault kept in browser storage', () => {
  for (const type of ['indexeddb', 'localstorage'] as const satisfies BrowserStorageType[]) {
    it(`${type}: createVault keeps it, every change too, and a new client opens it with the password`, async () => {
      const storage = { type, dbName: freshName(`vault-${type}`), version: 1 };
      const made = await ThreatClient.createVault(
        PASSWORD,
        { feed_abuse: ABUSE_KEY },
        vaultOptions(storage, { path: 'analyst-keys' }),
      );
      expect(made.vault.path).toBe('analyst-keys');
      made.vault.set('feed_otx', OTX_KEY);
      await made.vault.sealed();
      await made.trojan.stop();
      made.vault.lock();

      // As after a reload: nothing of the first client is used, only the storage's name and the password.
      expect(await reopen('analyst-keys', storage)).toEqual({ feed_abuse: ABUSE_KEY, feed_otx: OTX_KEY });
      await expect(reopen('analyst-keys', storage, `${PASSWORD}!`)).rejects.toSatisfy(VaultAuthError.isInstance);
      await expect(reopen('another-name', storage)).rejects.toThrow(/no vault named "another-name" is kept/);

      // A delete is kept as well; vault.save() writes there rather than refusing.
      const { trojan, vault } = await ThreatClient.openVault('analyst-keys', PASSWORD, vaultOptions(storage));
      clients.push(trojan);
      vault.delete('feed_otx');
      await vault.save();
      expect(await reopen('analyst-keys', storage)).toEqual({ feed_abuse: ABUSE_KEY });

      // A second createVault under the same name would lose the first vault's keys: refused, the first one kept.
      const again = await ThreatClient.createVault(
        PASSWORD,
        { feed_abuse: 'another-key' },
        vaultOptions(storage, { path: 'analyst-keys' }),
      ).catch((error: unknown) => error);
      expect(ValidationError.isInstance(again)).toBe(true);
      expect((again as Error).message).toMatch(/already: open it with ThreatClient\.openVault\("analyst-keys"/);
      expect(await reopen('analyst-keys', storage)).toEqual({ feed_abuse: ABUSE_KEY });
    }, 60_000);
  }

  it('memory: kept for the life of the page, shared by the clients of one dbName, never in IndexedDB or localStorage', async () => {
    const storage = { type: 'memory', dbName: freshName('vault-memory') } as const;
    const { trojan, vault } = await ThreatClient.createVault(
      PASSWORD,
      { feed_abuse: ABUSE_KEY },
      vaultOptions(storage),
    );
    clients.push(trojan);
    expect(vault.path).toBe('vault');
    // Changes in a row, none awaited: each is written after the one before, so the newest is the one kept.
    const more = ['feed_cti', 'feed_scan', 'feed_urls'];
    for (const feed of more) vault.set(feed, `${feed}-key-set-in-a-row`);
    vault.set('feed_otx', OTX_KEY);
    await vault.sealed();
    expect(await reopen('vault', storage)).toEqual({
      feed_abuse: ABUSE_KEY,
      feed_otx: OTX_KEY,
      ...Object.fromEntries(more.map((feed) => [feed, `${feed}-key-set-in-a-row`])),
    });
    await expect(reopen('vault', { ...storage, dbName: freshName('vault-memory-other') })).rejects.toThrow(
      /no vault named "vault" is kept in memory database/,
    );
    expect((await dump(storage.dbName)).records).toBe(0);
  });

  it('without storage, a page refuses vault files, saying to give storage', async () => {
    const options = vaultOptions(undefined as never);
    const { trojan, vault } = await ThreatClient.createVault(PASSWORD, { feed_abuse: ABUSE_KEY }, options);
    clients.push(trojan);
    const saving = await vault.save('keys.vault').catch((error: unknown) => error);
    expect(RuntimeUnsupportedError.isInstance(saving)).toBe(true);
    expect((saving as Error).message).toMatch(/vault files need Node\.js: in a page, give .*`storage`/);
    const opening = await ThreatClient.openVault('keys.vault', PASSWORD, options).catch((error: unknown) => error);
    expect(RuntimeUnsupportedError.isInstance(opening)).toBe(true);
  });
});

describe('with an encryptionKey, after scans and createVault', () => {
  for (const type of ['indexeddb', 'localstorage'] as const satisfies BrowserStorageType[]) {
    it(`${type}: a dump holds neither the API key nor the indicator in clear, and the vault reopens`, async () => {
      localStorage.clear();
      const indicator = type === 'indexeddb' ? '198.51.100.181' : '198.51.100.182';
      await commands.scriptFeeds(indicator, { behaviour: 'malicious', feeds: ['feed_abuse'] });
      const storage = { type, dbName: freshName(`vault-sealed-${type}`), version: 1, encryptionKey: 'a page key' };
      const { trojan, vault } = await ThreatClient.createVault(
        PASSWORD,
        { feed_abuse: ABUSE_KEY },
        vaultOptions(storage, { path: 'soc-vault' }),
      );
      clients.push(trojan);
      expect((await trojan.scout(indicator)).results[0]).toMatchObject({ status: 'ok', verdict: 'malicious' });
      expect(await commands.feedRequests(indicator)).toEqual([{ feed: 'feed_abuse', key: ABUSE_KEY }]);
      await trojan.stop();
      vault.lock();

      const { text, records } = await dump(storage.dbName);
      // The encryption record, the vault and the verdict, at least.
      expect(records).toBeGreaterThanOrEqual(3);
      for (const clear of [ABUSE_KEY, indicator, 'a page key', 'soc-vault', 'threatlib-vault', 'feed_abuse']) {
        expect(text).not.toContain(clear);
      }
      expect(await reopen('soc-vault', storage)).toEqual({ feed_abuse: ABUSE_KEY });
    }, 60_000);
  }
});
