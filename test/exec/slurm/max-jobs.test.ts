/**
 * A declared `cluster.max_jobs` on Slurm (the real test cluster, over SSH): `campaign check`
 * says the limit, where it comes from and how the plan fits it, and a campaign of eight tasks
 * never has more than that many of its array tasks in the queue, pending and running together,
 * while each task runs once and all complete. (The site's own limit, read from sacctmgr and
 * enforced by Slurm, is test/faults/exclusive/max-jobs.test.ts.)
 */
import { describe, expect, it } from 'vitest';
import { readState, runCli, startCli, writeManifest } from '../../helpers/cli.js';
import { arrayTasksNamed, slurm } from '../../helpers/slurm-cluster.js';
import { LONG, RUN, slurmSuite } from './suite.js';

const { clusterUp, ready, campaignDir, sshd } = slurmSuite('max-jobs');

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/** The campaign's array tasks the queue holds, pending or running. */
function queued(prefix: string): number {
  return slurm('squeue', ['-h', '-r', '-t', 'PENDING,RUNNING', '-o', '%j'])
    .split('\n')
    .filter((name) => name.startsWith(prefix)).length;
}

describe.runIf(clusterUp)('cluster.max_jobs on Slurm (real cluster, over SSH)', () => {
  it(
    'check says the limit and the waves; the queue never holds more of the campaign, and each task runs once',
    async (ctx) => {
      if (!ready()) return ctx.skip();
      const LIMIT = 3;
      const { dir, workdir, stateDir } = await campaignDir('max-jobs');
      const name = `maxjobs-${RUN}`;
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
workdir: ${workdir}
defaults:
  resources: { cpus: 1, mem: 100M }
phases:
  - name: p
    grid: { k: [1, 2, 3, 4, 5, 6, 7, 8] }
    command: 'sleep 3; echo \${k} > \${output}'
    output: o_\${k}.txt
    walltime: 5m
`,
      );
      const env = { ...process.env, CAMPAIGN_SSH_KEY_FILE: sshd().keyFile };
      const check = await runCli(['check', manifest], { env });
      expect(check.code, check.stdout + check.stderr).toBe(0);
      // The cluster group's other tests queue jobs of the same user, which count against the limit too.
      expect(check.stdout).toMatch(
        /max_jobs +3 jobs and array tasks queued at once \(cluster\.max_jobs\); (8 tasks; at most \d queued at once: sent in waves as room frees|your \d+ other jobs? in the queue fill it now)/,
      );

      const cli = startCli(['run', manifest, '--state-dir', stateDir, '--poll', '1'], { env });
      let exited = false;
      void cli.done.then(() => (exited = true));
      let most = 0;
      const deadline = Date.now() + LONG - 30_000;
      while (!exited && Date.now() < deadline) {
        most = Math.max(most, queued(`${name}~`));
        await sleep(200);
      }
      const r = await cli.done;
      expect(r.code, r.stdout + r.stderr).toBe(0);
      const state = await readState(stateDir);
      const tasks = Object.entries(state.tasks);
      expect(tasks.length).toBe(8);
      for (const [id, t] of tasks) {
        expect(t.status, id).toBe('completed');
        expect(t.attempts.length, id).toBe(1);
      }
      expect(most).toBeLessThanOrEqual(LIMIT);
      expect(most).toBeGreaterThanOrEqual(1);
      // Nothing twice: one array task on the cluster per task.
      expect(arrayTasksNamed(`${name}~`).length).toBe(8);
    },
    LONG,
  );
});
