import { readFileSync } from 'node:fs';
import type { KnipConfig } from 'knip';

// knip finds files nothing reaches, dependencies nothing imports and exports nothing uses (`pnpm lint` runs it). The
// entries are what a user, a test or a script starts from; everything else must be reached from them. The compliance
// suites (`*.test-suite.ts`) are not entries: the tests that run them reach them, so a suite nothing runs, or a helper
// a suite exports for nobody, is found.
// Each package's bin (from package.json), its vitest config and the test files that config includes are entries through
// knip's own reading of package.json and of vitest.config.ts.
const packageEntries = ['src/index.ts'];

/** The source file of each entry of core's exports map (`./dist/cache/index.js` is `src/cache/index.ts`). */
const coreExports: Record<string, string | { default: string }> = JSON.parse(
  readFileSync(new URL('./packages/core/package.json', import.meta.url), 'utf8'),
).exports;
const coreEntries = Object.values(coreExports).flatMap((target) =>
  typeof target === 'object' ? [target.default.replace(/^\.\/dist\//, 'src/').replace(/\.js$/, '.ts')] : [],
);

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
      // Every entry of the exports map (read from package.json, so the two cannot differ), the README's examples, the
      // tests of the browser project, the modules a test hands to a bundler by file name, and the vault's Argon2id
      // worker (started by URL: `new Worker(new URL('./argon2-worker.js', import.meta.url))`).
      entry: [
        ...coreEntries,
        'src/vault/argon2-worker.ts',
        'examples/**/*.{ts,js}',
        'src/**/*.browser.test.ts',
        'src/**/__fixtures__/**/*.ts',
      ],
      project: ['src/**/*.ts', 'bin/**/*.js', 'examples/**/*.{ts,js}'],
      // Loaded with createRequire only when e-mail monitoring alerts are configured (an optional peer dependency),
      // which knip cannot see as an import. The Python tools' runner and the rsyslog harness of test-utils are reached
      // by an alias to their source (vitest.config.ts, tsconfig.json): a dependency on test-utils, which depends on
      // core, would be a cycle.
      ignoreDependencies: ['nodemailer', '@threatlib/test-utils'],
    },
    'packages/server': {
      // The build copies Swagger UI's files for /docs out of swagger-ui-dist (scripts/copy-docs-ui.mjs).
      entry: [...packageEntries, 'scripts/*.mjs'],
      project: ['src/**/*.ts', 'scripts/*.mjs'],
    },
    'packages/dashboard': {
      // The page and its service worker are bundled by scripts/build.mjs from these two files.
      entry: ['src/main.tsx', 'src/sw.ts', 'scripts/*.mjs'],
      project: ['src/**/*.{ts,tsx}', 'scripts/*.mjs'],
    },
    'packages/pwa': {
      // The page's entry and the service worker's (`@threatlib/pwa/worker`).
      entry: [...packageEntries, 'src/worker.ts'],
      project: ['src/**/*.ts'],
    },
    'packages/webhooks': {
      entry: [...packageEntries, 'src/network/index.ts'],
      project: ['src/**/*.ts'],
    },
    'packages/test-utils': {
      // Private test support: each e2e service's harness is a subpath of its own (./elasticsearch, ./ferretdb, ...),
      // and so are the Python tools of e2e/tools (./python-tools).
      entry: [...packageEntries, 'src/services/{elasticsearch,ferretdb,rsyslog}.ts', 'src/python-tools/index.ts'],
      project: ['src/**/*.ts'],
    },
    e2e: {
      // The consumer check copies its scripts into the projects it installs, where they run; the browser projects'
      // harness is loaded by vitest by file name (setup files, placeholder test).
      entry: [
        'tests/**/fixtures/*.js',
        'tests/consumer/scripts/*.ts',
        'browser/{chromium,browser-setup,chromium-missing.test}.ts',
      ],
      project: ['tests/**/*.{ts,js}', 'browser/**/*.ts'],
    },
    bench: {
      // Each benchmark is a run.mjs that forks its other scripts by file name (clients, receivers, emulators).
      entry: ['*/*.mjs'],
      project: ['**/*.mjs'],
    },
  },
  // The benchmarks and the option checks call system tools, not npm packages (`script` gives the CLI test a terminal).
  ignoreBinaries: ['taskset', 'wrk', 'apt-get', 'openssl', 'script'],
  // Exported for nothing, in files being reworked by others while knip came in (only import lines were touched
  // there): un-export these names and take the file off this list once that work has landed.
  ignoreIssues: {
    'packages/core/src/client/alerting.ts': ['exports'], // ALERT_DELIVERY_GRACE_MS
    'packages/queue/src/message/queue-message.ts': ['exports'], // MESSAGE_JSON_DEPTH_LIMIT
    'packages/siem/src/connector/connector-options.ts': ['exports'], // TlsOptionsSchema, COMMON_OPTIONS_SHAPE
    'packages/storage/src/compliance/storage-compliance.test-suite.ts': ['exports'], // REFUSED_FILTERS
    'packages/storage/src/document-store/document-alert-store.ts': ['exports'], // MAX_ALERT_BYTES
    'packages/storage/src/document-store/document-store-options.ts': ['exports'], // the options schemas
    'packages/storage/src/document-store/expiry.ts': ['exports'], // EXPIRY_INDEX
    'packages/storage/src/filter/filter-allowlist.ts': ['exports'], // the operator lists
    'packages/storage/src/search-index/campaign-records.ts': ['exports'], // campaignId, toStoredCampaign
    'packages/storage/src/search-index/elasticsearch-errors.ts': ['exports'], // statusOf
    'packages/storage/src/search-index/index-mappings.ts': ['exports'], // templateName
    'packages/storage/src/search-index/indicator-history.ts': ['exports', 'types'], // historyId, IndicatorSource
    'packages/storage/src/search-index/search-alert-store.ts': ['exports'], // MAX_ALERT_BYTES
    'packages/storage/src/search-index/search-index-options.ts': ['exports'], // the options schemas
    'packages/storage/src/search-index/threat-records.ts': ['exports'], // searchFieldsOf
    'packages/webhooks/src/incoming/incoming-webhooks.ts': ['exports'], // GITHUB_REPLAY_WINDOW_SECONDS
    'packages/webhooks/src/integration/threat-update.ts': ['exports'], // ThreatUpdateDataSchema
    'packages/webhooks/src/manager/manager-options.ts': ['exports'], // WebhookManagerOptionsSchema
    'packages/webhooks/src/outgoing/outgoing-endpoint.ts': ['exports'], // OutgoingWebhookDefinitionSchema
  },
};

export default config;
