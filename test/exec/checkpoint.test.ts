/**
 * A warning before the kill, end to end with `campaign run` on each executor: a task whose work
 * outlasts its walltime is signalled `before` the end, writes its checkpoint, ends TIMEOUT, is
 * continued with CAMPAIGN_RESUME=1 under the walltime of the work it has left, and completes;
 * the summary shows the continuation and how its walltime was chosen. On the real test
 * cluster (whose controller sends the signal and the kill on a 30 s timer: the shortest walltime,
 * a minute, ends after 60 to 90 s), on ssh-gpu with the stand-in GPUs over the test sshd, and
 * locally. The three run at once.
 */
import { mkdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { CampaignState } from '../../src/state/state.js';
import { readState, runCli, useBuiltCliAndTemp, writeManifest, type CliResult } from '../helpers/cli.js';
import { clusterIsUp, slurmCampaign } from '../helpers/slurm-cluster.js';
import { campaignDirs, cluster, sshdUp } from './ssh-gpu/helpers.js';

const tempRoot = useBuiltCliAndTemp('checkpoint');
const slurmUp = clusterIsUp('checkpoint continuation on the Slurm cluster');

/**
 * A phase of 50 steps of `step` seconds each, which a cost model of 1 s a step budgets a minute
 * for: the first attempt cannot finish. Warned by SIGUSR1, it saves its step, and again after
 * each step (Slurm's warning may come half a minute early); resumed, it goes on from the step saved.
 */
const phase = (step: number): string => `  - name: p
    output: out.txt
    cost:
      unit: step
      units: 50
      per_unit: 1s
      margin: 1.2
      progress: { log: 'step (?<units>\\d+)' }
    checkpoint: { signal: USR1, before: 10s }
    retry: { timeout: { attempts: 2 } }
    command: |
      n=0
      if [ "$CAMPAIGN_RESUME" = 1 ]; then n=$(cat ckpt.txt); echo "resumed at $n"; fi
      saving=0
      trap 'saving=1; echo "$n" > ckpt.txt; echo "checkpoint at $n"' USR1
      while [ "$n" -lt 50 ]; do
        sleep ${step} & wait $!; n=$((n + 1)); echo "step $n"
        if [ "$saving" = 1 ]; then echo "$n" > ckpt.txt; fi
      done
      echo "$n" > \${output}
`;

async function expectContinued(r: CliResult, stateDir: string, workdir: string): Promise<CampaignState> {
  expect(r.code, r.stdout + r.stderr).toBe(0);
  const state = await readState(stateDir);
  const attempts = state.tasks['p/task']!.attempts;
  expect(attempts.at(-1)!.class).toBe('completed');
  expect(attempts.slice(0, -1).map((a) => a.class)).toEqual(attempts.slice(0, -1).map(() => 'timeout'));
  const [first, second] = attempts;
  expect(first!.resumed).toBeUndefined();
  expect(second).toMatchObject({ resumed: true, walltimeSeconds: 60 });
  expect(second!.retimed).toMatch(/^continued from its checkpoint after \d+ steps: \d+ of 50 steps left: /);
  const log1 = await readFile(first!.log!, 'utf8');
  const saved = /^checkpoint at (\d+)$/m.exec(log1);
  expect(saved, log1).not.toBeNull();
  expect(await readFile(join(workdir, 'out.txt'), 'utf8')).toBe('50\n');
  const log2 = await readFile(second!.log!, 'utf8');
  expect(Number(/^resumed at (\d+)$/m.exec(log2)?.[1])).toBeGreaterThan(0);
  const summary = await readFile(join(stateDir, 'summary.md'), 'utf8');
  expect(summary).toContain('## Tasks continued or given more time');
  expect(summary).toMatch(
    /\| p\/task \| 2 \| (completed|timeout) \| 1m \| continued from its checkpoint after \d+ steps/,
  );
  return state;
}

describe('a task with a checkpoint and a walltime shorter than its work', () => {
  it.concurrent(
    'locally: is warned, checkpoints, times out, is continued and completes',
    async () => {
      const dir = join(tempRoot(), 'local');
      const workdir = join(dir, 'work');
      await mkdir(workdir, { recursive: true });
      const manifest = await writeManifest(
        dir,
        `campaign: ck-local\ncluster: { executor: local }\nworkdir: ${workdir}\nphases:\n${phase(1.5)}`,
      );
      const stateDir = join(dir, 'state');
      const r = await runCli(['run', manifest, '--state-dir', stateDir, '--poll', '0.5'], { timeoutMs: 240_000 });
      await expectContinued(r, stateDir, workdir);
    },
    300_000,
  );

  it.concurrent(
    'on ssh-gpu with the stand-in GPUs: the same',
    async (ctx) => {
      const sshd = await sshdUp();
      if (!sshd) return ctx.skip();
      const { dir, workdir, gpus } = await campaignDirs(tempRoot)('ssh-gpu');
      const manifest = await writeManifest(
        dir,
        `campaign: ck-gpu\n${cluster(sshd, gpus)}workdir: ${workdir}\nphases:\n${phase(1.5)}`,
      );
      const stateDir = join(dir, 'state');
      const r = await runCli(['run', manifest, '--state-dir', stateDir, '--poll', '0.5'], {
        timeoutMs: 240_000,
        env: { ...process.env, CAMPAIGN_SSH_KEY_FILE: sshd.keyFile },
      });
      await expectContinued(r, stateDir, workdir);
    },
    300_000,
  );

  it.runIf(slurmUp).concurrent(
    'on the Slurm cluster: the same, the signal sent by Slurm',
    async (ctx) => {
      const sshd = await sshdUp();
      if (!sshd) return ctx.skip();
      // Two seconds a step: the first attempt, ended at 60 to 90 s, cannot have done all 50.
      const c = await slurmCampaign(tempRoot(), 'ck-slurm', sshd, phase(2));
      const r = await runCli(['run', c.manifest, '--state-dir', c.stateDir, '--poll', '1'], {
        timeoutMs: 300_000,
        env: { ...process.env, CAMPAIGN_SSH_KEY_FILE: sshd.keyFile },
      });
      const state = await expectContinued(r, c.stateDir, c.workdir);
      const first = state.tasks['p/task']!.attempts[0]!;
      expect(first.reason).toMatch(/time|TIMEOUT/i);
    },
    360_000,
  );
});
