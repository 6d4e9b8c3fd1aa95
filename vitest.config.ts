import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    pool: 'forks',
    // Two cores: the engine tests start thread pools of their own, so files run
    // at most two at a time and long training tests get generous time-outs.
    maxWorkers: 2,
    minWorkers: 1,
    testTimeout: 120_000,
    hookTimeout: 60_000,
  },
});
