// The vault of ../shared/INTERFACE.md: the static `createVault(password, apiKeys, vaultOptions)` resolving to an
// object with `trojan` (the client) and `vault` (sections 1, 4.2 and 5), locking after `lockTimeout` when `autoLock`
// is true (section 3) and the `vaultLocked` event (6.1). Besides the documented options, `config` gives the client
// the feed emulator's plain-HTTP addresses (`security.enforceHttps: false`), as every example here must.
import { ThreatClient } from '@threatlib/core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { type EmulatedFeeds, eventually, startEmulatedFeeds } from './support.js';

const PASSWORD = 'correct horse battery staple';

let feeds: EmulatedFeeds;
const clients: ThreatClient[] = [];

beforeAll(async () => {
  feeds = await startEmulatedFeeds();
});

afterEach(async () => {
  await Promise.all(clients.splice(0).map((client) => client.stop()));
});

afterAll(async () => {
  await feeds?.emulator.close();
});

/** The request a feed received about an indicator, with the key it carried in its vendor's header. */
const keySent = (feed: string, indicator: string, header: string) =>
  feeds.emulator.requests.find((request) => request.feed === feed && request.indicator === indicator)?.headers[header];

describe('4.2 createVault(password, apiKeys, vaultOptions)', () => {
  it('resolves to {trojan, vault}: trojan is the client, and its feeds take their keys from the vault', async () => {
    const { trojan, vault } = await ThreatClient.createVault(
      PASSWORD,
      {
        feed_otx: { key: 'otx-vault-key', endpoint: feeds.emulator.endpoints.feed_otx },
        feed_abuse: { key: 'abuse-vault-key', endpoint: feeds.emulator.endpoints.feed_abuse },
      },
      {
        autoLock: true,
        lockTimeout: 300000,
        rotationEnabled: true,
        rotationInterval: 86400000,
        config: { security: { enforceHttps: false }, logging: { enabled: false } },
      },
    );
    clients.push(trojan);

    expect(trojan).toBeInstanceOf(ThreatClient);
    expect(vault.isLocked).toBe(false);
    expect(vault.keys().sort()).toEqual(['feed_abuse', 'feed_otx']);
    // No key in clear in the client's configuration: the vault holds them.
    expect(JSON.stringify(trojan.config)).not.toContain('vault-key');

    await trojan.scout('198.51.100.91');
    expect(keySent('feed_otx', '198.51.100.91', 'x-otx-api-key')).toBe('otx-vault-key');
    expect(keySent('feed_abuse', '198.51.100.91', 'key')).toBe('abuse-vault-key');
  });

  it('rotates every rotationInterval when rotationEnabled, and the keys keep working', async () => {
    const { trojan, vault } = await ThreatClient.createVault(
      PASSWORD,
      { feed_otx: { key: 'otx-vault-key', endpoint: feeds.emulator.endpoints.feed_otx } },
      {
        autoLock: true,
        lockTimeout: 300000,
        rotationEnabled: true,
        rotationInterval: 500,
        config: { security: { enforceHttps: false }, logging: { enabled: false } },
      },
    );
    clients.push(trojan);
    const created = vault.rotatedAt;
    await eventually(() => vault.rotatedAt !== created, 'a rotation', 15_000);

    await trojan.scout('198.51.100.92');
    expect(keySent('feed_otx', '198.51.100.92', 'x-otx-api-key')).toBe('otx-vault-key');
  });
});

describe('3 and 6.1 vault locking', () => {
  it('locks itself after lockTimeout when autoLock is true, calling vaultLocked; not when autoLock is false', async () => {
    const kept = await ThreatClient.createVault(
      PASSWORD,
      { feed_otx: { key: 'otx-vault-key', endpoint: feeds.emulator.endpoints.feed_otx } },
      {
        autoLock: false,
        lockTimeout: 300,
        config: { security: { enforceHttps: false }, logging: { enabled: false } },
      },
    );
    clients.push(kept.trojan);

    let locked = 0;
    const { trojan, vault } = await ThreatClient.createVault(
      PASSWORD,
      { feed_otx: { key: 'otx-vault-key', endpoint: feeds.emulator.endpoints.feed_otx } },
      {
        autoLock: true,
        lockTimeout: 300,
        rotationEnabled: false,
        config: {
          security: { enforceHttps: false },
          logging: { enabled: false },
          events: {
            vaultLocked: () => {
              locked += 1;
            },
          },
        },
      },
    );
    clients.push(trojan);

    await eventually(() => locked === 1, 'vaultLocked', 10_000);
    expect(vault.isLocked).toBe(true);
    // A locked vault hands out no key: the lookup is refused before any request is sent.
    await expect(trojan.scout('198.51.100.93')).rejects.toThrow(/locked/i);
    expect(feeds.emulator.count('feed_otx', '198.51.100.93')).toBe(0);
    // The vault made first, with autoLock false, has been idle longer and is still open.
    expect(kept.vault.isLocked).toBe(false);

    await vault.unlock(PASSWORD);
    await trojan.scout('198.51.100.93');
    expect(keySent('feed_otx', '198.51.100.93', 'x-otx-api-key')).toBe('otx-vault-key');
  });
});
