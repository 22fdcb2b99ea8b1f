/**
 * The test cluster's daemons failing under a running campaign (over real SSH): slurmctld
 * stopped and started again, slurmdbd down for a whole campaign. Each breaks the shared
 * cluster, so these run alone, after the rest of the suite.
 */
import { execFileSync } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readState, useBuiltCliAndTemp, waitUntil } from '../../helpers/cli.js';
import {
  arrayTasksNamed,
  CLUSTER_DIR,
  clusterEnv,
  clusterIsUp,
  jobsNamed,
  runSlurmCampaign,
  slurm,
  sleepingPhase,
} from '../../helpers/slurm-cluster.js';
import { sshdUp, type Sshd } from '../../exec/transport/sshd.js';

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
  // A slurmctld started again knows its node's resources only once slurmd has registered with
  // it again: until then a submission is refused as asking for more than any node has.
  if (daemon === 'slurmctld')
    await waitUntil(
      'the node to register with slurmctld',
      async () => {
        try {
          execFileSync('sbatch', ['--test-only', '-c', '1', '--mem', '100M', '--wrap', 'true'], {
            env,
            stdio: 'ignore',
          });
          return true;
        } catch {
          return undefined;
        }
      },
      120_000,
      1000,
    );
}

beforeAll(async () => {
  if (clusterUp) sshd = await sshdUp();
}, 300_000);

afterAll(async () => {
  // Whatever happened, the cluster is whole again for whoever uses it next.
  if (clusterUp) execFileSync('bash', [join(import.meta.dirname, '../../../scripts/cluster/up')], { stdio: 'ignore' });
}, 300_000);

const campaign = (label: string, phases: string, parallel?: number) =>
  runSlurmCampaign(tempRoot(), label, sshd!, phases, parallel);

describe.runIf(clusterUp)('cluster daemons failing under a campaign (real cluster, over SSH)', () => {
  it('slurmctld stopped and started again mid-campaign: the controller waits it out, nothing is sent twice', async (ctx) => {
    if (!sshd) return ctx.skip();
    const c = await campaign('ctld', sleepingPhase(6, [1, 2, 3, 4]));
    try {
      await waitUntil(
        'a running task',
        async () => (arrayTasksNamed(`${c.name}~`).some((t) => t.state === 'RUNNING') ? true : undefined),
        120_000,
        300,
      );
      let said = '';
      c.run.child.stderr!.on('data', (b: Buffer) => (said += b.toString()));
      let ended = false;
      void c.run.done.finally(() => (ended = true));
      await stop('slurmctld');
      try {
        // Down until a pass has met the outage, or the campaign has ended without one: with
        // markers first, tasks that end while it is down are read from their markers, and the
        // scheduler is asked only for what those cannot say.
        await waitUntil(
          'a pass cut short, or the campaign ended',
          async () => (said.includes('pass cut short') || ended ? true : undefined),
          120_000,
          300,
        );
      } finally {
        await restart('slurmctld');
      }
      const r = await c.run.done;
      expect(r.code, r.stdout + r.stderr).toBe(0);
      if (said.includes('pass cut short'))
        expect(r.stderr).toMatch(/pass cut short, it will be made again: \w+ failed/);
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
    const c = await campaign('dbd', sleepingPhase(1, [1, 2, 3]));
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
});
