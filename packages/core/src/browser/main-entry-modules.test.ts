// What a page loads with `import { ThreatClient } from '@threatlib/core'` and what it loads only on first use (issue
// 24, point 8: a size budget of 120 KiB gzip without the argon2 implementation, measured by `pnpm bench:browser`).
// These check the causes of that figure a bundler can see, with esbuild for the browser (e2e/browser/node-imports.ts):
// large code that only some uses need is behind an `import()`, and zod is imported so that a bundler keeps only the
// parts of it core uses.
import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { modulesOf } from '../../../../e2e/browser/node-imports.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const SRC = fileURLToPath(new URL('..', import.meta.url));

/** Core's source files (tests aside) whose text matches `pattern`, relative to src/. */
function sourcesMatching(pattern: RegExp): string[] {
  return readdirSync(SRC, { recursive: true, encoding: 'utf8' })
    .filter((file) => /\.ts$/.test(file) && !/\.(test|test-suite|bench)\.ts$|__fixtures__/.test(file))
    .filter((file) => pattern.test(readFileSync(`${SRC}/${file}`, 'utf8')))
    .sort();
}

describe("core's main entry bundled for the browser: what loads on first use", () => {
  it('keeps the argon2 implementations out of what the import loads, reachable on first derivation', {
    timeout: 60_000,
  }, async () => {
    const { all, atImport } = await modulesOf("export * from './src/index.ts';", ROOT);
    const argon2 = /node_modules\/(@noble\/hashes\/argon2\.js|hash-wasm\/)/;
    expect(atImport.filter((file) => argon2.test(file))).toEqual([]);
    expect(all.filter((file) => argon2.test(file)).length).toBeGreaterThan(0);
  });

  it('keeps oauth4webapi out of what the import loads, reachable at the first token request', {
    timeout: 60_000,
  }, async () => {
    const { all, atImport } = await modulesOf("export * from './src/index.ts';", ROOT);
    const oauth = /node_modules\/oauth4webapi\//;
    expect(atImport.filter((file) => oauth.test(file))).toEqual([]);
    expect(all.filter((file) => oauth.test(file)).length).toBeGreaterThan(0);
  });
});

describe('zod in a bundle', () => {
  // Zod 4's `z` object holds every API and every locale: `import { z }` keeps all of them in a bundle, while the
  // module namespace (`import * as z`) lets a bundler drop what is not used.

  it('is imported as a namespace by every source file', () => {
    expect(sourcesMatching(/import (type )?\{[^}]*\bz\b[^}]*\} from 'zod'/)).toEqual([]);
  });

  it("keeps no locale of zod's but English in a bundle of every core module that imports zod", {
    timeout: 60_000,
  }, async () => {
    const users = sourcesMatching(/from 'zod'/);
    expect(users.length).toBeGreaterThan(20);
    const source = users.map((file, i) => `export * as m${i} from './src/${file}';`).join('\n');
    const { all } = await modulesOf(source, ROOT);
    expect(all.filter((file) => /node_modules\/.*zod\//.test(file)).length).toBeGreaterThan(0);
    // English, zod's default error messages, is the one locale core uses.
    expect(all.filter((file) => /zod\/v4\/locales\/(?!en\.js)/.test(file))).toEqual([]);
  });
});
