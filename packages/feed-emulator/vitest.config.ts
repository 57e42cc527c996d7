import { defineProject } from 'vitest/config';

export default defineProject({
  test: {
    name: 'feed-emulator',
    include: ['src/**/*.test.ts'],
  },
});
