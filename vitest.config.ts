import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // They break the shared test cluster on purpose: vitest.faults.config.ts runs them alone.
    exclude: ['test/faults/**', 'node_modules/**'],
    testTimeout: 60_000,
    // Under CI=true a skipped test (a real server missing) fails the run.
    reporters: ['default', './test/helpers/skipped-fail-ci.ts'],
    hookTimeout: 60_000,
    // GitHub's workflow parser imports its JSON schema without an import attribute, which plain
    // Node rejects: let vite load it.
    server: { deps: { inline: ['@actions/workflow-parser'] } },
  },
});
