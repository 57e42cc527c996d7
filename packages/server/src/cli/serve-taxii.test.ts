// The quick start over TAXII: `threatlib serve` (what `./dev start` runs) serves TAXII 2.1 at /taxii2/ with the REST
// API's bearer token, and its indicators collection holds the threats its scans concluded.
import { tmpdir } from 'node:os';
import { expect, it } from 'vitest';
import { EXIT, runCli } from './main.js';

const TOKEN = 'serve-taxii-token-0123456789abcdef';
const TAXII = 'application/taxii+json;version=2.1';

it('threatlib serve: TAXII discovery at /taxii2/ with the same token; the indicators collection holds concluded threats', async () => {
  let stop!: () => void;
  const stopped = new Promise<void>((resolve) => {
    stop = resolve;
  });
  let out = '';
  let announced!: () => void;
  const ready = new Promise<void>((resolve) => {
    announced = resolve;
  });
  const done = runCli(['serve', '--port', '0'], {
    out: (text) => {
      out += text;
      if (/listening on http:\/\/[\d.:]+/.test(out) && out.includes('TAXII')) announced();
    },
    err: () => {},
    env: { THREATLIB_API_TOKEN: TOKEN },
    cwd: tmpdir(),
    stopSignal: stopped,
  });
  try {
    await ready;
    const base = /listening on (http:\/\/[\d.:]+)/.exec(out)?.[1];
    const headers = { authorization: `Bearer ${TOKEN}`, accept: TAXII };
    expect((await fetch(`${base}/taxii2/`, { headers: { accept: TAXII } })).status).toBe(401);
    const discovery = await fetch(`${base}/taxii2/`, { headers });
    expect(discovery.status).toBe(200);
    const { api_roots: roots } = (await discovery.json()) as { api_roots: string[] };
    expect(roots).toEqual([`${base}/taxii2/threatlib/`]);

    const scan = await fetch(`${base}/api/v1/threats/scan`, {
      method: 'POST',
      headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
      body: JSON.stringify({ indicator: '45.148.10.240' }),
    });
    expect(await scan.json()).toMatchObject({ isThreat: true });
    const collections = (await (await fetch(`${roots[0]}collections/`, { headers })).json()) as {
      collections: Array<{ id: string; alias: string }>;
    };
    const indicators = collections.collections.find((c) => c.alias === 'indicators');
    const page = (await (await fetch(`${roots[0]}collections/${indicators?.id}/objects/`, { headers })).json()) as {
      objects: Array<{ type: string; pattern?: string }>;
    };
    expect(page.objects.filter((o) => o.type === 'indicator').map((o) => o.pattern)).toEqual([
      "[ipv4-addr:value = '45.148.10.240']",
    ]);
  } finally {
    stop();
  }
  expect(await done).toBe(EXIT.ok);
});
