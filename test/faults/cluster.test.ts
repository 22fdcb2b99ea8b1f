/**
 * The test cluster's daemons failing under a running campaign (over real SSH): slurmctld
 * stopped and started again, slurmdbd down for a whole campaign, a pending array index
 * cancelled and a running one requeued behind the tool's back. Each breaks the shared
 * cluster or races with its neighbours, so these run alone.
 */
import { execFileSync } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readState, startCli, useBuiltCliAndTemp, waitUntil } from '../helpers/cli.js';
import {
  arrayTasksNamed,
  CLUSTER_DIR,
  clusterEnv,
  clusterIsUp,
  jobsNamed,
  slurm,
  slurmCampaign,
} from '../helpers/slurm-cluster.js';
import { sshdUp, type Sshd } from '../exec/transport/sshd.js';

const clusterUp = clusterIsUp('cluster fault tests');
const tempRoot = useBuiltCliAndTemp('cluster-faults');
let sshd: Sshd | undefined;

const pidOf = async (daemon: string): Promise<number> =>
  Number((await readFile(join(CLUSTER_DIR, 'run', `${daemon}.pid`), 'utf8')).trim());

/** Stops a daemon of the test cluster (SIGTERM: it saves its state, as on a planned restart) and waits for it to go. */
async function stop(daemon: 'slurmctld' | 'slurmdbd'): Promise<void> {
  const pid = await pidOf(daemon);
  process.kill(pid, 'SIGTERM');
  await waitUntil(`${daemon} to stop`, async () => {
    try {
      process.kill(pid, 0);
      return undefined;
    } catch {
      return true;
    }
  });
}

/** Starts a stopped daemon again, as scripts/cluster/up does, and waits until it answers. */
async function restart(daemon: 'slurmctld' | 'slurmdbd'): Promise<void> {
  const env = { ...process.env, ...clusterEnv() };
  const args = daemon === 'slurmctld' ? ['-f', env.SLURM_CONF!] : [];
  execFileSync(daemon, args, { env, stdio: 'ignore' });
  const answers = daemon === 'slurmctld' ? ['scontrol', ['ping']] : ['sacctmgr', ['-n', 'list', 'cluster']];
  await waitUntil(
    `${daemon} to answer`,
    async () => (/DOWN|error/i.test(slurm(answers[0] as string, answers[1] as string[])) ? undefined : true),
    60_000,
    500,
  );
}

beforeAll(async () => {
  if (clusterUp) sshd = await sshdUp();
}, 300_000);

afterAll(async () => {
  // Whatever happened, the cluster is whole again for whoever uses it next.
  if (clusterUp) execFileSync('bash', [join(import.meta.dirname, '../../scripts/cluster/up')], { stdio: 'ignore' });
}, 300_000);

async function campaign(label: string, phases: string, parallel = 4) {
  const c = await slurmCampaign(tempRoot(), label, sshd!, phases, parallel);
  const run = startCli(['run', c.manifest, '--state-dir', c.stateDir, '--poll', '1'], {
    env: { ...process.env, CAMPAIGN_SSH_KEY_FILE: sshd!.keyFile },
  });
  return { ...c, run };
}

const grid = (sleep: number, ks: number[]) => `  - name: p
    grid: { k: [${ks.join(', ')}] }
    command: sleep ${sleep}; echo \${k} > \${output}
    output: o_\${k}.txt
    walltime: 5m
`;

describe.runIf(clusterUp)('cluster daemons failing under a campaign (real cluster, over SSH)', () => {
  it('slurmctld stopped and started again mid-campaign: the controller waits it out, nothing is sent twice', async (ctx) => {
    if (!sshd) return ctx.skip();
    const c = await campaign('ctld', grid(6, [1, 2, 3, 4]));
    try {
      await waitUntil(
        'a running task',
        async () => (arrayTasksNamed(`${c.name}~`).some((t) => t.state === 'RUNNING') ? true : undefined),
        120_000,
        300,
      );
      let said = '';
      c.run.child.stderr!.on('data', (b: Buffer) => (said += b.toString()));
      await stop('slurmctld');
      // Down until a pass has met the outage: how soon that is depends on how long squeue waits.
      await waitUntil(
        'a pass cut short',
        async () => (said.includes('pass cut short') ? true : undefined),
        120_000,
        300,
      );
      await restart('slurmctld');
      const r = await c.run.done;
      expect(r.code, r.stdout + r.stderr).toBe(0);
      expect(r.stderr).toMatch(/pass cut short, it will be made again: squeue failed/);
    } finally {
      c.run.child.kill('SIGKILL');
    }
    expect(jobsNamed(`${c.name}~`)).toHaveLength(1);
    const state = await readState(c.stateDir);
    for (const t of Object.values(state.tasks)) expect(t.attempts).toHaveLength(1);
    for (const k of [1, 2, 3, 4]) expect((await readFile(join(c.workdir, `o_${k}.txt`), 'utf8')).trim()).toBe(`${k}`);
  }, 400_000);

  it('slurmdbd down for the whole campaign: it says so, watches the queue, and judges ended tasks by their outputs', async (ctx) => {
    if (!sshd) return ctx.skip();
    await stop('slurmdbd');
    const c = await campaign('dbd', grid(1, [1, 2, 3]));
    let r;
    try {
      r = await c.run.done;
    } finally {
      c.run.child.kill('SIGKILL');
      await restart('slurmdbd');
    }
    expect(r.code, r.stdout + r.stderr).toBe(0);
    expect(r.stderr).toMatch(/sacct failed .*: watching the queue only; ended tasks are judged by their outputs/);
    const state = await readState(c.stateDir);
    for (const t of Object.values(state.tasks)) expect(t.attempts.map((a) => a.class)).toEqual(['completed']);
    await waitUntil('accounting to catch up', async () => (jobsNamed(`${c.name}~`).length === 1 ? true : undefined));
  }, 400_000);

  it('a pending array index cancelled behind its back is sent again, that index alone, and the campaign completes', async (ctx) => {
    if (!sshd) return ctx.skip();
    const c = await campaign('scancel', grid(8, [1, 2, 3]), 1);
    try {
      const pending = await waitUntil(
        'a pending index behind the throttle',
        async () => {
          const waiting = slurm('squeue', ['-h', '-r', '-t', 'PD', '-o', '%i|%j']).split('\n');
          const ids = waiting.filter((l) => l.split('|')[1]?.startsWith(`${c.name}~`)).map((l) => l.split('|')[0]!);
          const running = arrayTasksNamed(`${c.name}~`).some((t) => t.state === 'RUNNING');
          return running && ids.length > 0 ? ids[ids.length - 1] : undefined;
        },
        120_000,
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
    const c = await campaign('requeue', grid(8, [1, 2]));
    let refused = '';
    try {
      const running = await waitUntil(
        'a running index',
        async () => arrayTasksNamed(`${c.name}~`).find((t) => t.state === 'RUNNING'),
        120_000,
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
