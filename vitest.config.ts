import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // They break the shared test cluster on purpose: vitest.faults.config.ts runs them alone.
    exclude: ['test/faults/**', 'node_modules/**'],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    // GitHub's workflow parser imports its JSON schema without an import attribute, which plain
    // Node rejects: let vite load it.
    server: { deps: { inline: ['@actions/workflow-parser'] } },
  },
});
