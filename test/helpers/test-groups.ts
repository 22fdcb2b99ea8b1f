/**
 * The suite's two groups of test files, so that the fault tests, which break the shared Slurm
 * cluster on purpose, run beside the tests that never touch it rather than after all of them
 * (scripts/test-all). A file uses the cluster when it imports the cluster's helpers (directly, or
 * through the Slurm executor's suite); `clusterIsUp` refuses to run in the other group, so a file
 * that reaches the cluster some other way fails loudly instead of meeting a broken cluster.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';

export type TestGroup = 'cluster' | 'without-cluster';

/** Where the group is named for a run of vitest; unset, a run takes every file. */
const GROUP_VARIABLE = 'CAMPAIGN_TEST_GROUP';

const USES_CLUSTER = /helpers\/slurm-cluster\.js'|slurm\/suite\.js'|from '\.\/suite\.js'/;

/**
 * Files that need no cluster but much CPU (a fresh build of both bundles, a packed global
 * install, lint's 10,000 fuzzed manifests, repositories of many files snapshot, `npm start` and
 * the tests after it, commands run under a module hook): they run with the cluster's group, whose
 * waits leave the two cores idle at times (113 CPU-seconds of its 450 s in one run), and so
 * shorten the other group, which keeps them busy throughout.
 */
const CPU_BOUND = new Set([
  'test/action/dist.test.ts',
  'test/package/install.test.ts',
  'test/lint/fuzz.test.ts',
  'test/cli/code-snapshot.test.ts',
  'test/cli/readme-order.test.ts',
  'test/app/lazy-loading.test.ts',
]);

function testFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const path = join(dir, e.name);
    if (e.isDirectory()) return testFiles(path);
    return e.name.endsWith('.test.ts') ? [path] : [];
  });
}

/** The test files of `group` under `root`'s test/ folder, as paths relative to `root`. */
export function filesOf(root: string, group: TestGroup): string[] {
  return testFiles(join(root, 'test'))
    .map((f) => relative(root, f))
    .filter(
      (f) => (CPU_BOUND.has(f) || USES_CLUSTER.test(readFileSync(join(root, f), 'utf8'))) === (group === 'cluster'),
    );
}

/** The group this run of vitest was given, if any. */
export function groupOfRun(): TestGroup | undefined {
  const g = process.env[GROUP_VARIABLE];
  if (g === undefined || g === '') return undefined;
  if (g !== 'cluster' && g !== 'without-cluster')
    throw new Error(`${GROUP_VARIABLE}=${g}: use cluster or without-cluster`);
  return g;
}
