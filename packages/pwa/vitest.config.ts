import { defineProject } from 'vitest/config';

// The module's pure parts in Node.js; the worker itself runs in Chromium in the dashboard's e2e suite
// (e2e/tests/browser/dashboard.test.ts), which uses it.
export default defineProject({
  test: {
    name: 'pwa',
    include: ['src/**/*.test.ts'],
  },
});
