// The independent implementations the TAXII interoperability tests run against, from PyPI: medallion (the OASIS
// reference TAXII 2.1 server) and taxii2-client (the reference client), through e2e/tools/taxii-interop.sh, and the
// OASIS STIX validators through e2e/tools/stix-validators.sh. Both install their tools, pinned, into .cache/ on first
// use. Tests skip with the reason when THREATLIB_E2E is unset, and fail loudly when it is set and a tool cannot be
// installed.
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describeWithTools, runOasisValidators, runTool, toolScript } from '@threatlib/test-utils/python-tools';

const TAXII_TOOLS = toolScript('taxii-interop.sh');

/**
 * `describe` for tests that need the Python tools: skipped with a message when `THREATLIB_E2E` is unset; when it is
 * set, both tool sets are installed first (a few seconds once, then nothing) and a failed install fails the tests.
 */
export function describeWithTaxiiTools(title: string, body: () => void): void {
  describeWithTools(
    title,
    {
      needs: 'medallion, taxii2-client and the OASIS STIX validators',
      scripts: [TAXII_TOOLS, toolScript('stix-validators.sh')],
    },
    body,
  );
}

/** What taxii2-client did (see e2e/tools/taxii_client.py). */
export interface TaxiiClientResult {
  discovery: { title: string; api_roots: string[] };
  collections: Array<{ id: string; alias: string; can_read: boolean; can_write: boolean }>;
  pages?: string[][];
  objects?: Array<Record<string, unknown> & { id: string; type: string }>;
  manifest_count?: number;
  status?: Record<string, unknown> & { id: string; status: string };
  status_again?: Record<string, unknown>;
}

/** Runs taxii2-client against `url` (a discovery URL) as `request` says; rejects with its error when it fails. */
export async function taxii2Client(request: {
  url: string;
  token?: string;
  collection: string;
  read?: { per_request: number };
  add?: { objects: unknown[] };
}): Promise<TaxiiClientResult> {
  const { code, stdout, stderr } = await runTool(TAXII_TOOLS, ['client'], JSON.stringify(request));
  if (code !== 0) throw new Error(`taxii2-client failed (exit ${code}):\n${stderr.slice(-4000)}`);
  return JSON.parse(stdout) as TaxiiClientResult;
}

/** What stix2-validator said about a bundle (every SHOULD an error, as e2e/tools/stix_validate.py runs it). */
export async function validateStixBundle(bundle: unknown): Promise<{ valid: boolean; errors: string[] }> {
  const [verdict] = (await runOasisValidators({ bundles: [bundle] })).bundles;
  if (!verdict) throw new Error('e2e/tools/stix-validators.sh answered no verdict for the bundle');
  return { valid: verdict.valid, errors: verdict.errors };
}

/** A medallion server started by {@link startMedallion}. */
export interface Medallion {
  /** The API root's URL (`http://127.0.0.1:<port>/api1/`). */
  apiRoot: string;
  /** The id of its writable, readable collection. */
  collection: string;
  user: string;
  password: string;
  close(): Promise<void>;
}

const COLLECTION = '365fed99-08fa-fdcd-a1b3-fb247eb41d01';

/**
 * Starts medallion (memory back end) on a free loopback port, with one API root (`api1`) whose one collection holds
 * `objects`, each with a manifest entry added at `date_added` (the first object's, then a second apart). Basic
 * authentication with a user of its own.
 */
export async function startMedallion(
  objects: readonly Record<string, unknown>[],
  firstAdded: number,
): Promise<Medallion> {
  const port = await freePort();
  const directory = mkdtempSync(join(tmpdir(), 'threatlib-medallion-'));
  const apiRoot = `http://127.0.0.1:${port}/api1/`;
  const manifest = objects.map((object, i) => ({
    id: object.id,
    date_added: `${new Date(firstAdded + i * 1000).toISOString().slice(0, 19)}.000000Z`,
    version: object.modified,
    media_type: 'application/stix+json;version=2.1',
  }));
  writeFileSync(
    join(directory, 'data.json'),
    JSON.stringify({
      '/discovery': { title: 'medallion for threatlib', default: apiRoot, api_roots: [apiRoot] },
      api1: {
        information: {
          title: 'threatlib interop',
          versions: ['application/taxii+json;version=2.1'],
          max_content_length: 9765625,
        },
        status: [],
        collections: [
          {
            id: COLLECTION,
            title: 'indicators',
            can_read: true,
            can_write: true,
            media_types: ['application/stix+json;version=2.1'],
            objects,
            manifest,
          },
        ],
      },
    }),
  );
  const user = 'threatlib';
  const password = 'interop-pa55word';
  writeFileSync(
    join(directory, 'config.json'),
    JSON.stringify({
      backend: {
        module: 'medallion.backends.memory_backend',
        module_class: 'MemoryBackend',
        filename: join(directory, 'data.json'),
      },
      users: { [user]: password },
      taxii: { max_page_size: 100 },
    }),
  );
  const child: ChildProcess = spawn('bash', [TAXII_TOOLS, 'medallion', String(port), join(directory, 'config.json')], {
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr?.setEncoding('utf8').on('data', (chunk) => {
    stderr += chunk;
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const authorization = `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`;
  const deadline = Date.now() + 30_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`medallion exited with ${child.exitCode}:\n${stderr.slice(-3000)}`);
    try {
      const response = await fetch(`http://127.0.0.1:${port}/taxii2/`, {
        headers: { authorization, accept: 'application/taxii+json;version=2.1' },
      });
      if (response.ok) break;
    } catch {
      // Not listening yet.
    }
    if (Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`medallion did not answer within 30 s:\n${stderr.slice(-3000)}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return {
    apiRoot,
    collection: COLLECTION,
    user,
    password,
    async close() {
      // The script execs medallion, so the child is the server itself.
      child.kill('SIGTERM');
      await Promise.race([exited, new Promise((resolve) => setTimeout(resolve, 5000))]);
      if (child.exitCode === null) child.kill('SIGKILL');
    },
  };
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}
