/**
 * Out of memory on a cluster that enforces memory without cgroups (JobAcctGatherParams=
 * OverMemoryKill): Slurm records the task FAILED (exit 137), and only slurmstepd's lines in
 * its log say why. Judged through a login node (sacct) and through an automation node (the
 * queue and the markers), the task is out of memory, and is retried with more memory.
 *
 * The test cluster enforces memory with cgroups, so the task writes slurmstepd's two lines
 * itself, to the same log, and exits 137 as the kill would leave it; the rest is real: Slurm's
 * record of the end, the log read back, the retry with the memory grown.
 */
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { readState, runCli, writeManifest } from '../../helpers/cli.js';
import { type AutomationNode, automationNodeUp, restrictedManifestHead } from '../../automation-node/fixture.js';
import { LONG, RUN, slurmSuite } from './suite.js';

const { clusterUp, ready, campaignDir, cluster, run } = slurmSuite('over-memory-kill');
let node: AutomationNode | undefined;

beforeAll(async () => {
  if (clusterUp) node = await automationNodeUp(join(tmpdir(), 'campaign-automation-over-memory'), 16041);
}, 90_000);

/**
 * A phase whose task, given less than 400 MB, leaves what slurmstepd leaves of a task it killed
 * for memory (jobacct_gather's error, then the notice sent before the SIGKILL).
 */
const PHASES = `phases:
  - name: big
    command: >
      if [ "$SLURM_MEM_PER_NODE" -lt 400 ]; then
      echo "slurmstepd: error: StepId=$SLURM_JOB_ID.batch exceeded memory limit (419430400 > 209715200), being killed" >&2;
      echo "slurmstepd: error: Exceeded job memory limit" >&2; exit 137; fi;
      echo "$SLURM_MEM_PER_NODE" > \${output}
    output: big.txt
    walltime: 5m
    retry:
      out_of_memory: { attempts: 1, mem_factor: 2 }
`;

function expectRetriedWithMoreMemory(state: Awaited<ReturnType<typeof readState>>): void {
  const big = state.tasks['big/task']!;
  expect(big.attempts.map((a) => a.class)).toEqual(['out_of_memory', 'completed']);
  expect(big.attempts[0]!.reason).toMatch(/^over its memory limit/);
  expect(big.attempts.map((a) => a.memBytes)).toEqual([200 * 1024 ** 2, 400 * 1024 ** 2]);
  expect(big.status).toBe('completed');
}

describe.runIf(clusterUp)('out of memory by OverMemoryKill (real cluster)', () => {
  it.concurrent(
    'through a login node: FAILED with the lines in its log is out of memory, retried with twice the memory',
    async (ctx) => {
      if (!ready()) return ctx.skip();
      const { dir, workdir, stateDir } = await campaignDir('login');
      const manifest = await writeManifest(dir, `${cluster(`overmem-${RUN}`, workdir)}${PHASES}`);
      const r = await run(manifest, stateDir);
      expect(r.code, r.stdout + r.stderr).toBe(0);
      expectRetriedWithMoreMemory(await readState(stateDir));
    },
    LONG,
  );

  it.concurrent(
    'through an automation node (restricted: no sacct), the same',
    async (ctx) => {
      if (!node) return ctx.skip();
      const { dir, workdir, stateDir } = await campaignDir('restricted');
      const manifest = await writeManifest(
        dir,
        `${restrictedManifestHead(node, `overmem-r-${RUN}`, workdir)}${PHASES}`,
      );
      const r = await runCli(['run', manifest, '--state-dir', stateDir, '--poll', '2'], {
        env: { ...process.env, CAMPAIGN_SSH_KEY_FILE: node.keys.all },
        timeoutMs: LONG,
      });
      expect(r.code, r.stdout + r.stderr).toBe(0);
      expectRetriedWithMoreMemory(await readState(stateDir));
    },
    LONG,
  );
});
