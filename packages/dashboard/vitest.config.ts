import { defineProject } from 'vitest/config';

// The dashboard's pure modules in Node.js; the pages and the service worker run in Chromium in the e2e suite
// (e2e/tests/browser/dashboard.test.ts).
export default defineProject({
  test: {
    name: 'dashboard',
    include: ['src/**/*.test.ts'],
  },
});
