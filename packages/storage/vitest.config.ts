import { defineProject } from 'vitest/config';

export default defineProject({
  test: {
    name: 'storage',
    // One test stops and restarts the FerretDB server: no other file of this package may be using it at that moment.
    fileParallelism: false,
    include: ['src/**/*.test.ts'],
    // The server tests wait on real round trips (a restart takes seconds); none waits on a fixed sleep.
    testTimeout: 60_000,
    hookTimeout: 60_000,
  },
});
