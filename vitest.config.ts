import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';
import { filesOf, groupOfRun } from './test/helpers/test-groups.js';
import { LongestFirst } from './test/helpers/test-order.js';

// scripts/test-all runs the files that use the Slurm cluster, then the others beside the fault
// tests (CAMPAIGN_TEST_GROUP); a plain `vitest run` takes them all.
const group = groupOfRun();
const root = fileURLToPath(new URL('.', import.meta.url));
const files = group ? filesOf(root, group) : [...filesOf(root, 'cluster'), ...filesOf(root, 'without-cluster')];
const ACTION = /^test\/action\//;
const ISOLATION = 'test/helpers/file-isolation.ts';

export default defineConfig({
  test: {
    // They break the shared test cluster on purpose: vitest.faults.config.ts runs them alone.
    exclude: ['test/faults/exclusive/**', 'node_modules/**'],
    // Most tests wait on a real server (sshd, Slurm) rather than compute: more files than cores
    // run at once, so the suite takes about its longest files, not their sum. Those that use the
    // Slurm cluster wait the most (two cores were 44 % idle under four of them at once).
    maxWorkers: group === 'cluster' ? 8 : 4,
    sequence: { sequencer: LongestFirst },
    // Files in one worker share its loaded modules: loading them again for each file cost about a
    // CPU-second a file, on two cores the suite spends fully. Each file's changes to the process
    // are put back as it ends (test/helpers/file-isolation.ts). The Action's files load their
    // own: a job is a process, and what the Action's libraries keep from one (the artifact
    // service's address) would reach the next file.
    projects: [
      {
        extends: true,
        test: {
          name: 'shared',
          include: files.filter((f) => !ACTION.test(f)),
          isolate: false,
          setupFiles: [ISOLATION],
        },
      },
      { extends: true, test: { name: 'action', include: files.filter((f) => ACTION.test(f)) } },
    ],
    // The cluster's group runs eight files at once on two cores, nearly all the time busy: a test of
    // a few seconds alone took over 60 s there (test/exec/secrets.test.ts), so it gets twice that.
    testTimeout: group === 'cluster' ? 120_000 : 60_000,
    // Under CI=true a skipped test (a real server missing) fails the run.
    reporters: ['default', './test/helpers/skipped-fail-ci.ts', './test/helpers/slowest.ts'],
    hookTimeout: 60_000,
    // GitHub's workflow parser imports its JSON schema without an import attribute, which plain
    // Node rejects: let vite load it.
    server: { deps: { inline: ['@actions/workflow-parser'] } },
  },
});
