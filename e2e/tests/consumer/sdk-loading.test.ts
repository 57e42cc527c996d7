// Importing a package loads only what every user of it needs: the vendors' SDKs (optional peer dependencies of
// @threatlib/siem and @threatlib/cloud) are loaded by the platform that uses them, when it is constructed. A Node
// process records every module it resolves (module.registerHooks sees both import and require) while it imports the
// package's main entry, then while it constructs one platform, which must load that platform's SDK and no other.
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { run } from './consumer-project.js';

const E2E = fileURLToPath(new URL('../../', import.meta.url));

const SDKS = {
  '@elastic/elasticsearch': /\/node_modules\/@elastic\/elasticsearch\//,
  '@azure/*': /\/node_modules\/@azure\//,
  'google-auth-library': /\/node_modules\/google-auth-library\//,
  '@aws-sdk/*': /\/node_modules\/@aws-sdk\//,
};
type Sdk = keyof typeof SDKS;

/**
 * The SDKs a process loaded importing `entry`, then running `construct` (a module body with `entry`'s exports in
 * `api`).
 */
async function loadedSdks(entry: string, construct: string): Promise<{ onImport: Sdk[]; onConstruct: Sdk[] }> {
  const script = `
    import { registerHooks } from 'node:module';
    const resolved = new Set();
    registerHooks({
      resolve(specifier, context, nextResolve) {
        const result = nextResolve(specifier, context);
        resolved.add(result.url);
        return result;
      },
    });
    const api = await import(process.env.ENTRY);
    const onImport = [...resolved];
    ${construct}
    console.log(JSON.stringify({ onImport, onConstruct: [...resolved] }));`;
  const outcome = await run(process.execPath, ['--input-type=module', '-e', script], {
    cwd: E2E,
    env: { ...process.env, ENTRY: entry },
    timeoutMs: 60_000,
  });
  expect(outcome.code, outcome.stderr).toBe(0);
  const urls = JSON.parse(outcome.stdout) as { onImport: string[]; onConstruct: string[] };
  const sdks = (list: string[]) =>
    (Object.keys(SDKS) as Sdk[]).filter((sdk) => list.some((url) => SDKS[sdk].test(url.replaceAll('\\', '/'))));
  return { onImport: sdks(urls.onImport), onConstruct: sdks(urls.onConstruct) };
}

describe('importing a package loads no vendor SDK; constructing a platform loads its own', () => {
  it('@threatlib/siem: none on import; siem_c (Elastic) loads @elastic/elasticsearch only', async () => {
    const loaded = await loadedSdks(
      '@threatlib/siem',
      `new api.SIEMConnector({ platform: 'siem_c', host: '127.0.0.1', credentials: { username: 'u', password: 'p' } });`,
    );
    expect(loaded).toEqual({ onImport: [], onConstruct: ['@elastic/elasticsearch'] });
  });

  it('@threatlib/siem: siem_a (Splunk) loads none', async () => {
    const loaded = await loadedSdks(
      '@threatlib/siem',
      `new api.SIEMConnector({ platform: 'siem_a', host: '127.0.0.1', credentials: { username: 'u', password: 'p' } });`,
    );
    expect(loaded).toEqual({ onImport: [], onConstruct: [] });
  });

  it('@threatlib/cloud: none on import; CloudIntegration (AWS) loads the AWS SDK only', async () => {
    const loaded = await loadedSdks(
      '@threatlib/cloud',
      `await new api.CloudIntegration({ region: 'us-east-1' }).stop();`,
    );
    expect(loaded).toEqual({ onImport: [], onConstruct: ['@aws-sdk/*'] });
  });
});
