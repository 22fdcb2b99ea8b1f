/**
 * Packed tasks on the real test cluster, over SSH (issue 37): an array element runs several
 * tasks one after another, each with its own log, markers and output; a task that fails inside
 * an element is retried alone; an element that reaches its time limit mid-pack ends the running
 * task as a timeout and sends the tasks after it, which never started, again without spending a
 * retry.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readState, runCli, startCli, writeManifest } from '../../helpers/cli.js';
import { arrayTasksNamed, slurm } from '../../helpers/slurm-cluster.js';
import { LONG, RUN, slurmSuite } from './suite.js';

const { clusterUp, ready, campaignDir, cluster, sshd } = slurmSuite('pack');

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/** The campaign's jobs and array tasks the queue holds, pending or running. */
function queued(prefix: string): number {
  return slurm('squeue', ['-h', '-r', '-t', 'PENDING,RUNNING', '-o', '%j'])
    .split('\n')
    .filter((name) => name.startsWith(prefix)).length;
}

/** A packed phase of `k` = 1..n, its command and extra keys as given. */
async function packedCampaign(label: string, n: number, phase: string) {
  const { dir, workdir, stateDir } = await campaignDir(label);
  const name = `${label}-${RUN}`;
  const grid = Array.from({ length: n }, (_, i) => i + 1).join(', ');
  const manifest = await writeManifest(
    dir,
    `${cluster(name, workdir)}phases:
  - name: p
    grid: { k: [${grid}] }
    output: o_\${k}.txt
${phase}`,
  );
  const run = () => runCli(['run', manifest, '--state-dir', stateDir, '--poll', '1'], { timeoutMs: LONG - 20_000 });
  return { name, workdir, stateDir, run };
}

/** Each output holds its task's value once: written exactly once. */
async function writtenOnce(workdir: string, n: number): Promise<void> {
  for (let k = 1; k <= n; k++)
    expect((await readFile(join(workdir, `o_${k}.txt`), 'utf8')).trim(), `o_${k}`).toBe(String(k));
}

