import { defineConfig } from 'vitest/config';

/**
 * Fault tests break the shared test cluster on purpose (a node set DOWN, daemons stopped), so
 * they run after every other test that uses it, one file at a time (scripts/test-all).
 */
export default defineConfig({
  test: {
    include: ['test/faults/exclusive/**/*.test.ts'],
    fileParallelism: false,
    // Under CI=true a skipped test (a real server missing) fails the run.
    reporters: ['default', './test/helpers/skipped-fail-ci.ts', './test/helpers/slowest.ts'],
    testTimeout: 60_000,
    hookTimeout: 300_000,
  },
});
