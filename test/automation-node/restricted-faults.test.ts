/**
 * Faults of a campaign driven through the test automation node (the `all` list, no shell, no
 * sacct) with `cluster.restricted`, on the real test cluster: a cancel, a controller SIGKILLed
 * mid-run, a state deleted. Each ends as through a login node with a shell (no task sent twice,
 * nothing left in the queue), and the node's log shows no command refused while it ran. The
 * three run at once, each its own campaign: most of their time is spent waiting on Slurm.
 */
import { mkdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { readState, runCli, startCli, useBuiltCliAndTemp, waitUntil, writeManifest } from '../helpers/cli.js';
import { arrayTasksNamed, clusterIsUp, jobsNamed, jobsRecorded, slurm } from '../helpers/slurm-cluster.js';
import { type AutomationNode, automationNodeUp, gateLog, gateLogMark, restrictedManifestHead } from './fixture.js';

const clusterUp = clusterIsUp('fault scenarios through an automation node');
const tempRoot = useBuiltCliAndTemp('restricted-faults');
let node: AutomationNode | undefined;
const RUN = Date.now().toString(36);
const LONG = 300_000;

beforeAll(async () => {
  if (clusterUp) node = await automationNodeUp(join(tmpdir(), 'campaign-automation-faults'), 16035);
}, 90_000);

interface Restricted {
  name: string;
  workdir: string;
  manifest: string;
  stateDir: string;
  /** `campaign run` of it, to its end. */
  run: () => ReturnType<typeof runCli>;
  /** `campaign run` of it, started. */
  start: () => ReturnType<typeof startCli>;
  env: NodeJS.ProcessEnv;
}

/** A campaign of one phase `p` through the node (restricted), in its own directory: its manifest written. */
async function campaign(n: AutomationNode, label: string, phase: string): Promise<Restricted> {
  const dir = join(tempRoot(), label);
  const workdir = join(dir, 'work');
  await mkdir(workdir, { recursive: true });
  const name = `${label}-${RUN}`;
  const manifest = await writeManifest(
    dir,
    `${restrictedManifestHead(n, name, workdir, { mem: '100M' })}phases:
  - name: p
${phase}`,
  );
  const stateDir = join(dir, 'state');
  const env = { ...process.env, CAMPAIGN_SSH_KEY_FILE: n.keys.all };
  const args = ['run', manifest, '--state-dir', stateDir, '--poll', '2'];
  return {
    name,
    workdir,
    manifest,
    stateDir,
    env,
    run: () => runCli(args, { env, timeoutMs: LONG }),
    start: () => startCli(args, { env }),
  };
}

/** The tasks of the state, by id: how many attempts each has, and its status. */
async function tasksOf(stateDir: string): Promise<Record<string, { attempts: number; status: string }>> {
  const state = await readState(stateDir);
  return Object.fromEntries(
    Object.entries(state.tasks).map(([id, t]) => [id, { attempts: t.attempts.length, status: t.status }]),
  );
}

/** The campaign's array tasks still pending or running in the queue. */
function activeInQueue(name: string): string[] {
  return slurm('squeue', ['-h', '-r', '-o', '%i %j %T'])
    .split('\n')
    .filter((l) => l.split(' ')[1]?.startsWith(`${name}~`));
}

/** Asserts the node refused nothing since `mark`, and that it ran something. */
async function nothingRefused(n: AutomationNode, mark: number): Promise<void> {
  const lines = await gateLog(n, mark);
  expect(lines.length).toBeGreaterThan(0);
  expect(lines.filter((l) => l.verdict === 'refused')).toEqual([]);
}

const ks = (count: number): string => Array.from({ length: count }, (_, i) => i + 1).join(', ');

describe.runIf(clusterUp)('faults through an automation node (cluster.restricted, real cluster)', () => {
  it.concurrent(
    'campaign cancel: running tasks are scancelled, recorded cancelled, gone from the queue; a rerun sends nothing',
    async (ctx) => {
      if (!node) return ctx.skip();
      const c = await campaign(
        node,
        'cancel',
        `    grid: { k: [${ks(3)}] }
    command: sleep 300; echo \${k} > \${output}
    output: o_\${k}.txt
    walltime: 10m
`,
      );
      // Tasks that sleep 300 s would hold the cluster's CPUs after a failure here.
      ctx.onTestFinished(() => {
        const left = activeInQueue(c.name).map((l) => l.split(' ')[0]!);
        if (left.length > 0) slurm('scancel', left);
      });
      const mark = await gateLogMark(node);
      const run = c.start();
      await waitUntil(
        'the three tasks running',
        async () => {
          const tasks = Object.values((await readState(c.stateDir)).tasks);
          return tasks.length === 3 && tasks.every((t) => t.attempts.at(-1)?.startedAt) ? true : undefined;
        },
        120_000,
        500,
      );
      // The run holds the state's lock, which a cancel needs: Ctrl-C stops it after its pass.
      run.child.kill('SIGINT');
      const stopped = await run.done;
      expect(stopped.code, stopped.stdout + stopped.stderr).toBe(130);
      expect(activeInQueue(c.name)).toHaveLength(3);

      const r = await runCli(['cancel', c.manifest, '--state-dir', c.stateDir], { env: c.env, timeoutMs: 90_000 });
      expect(r.code, r.stdout + r.stderr).toBe(0);
      expect(r.stdout.split('\n').filter(Boolean).sort()).toEqual([
        'cancelled p/k1',
        'cancelled p/k2',
        'cancelled p/k3',
      ]);
      const state = await readState(c.stateDir);
      for (const k of [1, 2, 3]) {
        const t = state.tasks[`p/k${k}`]!;
        expect(
          t.attempts.map((a) => a.class),
          `k=${k}`,
        ).toEqual(['cancelled']);
      }
      expect(activeInQueue(c.name)).toEqual([]);
      const jobs = await jobsRecorded(`${c.name}~`, 1);
      expect(jobs).toHaveLength(1);
      await waitUntil(
        'sacct to say the three were cancelled',
        async () => {
          const states = arrayTasksNamed(`${c.name}~`).map((t) => t.state);
          return states.length === 3 && states.every((s) => s === 'CANCELLED') ? true : undefined;
        },
        30_000,
        500,
      );

      // A cancelled task is not sent again: the next run ends at once, the campaign incomplete.
      const again = await c.run();
      expect(again.code, again.stdout + again.stderr).toBe(1);
      expect(jobsNamed(`${c.name}~`)).toEqual(jobs);
      await nothingRefused(node, mark);
    },
    LONG,
  );

  it.concurrent(
    'a controller SIGKILLed as it submits, then after it saved, run again: every task completes, each sent and run once',
    async (ctx) => {
      if (!node) return ctx.skip();
      const c = await campaign(
        node,
        'crash',
        `    grid: { k: [${ks(6)}] }
    command: sleep $(( 4 + \${k} )); echo \${k} > \${output}
    output: o_\${k}.txt
    walltime: 2m
`,
      );
      const mark = await gateLogMark(node);
      const first = c.start();
      // The node logs a command as it starts it: the kill lands while sbatch runs or just after,
      // before the state has heard the job's id (the queue may hold the job, or not yet).
      const submitting = `.campaign/slurm/${c.name}/`;
      const sbatch = await waitUntil(
        'the first sbatch through the node',
        async () =>
          (await gateLog(node!, mark)).find(
            (l) => l.command.startsWith('sbatch --parsable') && l.command.includes(submitting),
          ),
        120_000,
      );
      first.child.kill('SIGKILL');
      const killed = await first.done;
      expect(killed.signal, killed.stdout + killed.stderr).toBe('SIGKILL');

      // Killed again once the state has every job's id, while the tasks run.
      const second = c.start();
      await waitUntil(
        'the state to hold the six submissions',
        async () => {
          const tasks = Object.values((await readState(c.stateDir)).tasks);
          return tasks.length === 6 && tasks.every((t) => t.attempts.at(-1)?.handle) ? true : undefined;
        },
        120_000,
        100,
      );
      second.child.kill('SIGKILL');
      expect((await second.done).signal).toBe('SIGKILL');

      const third = await c.run();
      expect(third.code, third.stdout + third.stderr).toBe(0);
      const tasks = await tasksOf(c.stateDir);
      expect(Object.keys(tasks)).toHaveLength(6);
      for (const [id, t] of Object.entries(tasks)) expect(t, id).toEqual({ attempts: 1, status: 'completed' });
      for (const k of [1, 2, 3, 4, 5, 6])
        expect((await readFile(join(c.workdir, `o_${k}.txt`), 'utf8')).trim()).toBe(String(k));
      // The cluster ran each task once: one index each, in one array or in several.
      const ran = await waitUntil(
        'sacct to record the six indices ended',
        async () => {
          const tasks = arrayTasksNamed(`${c.name}~`);
          return tasks.length >= 6 && tasks.every((t) => t.state !== 'RUNNING' && t.state !== 'PENDING')
            ? tasks
            : undefined;
        },
        30_000,
        500,
      ).catch(() => arrayTasksNamed(`${c.name}~`));
      expect(
        ran.map((t) => t.state),
        sbatch.command,
      ).toEqual(Array(6).fill('COMPLETED'));
      await nothingRefused(node, mark);
    },
    LONG,
  );

  it.concurrent(
    'a state deleted after the campaign ran (with a retry): rebuilt from the tables, the queue and the markers, nothing sent again',
    async (ctx) => {
      if (!node) return ctx.skip();
      const c = await campaign(
        node,
        'rebuild',
        `    grid: { k: [${ks(3)}] }
    command: |
      if [ \${attempt} = 1 ] && [ \${k} = 1 ]; then exit 3; fi
      sleep 2; echo \${k} > \${output}
    output: o_\${k}.txt
    walltime: 2m
    retry: { failed: { attempts: 2 } }
`,
      );
      const mark = await gateLogMark(node);
      const first = await c.run();
      expect(first.code, first.stdout + first.stderr).toBe(0);
      const tasks = await tasksOf(c.stateDir);
      // k=1 failed once: its retry went out as a second array.
      expect(tasks).toEqual({
        'p/k1': { attempts: 2, status: 'completed' },
        'p/k2': { attempts: 1, status: 'completed' },
        'p/k3': { attempts: 1, status: 'completed' },
      });
      const jobs = await jobsRecorded(`${c.name}~`, 2);
      expect(jobs).toHaveLength(2);

      // State, previous state and event log all gone.
      await rm(c.stateDir, { recursive: true });
      const rebuilt = await c.run();
      expect(rebuilt.code, rebuilt.stdout + rebuilt.stderr).toBe(0);
      expect(await tasksOf(c.stateDir)).toEqual(tasks);
      const attempts = (await readState(c.stateDir)).tasks['p/k1']!.attempts;
      expect(attempts.map((a) => [a.class, a.exitCode])).toEqual([
        ['failed', 3],
        ['completed', 0],
      ]);
      expect(jobsNamed(`${c.name}~`)).toEqual(jobs);
      expect(arrayTasksNamed(`${c.name}~`)).toHaveLength(4);
      await nothingRefused(node, mark);
    },
    LONG,
  );
});
