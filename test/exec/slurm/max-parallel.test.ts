/**
 * max_parallel is the campaign's on Slurm (the real test cluster, over SSH): two independent
 * phases of two strata each, their strata cut into chunks of three, run at most max_parallel
 * indices at once, and a phase with its own max_parallel at most that many of its own. The
 * queue is read through the whole run: its RUNNING indices of the campaign never exceed the
 * caps.
 */
import { describe, expect, it } from 'vitest';
import { readState, startCli, writeManifest } from '../../helpers/cli.js';
import { slurm } from '../../helpers/slurm-cluster.js';
import { LONG, RUN, slurmSuite } from './suite.js';

const { clusterUp, ready, campaignDir, sshd } = slurmSuite('max-parallel');

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/** The campaign's RUNNING array indices in the queue, with the comment (the array's id) of each. */
function running(prefix: string): { comment: string }[] {
  return slurm('squeue', ['-h', '-r', '-t', 'RUNNING', '-o', '%j|%k|%i'])
    .split('\n')
    .flatMap((l) => {
      const [name = '', comment = ''] = l.split('|');
      return name.startsWith(prefix) ? [{ comment }] : [];
    });
}

describe.runIf(clusterUp)('max_parallel on Slurm (real cluster, over SSH)', () => {
  it(
    "two strata and two independent phases, in chunks: never more running than the campaign's cap, nor a phase's own",
    async (ctx) => {
      if (!ready()) return ctx.skip();
      const CAP = 3;
      const { dir, workdir, stateDir } = await campaignDir('max-parallel');
      const name = `maxpar-${RUN}`;
      const head = `campaign: ${name}
cluster:
  executor: slurm
  name: campaign-test
  login: ${sshd().target}
  host_key: ${sshd().fingerprint}
  partitions:
    - { name: debug, max_time: 30m }
  max_parallel: ${CAP}
  max_array_size: 3
workdir: ${workdir}
defaults:
  resources: { cpus: 1, mem: 100M }
`;
      const phase = (phaseName: string, extra = '') => `  - name: ${phaseName}
    grid: { size: [s, l], seed: [1, 2, 3] }
    strata: [size]
    command: 'sleep 4; echo \${size} \${seed} > \${output}'
    output: ${phaseName}/\${tag}.txt
    walltime: 5m
${extra}`;
      const manifest = await writeManifest(
        dir,
        `${head}phases:\n${phase('left')}${phase('right', '    max_parallel: 1\n')}`,
      );
      const cli = startCli(['run', manifest, '--state-dir', stateDir, '--poll', '2']);
      let exited = false;
      void cli.done.then(() => (exited = true));
      let most = 0;
      let mostRight = 0;
      const deadline = Date.now() + LONG - 30_000;
      while (!exited && Date.now() < deadline) {
        const now = running(`${name}~`);
        most = Math.max(most, now.length);
        mostRight = Math.max(mostRight, now.filter((r) => r.comment.startsWith('right.')).length);
        await sleep(200);
      }
      const r = await cli.done;
      expect(r.code, r.stdout + r.stderr).toBe(0);
      const state = await readState(stateDir);
      const tasks = Object.entries(state.tasks);
      expect(tasks.length).toBe(12);
      for (const [id, t] of tasks) expect(t.status, id).toBe('completed');
      expect(most).toBeLessThanOrEqual(CAP);
      expect(mostRight).toBeLessThanOrEqual(1);
      // Run side by side, not one at a time.
      expect(most).toBeGreaterThanOrEqual(2);
    },
    LONG,
  );
});
