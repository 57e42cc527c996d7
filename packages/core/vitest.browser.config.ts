import { fileURLToPath } from 'node:url';
import { defineProject } from 'vitest/config';
import { browserTestOptions } from '../../e2e/browser/browser-project.js';
import { feedCommands, feedProxyPlugin } from './src/browser/feed-proxy.test-suite.js';
import { nodeVault } from './src/vault/node-vault-command.test-suite.js';

const test = browserTestOptions(
  'core-browser',
  ['src/**/*.browser.test.ts'],
  fileURLToPath(new URL('.', import.meta.url)),
);
// Core's own command: a page's test hands a vault to Node.js and takes one back (vault.browser.test.ts).
if (test?.browser) test.browser.commands = { ...test.browser.commands, nodeVault };
// The feed emulator, which a page reaches through a corsProxy route of the test server (feed-proxy.test-suite.ts).
if (test?.browser) test.browser.commands = { ...test.browser.commands, ...feedCommands };

// Core's tests that run in a real browser (`*.browser.test.ts`): Debian's Chromium, headless, driven by Playwright
// (e2e/browser/browser-project.ts says how, and what happens when Chromium is missing).
export default defineProject({
  plugins: [feedProxyPlugin()],
  resolve: {
    alias: [
      { find: /^@threatlib\/core$/, replacement: fileURLToPath(new URL('./src/index.ts', import.meta.url)) },
      // Each runtime's module that package.json `imports` chooses, from source: the page's here.
      {
        find: /^#cache-backends$/,
        replacement: fileURLToPath(new URL('./src/cache/backends.browser.ts', import.meta.url)),
      },
      {
        find: /^#cluster-modules$/,
        replacement: fileURLToPath(new URL('./src/cluster/modules.browser.ts', import.meta.url)),
      },
      {
        find: /^#http-transport$/,
        replacement: fileURLToPath(new URL('./src/http/transport.browser.ts', import.meta.url)),
      },
      {
        find: /^#logging-platform$/,
        replacement: fileURLToPath(new URL('./src/logging/platform.browser.ts', import.meta.url)),
      },
    ],
  },
  // Modules the browser code imports on first use (import()): bundled up front, so that Vite does not find them in
  // the middle of a run and reload the page under a test.
  optimizeDeps: {
    include: [
      'idb',
      'hash-wasm',
      '@noble/hashes/argon2.js',
      '@noble/hashes/hkdf.js',
      '@noble/hashes/hmac.js',
      '@noble/hashes/sha2.js',
    ],
  },
  test,
});