describe.runIf(clusterUp)('packed tasks on Slurm (real cluster, over SSH)', () => {
  it(
    'pack: 4 runs a dozen tasks in three elements, each task once, with its own log',
    async (ctx) => {
      if (!ready()) return ctx.skip();
      const c = await packedCampaign(
        'pack4',
        12,
        `    command: 'echo \${k} >> \${output}'
    walltime: 1m
    pack: 4
`,
      );
      const r = await c.run();
      expect(r.code, r.stdout + r.stderr).toBe(0);
      await writtenOnce(c.workdir, 12);
      const state = await readState(c.stateDir);
      const tasks = Object.values(state.tasks);
      expect(tasks.length).toBe(12);
      const handles = new Set<string>();
      for (const t of tasks) {
        expect(t.status).toBe('completed');
        expect(t.attempts.length).toBe(1);
        const a = t.attempts[0]!;
        handles.add(a.handle!);
        // Its own log, holding its own task's lines.
        expect(await readFile(a.log!, 'utf8')).toMatch(/\[campaign\] task \d+ -> /);
        expect(a.startedAt).toBeDefined();
      }
      expect(new Set(tasks.map((t) => t.attempts[0]!.log)).size).toBe(12);
      // Three elements of four tasks: three array tasks on the cluster. The campaign judged them
      // by their markers; the accounting of the last may come a little later (slurmdbd under load).
      expect(handles.size).toBe(3);
      await expect.poll(() => arrayTasksNamed(`${c.name}~`).length, { timeout: 30_000, interval: 1_000 }).toBe(3);
    },
    LONG,
  );

  it(
    'a task failing inside a packed element is retried alone',
    async (ctx) => {
      if (!ready()) return ctx.skip();
      const c = await packedCampaign(
        'packfail',
        8,
        `    command: 'if [ \${k} = 3 ] && [ ! -e failed_once ]; then touch failed_once; exit 3; fi; echo \${k} >> \${output}'
    walltime: 1m
    pack: 4
    retry: { failed: { attempts: 1 } }
`,
      );
      const r = await c.run();
      expect(r.code, r.stdout + r.stderr).toBe(0);
      await writtenOnce(c.workdir, 8);
      const state = await readState(c.stateDir);
      const [failing, others] = [
        Object.entries(state.tasks).filter(([, t]) => t.attempts.length > 1),
        Object.entries(state.tasks).filter(([, t]) => t.attempts.length === 1),
      ];
      expect(failing.length).toBe(1);
      expect(others.length).toBe(7);
      const [, t] = failing[0]!;
      expect(t.status).toBe('completed');
      expect(t.attempts[0]!.class).toBe('failed');
      expect(t.attempts[0]!.exitCode).toBe(3);
      // The retry's job holds it alone.
      const retryJob = t.attempts[1]!.handle!.split('_')[0]!;
      const sharing = Object.values(state.tasks).filter((x) =>
        x.attempts.some((a) => a.handle?.startsWith(`${retryJob}_`)),
      );
      expect(sharing.length).toBe(1);
    },
    LONG,
  );

  it(
    'an element reaching its time limit mid-pack: the running task is a timeout, the ones after it are sent again with no retry spent',
    async (ctx) => {
      if (!ready()) return ctx.skip();
      // Six tasks budgeted 9.6 s (8 s × margin 1.2) but running 20 s, in an element of 1 minute: Slurm ends it between 60 and 90 s, in the
      // third, fourth or fifth task, before the sixth starts. A second attempt is quick: the element of retries ends at once.
      const c = await packedCampaign(
        'packtime',
        6,
        `    command: 'if [ \${attempt} = 1 ]; then sleep 20; fi; echo \${k} >> \${output}'
    cost: { unit: step, units: 1, per_unit: 8s, measured_on: campaign-test }
    pack: 6
    retry: { timeout: { attempts: 1 } }
`,
      );
      const r = await c.run();
      expect(r.code, r.stdout + r.stderr).toBe(0);
      await writtenOnce(c.workdir, 6);
      const state = await readState(c.stateDir);
      const tasks = Object.values(state.tasks);
      for (const t of tasks) expect(t.status).toBe('completed');
      const timedOut = tasks.filter((t) => t.attempts[0]!.class === 'timeout');
      const unstarted = tasks.filter((t) => t.attempts[0]!.unstarted);
      expect(timedOut.length).toBe(1);
      expect(unstarted.length).toBeGreaterThanOrEqual(1);
      for (const t of [...timedOut, ...unstarted]) expect(t.attempts.length).toBe(2);
      for (const t of unstarted) expect(t.attempts[0]!.startedAt).toBeUndefined();
      const first = tasks.filter((t) => t.attempts.length === 1);
      expect(first.length + timedOut.length + unstarted.length).toBe(6);
    },
    LONG,
  );

  it(
    '2,000 tasks packed auto under max_jobs: 100 complete, the queue never holding more than 100 of them, a failing one retried alone',
    async (ctx) => {
      if (!ready()) return ctx.skip();
      const N = 2000;
      const LIMIT = 100;
      const { dir, workdir, stateDir } = await campaignDir('pack2000');
      const name = `pack2000-${RUN}`;
      // min_job 10 s over a cost of 1.2 s: elements of 10 tasks, 200 of them, twice the limit.
      const manifest = await writeManifest(
        dir,
        `campaign: ${name}
cluster:
  executor: slurm
  name: campaign-test
  login: ${sshd().target}
  host_key: ${sshd().fingerprint}
  partitions:
    - { name: debug, max_time: 30m }
  max_jobs: ${LIMIT}
  min_job: 10s
workdir: ${workdir}
defaults:
  resources: { cpus: 1, mem: 100M }
phases:
  - name: p
    grid: { k: [${Array.from({ length: N }, (_, i) => i + 1).join(', ')}] }
    output: o_\${k}.txt
    command: 'if [ \${k} = 777 ] && [ ! -e failed_once ]; then touch failed_once; exit 3; fi; echo \${k} >> \${output}'
    cost: { unit: step, units: 1, per_unit: 1s, measured_on: campaign-test }
    pack: auto
    retry: { failed: { attempts: 1 } }
`,
      );
      const env = { ...process.env, CAMPAIGN_SSH_KEY_FILE: sshd().keyFile };
      const cli = startCli(['run', manifest, '--state-dir', stateDir], { env });
      let exited = false;
      void cli.done.then(() => (exited = true));
      let most = 0;
      const deadline = Date.now() + 2 * LONG - 30_000;
      while (!exited && Date.now() < deadline) {
        most = Math.max(most, queued(`${name}~`));
        // Every 2 s: a queue that held more would hold them for longer than that, and squeue over
        // 2,000 array tasks costs the cluster's controller and the two cores of the suite.
        await sleep(2_000);
      }
      const r = await cli.done;
      expect(r.code, r.stdout + r.stderr).toBe(0);
      expect(most).toBeLessThanOrEqual(LIMIT);
      expect(most).toBeGreaterThan(1);
      await writtenOnce(workdir, N);
      const state = await readState(stateDir);
      const tasks = Object.values(state.tasks);
      expect(tasks.length).toBe(N);
      for (const t of tasks) expect(t.status).toBe('completed');
      expect(new Set(tasks.map((t) => t.attempts[0]!.handle)).size).toBe(N / 10);
      // The one that failed inside its element, retried in a job of its own.
      const retried = tasks.filter((t) => t.attempts.length > 1);
      expect(retried.length).toBe(1);
      const [first, again] = retried[0]!.attempts;
      expect(first!.class).toBe('failed');
      expect(first!.exitCode).toBe(3);
      const job = again!.handle!.split('_')[0]!;
      expect(tasks.filter((t) => t.attempts.some((a) => a.handle?.startsWith(`${job}_`))).length).toBe(1);
    },
    2 * LONG,
  );
});
