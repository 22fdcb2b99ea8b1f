/**
 * Jobs changed behind the tool's back while a campaign runs on the real test cluster (over
 * SSH): a pending array index cancelled, a running one requeued. Each touches only its own
 * campaign's jobs, so these run beside the rest of the suite.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { readState, useBuiltCliAndTemp, waitUntil } from '../helpers/cli.js';
import {
  arrayTasksNamed,
  clusterIsUp,
  jobsNamed,
  ONE_AT_A_TIME,
  runSlurmCampaign,
  slurm,
  sleepingPhase,
} from '../helpers/slurm-cluster.js';
import { sshdUp, type Sshd } from '../exec/transport/sshd.js';

const clusterUp = clusterIsUp('behind-its-back fault tests');
// On a two-core machine the rest of the suite's jobs can hold the node for minutes.
const QUEUE_WAIT_MS = 300_000;
const tempRoot = useBuiltCliAndTemp('behind-its-back');
let sshd: Sshd | undefined;

beforeAll(async () => {
  if (clusterUp) sshd = await sshdUp();
}, 300_000);

const campaign = (label: string, phases: string, parallel?: number) =>
  runSlurmCampaign(tempRoot(), label, sshd!, phases, parallel);

describe.runIf(clusterUp)("jobs changed behind the tool's back (real cluster, over SSH)", () => {
  it('a pending array index cancelled behind its back is sent again, that index alone, and the campaign completes', async (ctx) => {
    if (!sshd) return ctx.skip();
    // The three in the queue at once, one running at a time (each holds the test's license), each
    // 20 s: under the whole suite's load, squeue and sacct take seconds, and an index seen pending
    // must still be pending when scancel comes.
    const c = await campaign(
      'scancel',
      sleepingPhase(20, [1, 2, 3]).replace(
        '    walltime: 5m\n',
        `    walltime: 5m\n    slurm_args: ["--licenses=${ONE_AT_A_TIME.behindItsBack}"]\n`,
      ),
      3,
    );
    try {
      const pending = await waitUntil(
        'a pending index behind the running one',
        async () => {
          const waiting = slurm('squeue', ['-h', '-r', '-t', 'PD', '-o', '%i|%j']).split('\n');
          const ids = waiting.filter((l) => l.split('|')[1]?.startsWith(`${c.name}~`)).map((l) => l.split('|')[0]!);
          const running = arrayTasksNamed(`${c.name}~`).some((t) => t.state === 'RUNNING');
          return running && ids.length > 0 ? ids[ids.length - 1] : undefined;
        },
        QUEUE_WAIT_MS,
        300,
      );
      slurm('scancel', [pending]);
      const r = await c.run.done;
      expect(r.code, r.stdout + r.stderr).toBe(0);
    } finally {
      c.run.child.kill('SIGKILL');
    }
    const state = await readState(c.stateDir);
    const retried = Object.values(state.tasks).filter((t) => t.attempts.length > 1);
    expect(retried).toHaveLength(1);
    expect(retried[0]!.attempts.map((a) => a.class)).toEqual(['lost', 'completed']);
    expect(retried[0]!.attempts[0]!.reason).toMatch(/vanished from Slurm/);
    const jobs = jobsNamed(`${c.name}~`);
    expect(jobs).toHaveLength(2);
    expect(arrayTasksNamed(`${c.name}~`).filter((t) => t.job === jobs[1])).toHaveLength(1);
    for (const k of [1, 2, 3]) expect((await readFile(join(c.workdir, `o_${k}.txt`), 'utf8')).trim()).toBe(`${k}`);
  }, 400_000);
  it('a requeue behind its back is refused by Slurm (its jobs are --no-requeue): the attempt runs on, once', async (ctx) => {
    if (!sshd) return ctx.skip();
    const c = await campaign('requeue', sleepingPhase(8, [1, 2]));
    let refused = '';
    try {
      const running = await waitUntil(
        'a running index',
        async () => arrayTasksNamed(`${c.name}~`).find((t) => t.state === 'RUNNING'),
        QUEUE_WAIT_MS,
        300,
      );
      try {
        slurm('scontrol', ['requeue', `${running.job}_${running.index}`]);
      } catch (e) {
        refused = String((e as { stderr?: string }).stderr ?? e);
      }
      const r = await c.run.done;
      expect(r.code, r.stdout + r.stderr).toBe(0);
    } finally {
      c.run.child.kill('SIGKILL');
    }
    expect(refused).toMatch(/presently disabled/);
    const state = await readState(c.stateDir);
    for (const t of Object.values(state.tasks)) expect(t.attempts.map((a) => a.class)).toEqual(['completed']);
    expect(jobsNamed(`${c.name}~`)).toHaveLength(1);
  }, 400_000);
});
