import type { KnipConfig } from 'knip';

// knip finds files nothing reaches, dependencies nothing imports and exports nothing uses (`pnpm lint` runs it). The
// entries are what a user, a test or a script starts from; everything else must be reached from them. The compliance
// suites (`*.test-suite.ts`) are not entries: the tests that run them reach them, so a suite nothing runs, or a helper
// a suite exports for nobody, is found.
// Each package's bin (from package.json), its vitest config and the test files that config includes are entries through
// knip's own reading of package.json and of vitest.config.ts.
const packageEntries = ['src/index.ts'];

const config: KnipConfig = {
  workspaces: {
    '.': {
      entry: ['scripts/*.mjs'],
    },
    'packages/*': {
      entry: packageEntries,
      project: ['src/**/*.ts'],
    },
    'packages/core': {
      // The subpaths of the exports map (./metrics, ./integration, ./testing), and the README's examples.
      entry: [...packageEntries, 'src/{metrics,integration,testing}/index.ts', 'examples/**/*.{ts,js}'],
      project: ['src/**/*.ts', 'bin/**/*.js', 'examples/**/*.{ts,js}'],
      // Loaded with createRequire only when e-mail monitoring alerts are configured (an optional peer dependency),
      // which knip cannot see as an import.
      ignoreDependencies: ['nodemailer'],
    },
    'packages/webhooks': {
      entry: [...packageEntries, 'src/network/index.ts'],
      project: ['src/**/*.ts'],
      // The threat-update test starts a client whose integrations.siem makes core's integration loader import
      // @threatlib/siem by name (import(name)), as an application's client does.
      ignoreDependencies: ['@threatlib/siem'],
    },
    e2e: {
      entry: ['tests/**/fixtures/*.js'],
      project: ['tests/**/*.{ts,js}'],
    },
    bench: {
      // Each benchmark is a run.mjs that forks its other scripts by file name (clients, receivers, emulators).
      entry: ['*/*.mjs'],
      project: ['**/*.mjs'],
    },
  },
  // The benchmarks and the option checks call system tools, not npm packages.
  ignoreBinaries: ['taskset', 'wrk', 'apt-get', 'openssl'],
};

export default config;
