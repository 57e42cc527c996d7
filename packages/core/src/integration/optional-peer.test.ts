import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ConfigurationError } from '../errors/configuration-error.js';
import { loadOptionalPeers } from './optional-peer.js';

// An integration installed in `integration` (its manifest declares the peers; nothing is installed beside it) and an
// application in `app` whose node_modules holds what the application installed.
describe('loadOptionalPeers', () => {
  let app: string;
  let integration: string;
  let from: string;
  const cwd = process.cwd();

  async function installIn(root: string, name: string, source: string): Promise<void> {
    const dir = join(root, 'node_modules', name);
    await mkdir(dir, { recursive: true });
    await writeFile(join(dir, 'package.json'), JSON.stringify({ name, version: '2.1.0', main: 'index.js' }));
    await writeFile(join(dir, 'index.js'), source);
  }

  beforeAll(async () => {
    app = await mkdtemp(join(tmpdir(), 'threatlib-app-'));
    integration = await mkdtemp(join(tmpdir(), 'threatlib-integration-'));
    await writeFile(join(app, 'package.json'), JSON.stringify({ name: 'app', private: true }));
    await installIn(app, 'fake-sdk', 'exports.made = "in the application";\n');
    await installIn(app, 'broken-sdk', 'require("not-there-either");\n');
    await mkdir(join(integration, 'dist', 'platforms'), { recursive: true });
    await writeFile(
      join(integration, 'package.json'),
      JSON.stringify({
        name: '@threatlib/fake',
        peerDependencies: { 'fake-sdk': '^2.1.0', 'other-sdk': '>=1 <3' },
        peerDependenciesMeta: { 'fake-sdk': { optional: true }, 'other-sdk': { optional: true } },
      }),
    );
    from = pathToFileURL(join(integration, 'dist', 'platforms', 'fake-platform.js')).href;
  });

  afterEach(() => process.chdir(cwd));

  afterAll(async () => {
    await rm(app, { recursive: true, force: true });
    await rm(integration, { recursive: true, force: true });
  });

  const request = () => ({ from, path: 'platform', neededFor: 'siem_x (Fake)' });

  it('loads a package the calling module resolves', () => {
    const [zod] = loadOptionalPeers<[{ z: unknown }]>(['zod'], { ...request(), from: import.meta.url });
    expect(typeof zod.z).toBe('object');
  });

  it("loads one the module cannot see from the application's directory", () => {
    process.chdir(app);
    const [sdk] = loadOptionalPeers<[{ made: string }]>(['fake-sdk'], request());
    expect(sdk.made).toBe('in the application');
  });

  it('names every missing package, with the ranges the integration declares, in one error', () => {
    process.chdir(integration);
    let error: unknown;
    try {
      loadOptionalPeers(['fake-sdk', 'other-sdk'], request());
    } catch (e) {
      error = e;
    }
    expect(ConfigurationError.isInstance(error)).toBe(true);
    expect((error as Error).message).toBe(
      "Configuration invalid: platform: siem_x (Fake) needs fake-sdk and other-sdk, which are not installed: npm install 'fake-sdk@^2.1.0' 'other-sdk@>=1 <3'",
    );
  });

  it('tells a package that is installed but fails to load from one that is missing', () => {
    process.chdir(app);
    expect(() => loadOptionalPeers(['broken-sdk'], request())).toThrow(
      /^Configuration invalid: platform: siem_x \(Fake\) needs broken-sdk, which is installed but failed to load: Cannot find module 'not-there-either'/,
    );
  });
});
