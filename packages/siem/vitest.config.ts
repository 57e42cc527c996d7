import { defineProject } from 'vitest/config';

export default defineProject({
  test: {
    name: 'siem',
    include: ['src/**/*.test.ts'],
  },
});
