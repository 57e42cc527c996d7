// A vitest browser command (vitest.browser.config.ts) that lets a page's test hand a vault to Node.js and take one
// back: Node.js makes a vault (and returns its file's text) or opens one the page made (and returns its keys), each
// in a Node.js process of its own running this package's source, as a user's Node.js program would.
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { BrowserCommand } from 'vitest/node';
import { runSourceChild, writeSourceChild } from './source-child.test-suite.js';

// createVault / openVault with default options, through ThreatClient as a Node.js user would.
const CHILD = `
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
process.stdout.write(JSON.stringify({ kdf: vault.kdf, keys }));
`;

/** What the page asks Node.js to do with a vault. */
type NodeVaultRequest =
  | { mode: 'create'; password: string; keys: Record<string, string> }
  | { mode: 'open'; password: string; file: string };

/** What Node.js answers: the vault file's text (when it made it), its KDF and its keys as Node.js reads them. */
interface NodeVaultReply {
  file: string;
  kdf: Record<string, unknown>;
  keys: Record<string, string>;
}

/** The `nodeVault` command: see the file's header. */
export const nodeVault: BrowserCommand<[request: NodeVaultRequest]> = async (_context, request) => {
  const dir = await mkdtemp(join(tmpdir(), 'threatlib-node-vault-'));
  try {
    const child = await writeSourceChild(dir, 'vault.mjs', CHILD);
    const path = join(dir, 'keys.vault');
    if (request.mode === 'open') await writeFile(path, request.file, 'utf8');
    const env: Record<string, string> = { VAULT_PASSWORD: request.password };
    if (request.mode === 'create') env.VAULT_KEYS = JSON.stringify(request.keys);
    const answer = await runSourceChild(process.execPath, child, [request.mode, path], env);
    return { file: await readFile(path, 'utf8'), ...answer } as NodeVaultReply;
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
};
