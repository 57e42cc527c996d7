import { defineProject } from 'vitest/config';

export default defineProject({
  test: {
    name: 'cloud-emulator',
    include: ['src/**/*.test.ts'],
  },
});
