import { defineProject } from 'vitest/config';

export default defineProject({
  test: {
    name: 'siem-emulator',
    include: ['src/**/*.test.ts'],
  },
});
