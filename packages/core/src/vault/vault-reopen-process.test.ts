import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ThreatClient } from '../client/threat-client.js';
import { silentLogger } from '../logging/logger.js';
import type { VaultEnvelope } from './envelope.js';
import { runSourceChild, writeSourceChild } from './source-child.test-suite.js';

const OPEN_VAULT = `
const { client, vault } = await ThreatClient.openVault(process.argv[2], process.env.VAULT_PASSWORD, {
  clientOptions: { env: false, logger: silentLogger },
});
process.stdout.write(JSON.stringify({ pid: process.pid, keys: vault.keys(), kdf: vault.kdf, otx: vault.get('feed_otx'), sources: client.sources }));
await client.stop();
`;

let dir: string;
let child: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'threatlib-vault-process-'));
  child = await writeSourceChild(dir, 'open-vault.mjs', OPEN_VAULT);
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('a vault file outlives its process', () => {
  it('made with pbkdf2 and 100000 iterations, it reopens in a new Node.js process', async () => {
    const path = join(dir, 'keys.vault');
    const password = 'a password typed in another process';
    const { client, vault } = await ThreatClient.createVault(
      password,
      { feed_otx: 'otx-key-for-the-child-process', feed_scan: 'vt-key-for-the-child-process' },
      {
        keyDerivation: 'pbkdf2',
        iterations: 100_000,
        path,
        clientOptions: { env: false, logger: silentLogger },
      },
    );
    await vault.save();
    await client.stop();
    expect((JSON.parse(await readFile(path, 'utf8')) as VaultEnvelope).kdf).toMatchObject({
      algorithm: 'pbkdf2',
      iterations: 100_000,
    });

    const opened = await runSourceChild(process.execPath, child, [path], { VAULT_PASSWORD: password });
    expect(opened.pid).not.toBe(process.pid);
    expect(opened).toMatchObject({
      keys: ['feed_otx', 'feed_scan'],
      kdf: { algorithm: 'pbkdf2', hash: 'sha256', iterations: 100_000 },
      otx: 'otx-key-for-the-child-process',
      sources: ['feed_otx', 'feed_scan'],
    });
  }, 60_000);
});
