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
 * Files that take 30 s or more, the longest first, as vitest recorded them: the cluster's group
 * alone (seven at once) and the other in a whole run beside the fault tests. With only the
 * longest 22 listed, a clean clone started the two code-snapshot files of the cluster's group
 * (about 130 s each), lint's fuzzing and max-parallel last: the group took 545 s, against 449 s
 * in the order of a run that had vitest's record.
 */
const WAIT_LONGEST = [
  'test/exec/slurm/slurm.test.ts',
  'test/exec/slurm/pack.test.ts',
  'test/faults/network.test.ts',
  'test/action/e2e.test.ts',
  'test/exec/checkpoint.test.ts',
  'test/faults/behind-its-back.test.ts',
  'test/exec/ssh-gpu/failure-modes.test.ts',
  'test/action/workflow-local.test.ts',
  'test/exec/slurm/code.test.ts',
  'test/automation-node/code.test.ts',
  'test/exec/ssh-gpu/code.test.ts',
  'test/faults/partition-limit.test.ts',
  'test/automation-node/restricted-campaign.test.ts',
  'test/exec/ssh-gpu/ssh-gpu.test.ts',
  'test/exec/slurm/max-parallel.test.ts',
  'test/exec/ssh-gpu/example.test.ts',
  'test/cli/code-snapshot.test.ts',
  'test/faults/disk-full.test.ts',
  'test/lint/fuzz.test.ts',
  'test/exec/slurm/max-jobs.test.ts',
  'test/cli/readme-order.test.ts',
  'test/package/install.test.ts',
  'test/exec/secrets.test.ts',
  'test/action/dist.test.ts',
  'test/action/workflow-run.test.ts',
  'test/faults/gpu-shortfall.test.ts',
  'test/exec/two-controllers.test.ts',
  'test/calibrate/slurm.test.ts',
  'test/exec/ssh-gpu/pool.test.ts',
  'test/exec/slurm/results.test.ts',
  'test/exec/slurm/rebuild.test.ts',
  'test/exec/contract/ssh-gpu.test.ts',
  'test/exec/contract/slurm.test.ts',
  'test/exec/contract/automation-node.test.ts',
  'test/exec/slurm/slurm-submission.test.ts',
  'test/automation-node/restricted-faults.test.ts',
  'test/exec/slurm/crash.test.ts',
  'test/report/adapted-slurm.test.ts',
  'test/manifest/template-shell.test.ts',
  'test/automation-node/gate.test.ts',
  'test/exec/transport/ssh.test.ts',
  'test/exec/slurm/cluster-options.test.ts',
  'test/cli/rerun.test.ts',
  'test/report/pictures.test.ts',
  'test/exec/file-store-journal.test.ts',
  'test/cli/starters.test.ts',
  'test/action/local-action.test.ts',
  'test/render/checkpoint-scripts.test.ts',
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
