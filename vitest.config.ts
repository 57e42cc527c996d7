import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    projects: ['packages/*', 'packages/core/vitest.browser.config.ts', 'e2e'],
  },
});
