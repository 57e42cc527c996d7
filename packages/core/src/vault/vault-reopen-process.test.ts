import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ThreatClient } from '../client/threat-client.js';
import { silentLogger } from '../logging/logger.js';
import type { VaultEnvelope } from './envelope.js';

const run = promisify(execFile);
const SOURCE_INDEX = fileURLToPath(new URL('../index.ts', import.meta.url));

// The child runs this package's source with Node's built-in type stripping (Node 22.18+/23.6+), so the test needs no
// build and can never exercise a stale dist/. Sources import `./x.js` where `./x.ts` is on disk; this hook maps one
// to the other, as tsc does at build time.
const RESOLVE_HOOK = `
export async function resolve(specifier, context, next) {
  try {
    return await next(specifier, context);
  } catch (error) {
    if (error?.code === 'ERR_MODULE_NOT_FOUND' && specifier.startsWith('.') && specifier.endsWith('.js')) {
      return next(specifier.slice(0, -3) + '.ts', context);
    }
    throw error;
  }
}
`;

const CHILD = `
import { register } from 'node:module';
register(new URL('./resolve-ts.mjs', import.meta.url));
const { ThreatClient, silentLogger } = await import(process.argv[2]);
const { client, vault } = await ThreatClient.openVault(process.argv[3], process.env.VAULT_PASSWORD, {
  clientOptions: { env: false, logger: silentLogger },
});
process.stdout.write(JSON.stringify({ pid: process.pid, keys: vault.keys(), kdf: vault.kdf, otx: vault.get('feed_otx'), sources: client.sources }));
await client.stop();
`;

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'threatlib-vault-process-'));
  await writeFile(join(dir, 'resolve-ts.mjs'), RESOLVE_HOOK);
  await writeFile(join(dir, 'open-vault.mjs'), CHILD);
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

    const { stdout } = await run(
      process.execPath,
      ['--disable-warning=ExperimentalWarning', join(dir, 'open-vault.mjs'), SOURCE_INDEX, path],
      { env: { ...process.env, VAULT_PASSWORD: password }, timeout: 60_000 },
    );
    const child = JSON.parse(stdout) as Record<string, unknown>;
    expect(child.pid).not.toBe(process.pid);
    expect(child).toMatchObject({
      keys: ['feed_otx', 'feed_scan'],
      kdf: { algorithm: 'pbkdf2', hash: 'sha256', iterations: 100_000 },
      otx: 'otx-key-for-the-child-process',
      sources: ['feed_otx', 'feed_scan'],
    });
  }, 60_000);
});
