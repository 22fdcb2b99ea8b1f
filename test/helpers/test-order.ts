/**
 * The order in which vitest starts the test files: those known to wait longest first. vitest
 * itself starts the longest first by its record of past durations, but a clean clone (every CI
 * run) has none, and then it starts the largest files first. The files below wait on the
 * cluster far longer than their size says: started last, they made the cluster's group about a
 * minute longer (behind-its-back began at 147 s of a 264 s run, checkpoint at 65 s).
 */
import { relative } from 'node:path';
import { BaseSequencer, type TestSpecification } from 'vitest/node';

/**
 * Files that take 40 s or more, the longest first: in the cluster's group (measured at seven at
 * once on a quiet machine), then in the other (measured in CI, four at once beside the fault
 * tests), where the two code-snapshot files, started last, ended the group 50 s after the rest.
 * The cluster's longest, test/exec/slurm/pack.test.ts (260 to 290 s), had been left off: it
 * started late and ended its group last, at 602 s.
 */
const WAIT_LONGEST = [
  'test/exec/slurm/pack.test.ts',
  'test/exec/slurm/slurm.test.ts',
  'test/action/e2e.test.ts',
  'test/exec/checkpoint.test.ts',
  'test/faults/network.test.ts',
  'test/faults/behind-its-back.test.ts',
  'test/automation-node/restricted-campaign.test.ts',
  'test/faults/partition-limit.test.ts',
  'test/exec/slurm/crash.test.ts',
  'test/exec/slurm/results.test.ts',
  'test/report/adapted-slurm.test.ts',
  'test/exec/slurm/cluster-options.test.ts',
  'test/exec/slurm/withdraw.test.ts',
  'test/action/workflow-local.test.ts',
  'test/exec/ssh-gpu/failure-modes.test.ts',
  'test/cli/readme-order.test.ts',
  'test/action/workflow-run.test.ts',
  'test/exec/ssh-gpu/code.test.ts',
  'test/exec/ssh-gpu/example.test.ts',
  'test/exec/ssh-gpu/ssh-gpu.test.ts',
  'test/cli/code-snapshot.test.ts',
  'test/cli/starters.test.ts',
];

export class LongestFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const rank = (f: TestSpecification): number => {
      const i = WAIT_LONGEST.indexOf(relative(this.ctx.config.root, f.moduleId));
      return i < 0 ? WAIT_LONGEST.length : i;
    };
    // Stable: the other files keep vitest's order.
    return (await super.sort(files)).sort((a, b) => rank(a) - rank(b));
  }
}
