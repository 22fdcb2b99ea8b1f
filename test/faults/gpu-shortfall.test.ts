/**
 * Adapt or abort on the real test cluster: while a campaign runs, a pending task's GPU request
 * is lowered as an administrator (or a job_submit plugin) would, so the scheduler grants it one
 * GPU of the two the campaign asked. GPUs are part of the task's definition: that attempt ends
 * `shortfall`, with what was asked and granted, its output is not recorded as the result, and
 * the task is sent again and completes on two GPUs. Its tasks hold a license of one, so one runs
 * while the other waits without holding the other tests' jobs.
 */
import { execFileSync } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readState, startCli, writeManifest } from '../helpers/cli.js';
import { clusterEnv, ONE_AT_A_TIME, slurm } from '../helpers/slurm-cluster.js';
import { LONG, RUN, slurmSuite } from '../exec/slurm/suite.js';

const { clusterUp, ready, campaignDir, cluster } = slurmSuite('gpu-shortfall');

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/** The campaign's array tasks in the queue: id and state. */
function queued(prefix: string): { id: string; state: string }[] {
  return slurm('squeue', ['-h', '-r', '-o', '%i|%j|%T'])
    .split('\n')
    .flatMap((l) => {
      const [id, name, state] = l.split('|');
      return name?.startsWith(prefix) ? [{ id: id!, state: state! }] : [];
    });
}

describe.runIf(clusterUp)('a GPU shortfall on the test cluster', () => {
  it(
    'an attempt granted 1 GPU of 2 ends shortfall, is not the result, and the task completes on 2',
    async (ctx) => {
      if (!ready()) return ctx.skip();
      const { dir, workdir, stateDir } = await campaignDir('gpu-shortfall');
      const name = `gpushort-${RUN}`;
      // One runs while the other waits for the license, 20 s: the time to lower what it asks.
      const manifest = await writeManifest(
        dir,
        `${cluster(name, workdir)}phases:
  - name: p
    grid: { n: [1, 2] }
    command: sleep 20; echo "$CUDA_VISIBLE_DEVICES" > \${output}
    output: o_\${n}.txt
    walltime: 10m
    resources: { gpus: 2 }
    slurm_args: ["--licenses=${ONE_AT_A_TIME.gpuShortfall}"]
`,
      );
      const run = startCli(['run', manifest, '--state-dir', stateDir, '--poll', '2']);
      let lowered = '';
      const deadline = Date.now() + 240_000;
      while (!lowered && Date.now() < deadline) {
        const jobs = queued(`${name}~`);
        const running = jobs.find((j) => j.state === 'RUNNING');
        const pending = jobs.find((j) => j.state === 'PENDING' && !/\[/.test(j.id));
        if (running && pending) {
          try {
            execFileSync('scontrol', ['update', `JobId=${pending.id}`, 'TresPerNode=gres:gpu:1'], {
              env: { ...process.env, ...clusterEnv() },
              stdio: 'pipe',
            });
            lowered = pending.id;
          } catch (e) {
            // It started between squeue and scontrol (a busy machine, though each waits 20 s for
            // the other): look again.
            if (!String((e as { stderr?: unknown }).stderr).includes('no longer pending')) throw e;
          }
        }
        await sleep(300);
      }
      const r = await run.done;
      expect(lowered).not.toBe('');
      expect(r.code, r.stdout + r.stderr).toBe(0);
      const state = await readState(stateDir);
      const [id, task] = Object.entries(state.tasks).find(([, t]) => t.attempts[0]!.handle === lowered)!;
      expect(task.attempts.map((a) => a.class)).toEqual(['shortfall', 'completed']);
      expect(task.attempts[0]!.reason).toMatch(
        /^granted 1 GPU instead of 2, and gpus is part of the task's definition/,
      );
      expect(task.status).toBe('completed');
      // The result is the second attempt's, made on two GPUs.
      const output = await readFile(join(workdir, `o_${id.slice('p/n'.length)}.txt`), 'utf8');
      expect(output.trim().split(',')).toHaveLength(2);
      // The other task got what it asked: completed at once.
      const other = Object.entries(state.tasks).find(([k]) => k !== id)![1];
      expect(other.attempts.map((a) => a.class)).toEqual(['completed']);
    },
    LONG,
  );
});
