import { defineProject } from 'vitest/config';

export default defineProject({
  test: {
    name: 'queue',
    // One test restarts the RabbitMQ broker: no other file of this package may be using it at that moment.
    fileParallelism: false,
    include: ['src/**/*.test.ts'],
    // The broker tests wait on real round trips (a broker restart takes seconds); none waits on a fixed sleep.
    testTimeout: 60_000,
    hookTimeout: 60_000,
  },
});
