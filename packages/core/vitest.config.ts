import { fileURLToPath } from 'node:url';
import { configDefaults, defineProject } from 'vitest/config';

export default defineProject({
  resolve: {
    // Tests use the emulator's source, so it needs no build step of its own while core is being worked on.
    alias: [
      {
        find: '@threatlib/feed-emulator',
        replacement: fileURLToPath(new URL('../feed-emulator/src/index.ts', import.meta.url)),
      },
      // What core's tests share with the other packages' (the Python tools' runner, the rsyslog harness), from
      // test-utils' source: core cannot depend on test-utils, which depends on core; what that source imports of core
      // is core's own source here.
      {
        find: '@threatlib/test-utils/python-tools',
        replacement: fileURLToPath(new URL('../test-utils/src/python-tools/index.ts', import.meta.url)),
      },
      {
        find: '@threatlib/test-utils/rsyslog',
        replacement: fileURLToPath(new URL('../test-utils/src/services/rsyslog.ts', import.meta.url)),
      },
      {
        find: /^@threatlib\/core\/testing$/,
        replacement: fileURLToPath(new URL('./src/testing/index.ts', import.meta.url)),
      },
      // Each runtime's module that package.json `imports` chooses, from source: Node.js's here.
      {
        find: /^#cache-backends$/,
        replacement: fileURLToPath(new URL('./src/cache/backends.node.ts', import.meta.url)),
      },
      {
        find: /^#cluster-modules$/,
        replacement: fileURLToPath(new URL('./src/cluster/modules.node.ts', import.meta.url)),
      },
      {
        find: /^#http-transport$/,
        replacement: fileURLToPath(new URL('./src/http/transport.node.ts', import.meta.url)),
      },
      {
        find: /^#logging-platform$/,
        replacement: fileURLToPath(new URL('./src/logging/platform.node.ts', import.meta.url)),
      },
      // The examples import the package by name, as users do; here that is its source.
      { find: /^@threatlib\/core$/, replacement: fileURLToPath(new URL('./src/index.ts', import.meta.url)) },
    ],
  },
  test: {
    name: 'core',
    include: ['src/**/*.test.ts', 'examples/**/*.test.ts'],
    // Run in Chromium by the core-browser project (vitest.browser.config.ts).
    exclude: [...configDefaults.exclude, 'src/**/*.browser.test.ts'],
  },
});
