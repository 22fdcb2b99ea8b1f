/**
 * The site's limit on jobs queued, set for real: MaxSubmitJobs=3 on the test user's
 * associations (sacctmgr), with Slurm enforcing limits, over SSH. `campaign check` reads it
 * from sacctmgr and says how the plan fits it; a campaign of eight tasks sends them in waves,
 * never more than the limit of its array tasks in the queue. The limit is lowered to 2 while the
 * first wave runs (as an administrator may): the sbatch Slurm refuses fails no task, they wait
 * for room and all complete, each run once. It changes the shared cluster's limits for the
 * user, so it runs with the fault tests, alone, and puts them back whatever happens.
 */
import { execFileSync } from 'node:child_process';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readState, runCli, startCli, useBuiltCliAndTemp, waitUntil } from '../../helpers/cli.js';
import {
  arrayTasksNamed,
  CLUSTER_DIR,
  clusterEnv,
  clusterIsUp,
  slurm,
  slurmCampaign,
} from '../../helpers/slurm-cluster.js';
import { sshdUp, type Sshd } from '../../exec/transport/sshd.js';

const clusterUp = clusterIsUp('max_jobs fault test');
const tempRoot = useBuiltCliAndTemp('max-jobs-site');
let sshd: Sshd | undefined;

/** As scripts/cluster/up writes it, and with limits enforced (MaxSubmitJobs among them). */
const USUAL = 'AccountingStorageEnforce=associations,qos';
const ENFORCED = 'AccountingStorageEnforce=associations,qos,limits';
/** slurm.conf as it was before the test enforced limits; undefined while it is as it was. */
let original: string | undefined;
/** The login's user, whose associations get the limit. */
let user: string | undefined;

function setMaxSubmit(value: number): void {
  slurm('sacctmgr', ['-i', 'modify', 'user', 'where', `name=${user}`, 'set', `MaxSubmitJobs=${value}`]);
}

/**
 * slurmctld stopped (SIGTERM: it saves its state) and started again as scripts/cluster/up starts
 * it, until it takes a job: `scontrol reconfigure` leaves AccountingStorageEnforce as it was.
 */
async function restartSlurmctld(): Promise<void> {
  const env = { ...process.env, ...clusterEnv() };
  const pid = Number((await readFile(join(CLUSTER_DIR, 'run', 'slurmctld.pid'), 'utf8')).trim());
  process.kill(pid, 'SIGTERM');
  await waitUntil('slurmctld to stop', async () => {
    try {
      process.kill(pid, 0);
      return undefined;
    } catch {
      return true;
    }
  });
  execFileSync('slurmctld', ['-f', env.SLURM_CONF!], { env, stdio: 'ignore' });
  // It knows the node's resources only once slurmd has registered again.
  await waitUntil(
    'slurmctld to take a job again',
    async () => {
      try {
        execFileSync('sbatch', ['--test-only', '-c', '1', '--mem', '100M', '--wrap', 'true'], { env, stdio: 'ignore' });
        return true;
      } catch {
        return undefined;
      }
    },
    120_000,
    500,
  );
}

async function enforceLimits(): Promise<void> {
  const conf = clusterEnv().SLURM_CONF!;
  const text = await readFile(conf, 'utf8');
  if (!new RegExp(`^${USUAL}$`, 'm').test(text))
    throw new Error(`${conf} has no line ${USUAL} (as scripts/cluster/up writes it): run scripts/cluster/up again`);
  original = text;
  await writeFile(conf, text.replace(new RegExp(`^${USUAL}$`, 'm'), ENFORCED));
  await restartSlurmctld();
}

/** The user's limit lifted and slurm.conf as it was, for whoever uses the cluster next. */
async function restore(): Promise<void> {
  if (user !== undefined) setMaxSubmit(-1);
  if (original === undefined) return;
  await writeFile(clusterEnv().SLURM_CONF!, original);
  original = undefined;
  await restartSlurmctld();
}

/** The campaign's array tasks the queue holds, pending or running. */
function queued(prefix: string): number {
  return slurm('squeue', ['-h', '-r', '-t', 'PENDING,RUNNING', '-o', '%j'])
    .split('\n')
    .filter((name) => name.startsWith(prefix)).length;
}

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

beforeAll(async () => {
  if (!clusterUp) return;
  sshd = await sshdUp();
  if (!sshd) return;
  user = sshd.target.split('@')[0]!;
  await enforceLimits();
  setMaxSubmit(3);
}, 300_000);

afterAll(async () => {
  if (clusterUp) await restore();
}, 60_000);

describe.runIf(clusterUp)("the site's MaxSubmitJobs (real cluster, sacctmgr, over SSH)", () => {
  it('check reads it; the campaign sends waves under it, and waits out a limit lowered mid-run; each task runs once', async (ctx) => {
    if (!sshd) return ctx.skip();
    const { name, manifest, stateDir } = await slurmCampaign(
      tempRoot(),
      'maxjobs',
      sshd,
      `  - name: p
    grid: { k: [1, 2, 3, 4, 5, 6, 7, 8] }
    command: sleep 5; echo \${k} > \${output}
    output: o_\${k}.txt
    walltime: 5m
`,
      8,
    );
    const env = { ...process.env, CAMPAIGN_SSH_KEY_FILE: sshd.keyFile };
    // Every job of the user counts against the limit: the figures below are for a queue of this campaign's alone.
    await waitUntil(
      'no other job of the user in the queue',
      async () => (slurm('squeue', ['-h', '-u', user!, '-o', '%i']).trim() === '' ? true : undefined),
      120_000,
      1000,
    );
    const check = await runCli(['check', manifest], { env });
    expect(check.stdout).toMatch(
      /max_jobs +3 jobs and array tasks queued at once \(sacctmgr: MaxSubmitJobs of your association \(account \w+\)\); 8 tasks; at most 3 queued at once: sent in waves as room frees; max_parallel 8 can never be reached/,
    );

    const run = startCli(['run', manifest, '--state-dir', stateDir, '--poll', '1'], { env });
    let exited = false;
    void run.done.then(() => (exited = true));
    let most = 0;
    let lowered = false;
    const deadline = Date.now() + 300_000;
    try {
      while (!exited && Date.now() < deadline) {
        const now = queued(`${name}~`);
        most = Math.max(most, now);
        if (!lowered && now === 3) {
          setMaxSubmit(2);
          lowered = true;
        }
        await sleep(200);
      }
    } finally {
      run.child.kill('SIGKILL');
    }
    const r = await run.done;
    expect(r.code, r.stdout + r.stderr).toBe(0);
    expect(lowered).toBe(true);
    expect(most).toBe(3);
    expect(r.stdout + r.stderr).toMatch(/sbatch refused for the limit on jobs queued \(.*MaxSubmitJob.*\)/);
    expect(r.stdout + r.stderr).toContain('at most 2 queued from now on');
    const state = await readState(stateDir);
    const tasks = Object.entries(state.tasks);
    expect(tasks.length).toBe(8);
    for (const [id, t] of tasks) {
      expect(t.status, id).toBe('completed');
      expect(
        t.attempts.map((a) => a.class),
        id,
      ).toEqual(['completed']);
    }
    // Nothing twice: one array task on the cluster per task.
    expect(arrayTasksNamed(`${name}~`).length).toBe(8);
  }, 400_000);
});
