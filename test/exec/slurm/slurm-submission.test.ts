/**
 * The slurm executor's submissions on the real test cluster, over real SSH: found again after a
 * crash rather than sent twice, sent elsewhere after a node failed, an index not in the task
 * table, a host key that does not match, a plan the cluster would refuse.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { UserError } from '../../../src/errors.js';
import { parseManifest } from '../../../src/manifest/load.js';
import type { Submission } from '../../../src/state/events.js';
import { planCampaign } from '../../../src/plan/plan.js';
import { SlurmExecutor } from '../../../src/exec/slurm/slurm-executor.js';
import { runCli, writeManifest } from '../../helpers/cli.js';
import { clusterEnv, jobsNamed } from '../../helpers/slurm-cluster.js';
import { LONG, RUN, planned, slurmSuite } from './suite.js';

const { clusterUp, sshd, ready, openSlurm, cluster, campaignDir, run } = slurmSuite('slurm-submission');

describe.runIf(clusterUp)('slurm executor submissions on the test cluster, over SSH', () => {
  it(
    'a submission repeated after a crash (a new controller, same decision) is found, not submitted again',
    async () => {
      if (!ready()) return;
      const { dir, workdir } = await campaignDir('idempotent');
      const name = `idem-${RUN}`;
      const manifest = await writeManifest(
        dir,
        `${cluster(name, workdir)}phases:
  - name: p
    grid: { n: [1, 2, 3] }
    command: echo \${n} > \${output}
    output: o_\${n}.txt
    walltime: 5m
`,
      );
      const { m, plan } = await planned(manifest);
      const array = plan.phases[0]!.arrays[0]!;
      const subs: Submission[] = plan.phases[0]!.tasks.map((task, index) => ({ task, attempt: 1, array, index }));
      const first = openSlurm(m).executor;
      const a = await first.submit(subs);
      await first.close();
      const second = openSlurm(m).executor;
      const b = await second.submit(subs);
      await second.close();
      expect(b).toHaveLength(3);
      expect(b.map((e) => ('handle' in e ? e.handle : e.type))).toEqual(
        a.map((e) => ('handle' in e ? e.handle : e.type)),
      );
      // Accounting records a new job within seconds: wait for it, then count.
      const deadline = Date.now() + 30_000;
      while (jobsNamed(`${name}~`).length === 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 1000));
      expect(jobsNamed(`${name}~`)).toHaveLength(1);
    },
    LONG,
  );

  it(
    'resubmits a task that failed on a node elsewhere, or where it failed when no other node can take it (warned once)',
    async () => {
      if (!ready()) return;
      const { dir, workdir } = await campaignDir('avoid');
      const manifest = await writeManifest(
        dir,
        `${cluster(`avoid-${RUN}`, workdir)}phases:
  - name: p
    grid: { n: [1, 2] }
    command: echo \${n} > \${output}
    output: o_\${n}.txt
    walltime: 5m
`,
      );
      const { m, plan } = await planned(manifest);
      const array = plan.phases[0]!.arrays[0]!;
      const task = plan.phases[0]!.tasks[1]!;
      const warnings: string[] = [];
      const ex = openSlurm(m, (w) => warnings.push(w)).executor;
      const node = clusterEnv().CAMPAIGN_CLUSTER_NODE!;
      const [event] = await ex.submit([{ task, attempt: 2, array, index: 1, avoidNodes: [node] }]);
      // The next task to avoid the same node goes there at once, without asking sbatch again or warning again.
      const other = plan.phases[0]!.tasks[0]!;
      const [again] = await ex.submit([{ task: other, attempt: 2, array, index: 0, avoidNodes: [node] }]);
      await ex.close();
      expect(again?.type).toBe('submitted');
      expect(warnings.filter((w) => w.startsWith('cannot avoid'))).toHaveLength(1);
      // The only node is excluded: sbatch refuses, and the task goes where it can rather than nowhere.
      expect(event?.type).toBe('submitted');
      expect(warnings.join('\n')).toMatch(
        new RegExp(`cannot avoid ${node}.*Requested node configuration is not available`),
      );
      const script = await readFile(join('log' in event! ? event.log! : '', '..', '..', 'job.sh'), 'utf8');
      expect(script).not.toContain('--exclude');
      expect('handle' in event! ? event.handle : '').toMatch(/^\d+_1$/);
    },
    LONG,
  );

  it(
    'an array index not in the task table aborts, classified as a gate failure',
    async () => {
      if (!ready()) return;
      const { dir, workdir } = await campaignDir('index');
      const manifest = await writeManifest(
        dir,
        `${cluster(`index-${RUN}`, workdir)}phases:
  - name: p
    command: echo ran > \${output}
    output: o.txt
    walltime: 5m
`,
      );
      const { m, plan } = await planned(manifest);
      const array = plan.phases[0]!.arrays[0]!;
      const { transport, executor: ex } = openSlurm(m);
      const [event] = await ex.submit([{ task: plan.phases[0]!.tasks[0]!, attempt: 1, array, index: 0 }]);
      expect(event?.type).toBe('submitted');
      const log = 'log' in event! ? event.log! : '';
      // Run the same script as index 5, which the table does not have. The wait includes the
      // time in the queue, which on a two-core machine shared with the rest of the suite can
      // be minutes, so it gets nearly all of the test's time.
      const script = join(log, '..', '..', 'job.sh');
      const r = await transport.exec(
        `sbatch --parsable --wait --array=5 --output=${script}.5.log ${script}; cat ${script}.5.log`,
        { timeoutMs: LONG - 30_000 },
      );
      await ex.close();
      expect(r.stdout).toMatch(/\[campaign\] gate index: FAIL array index 5 is not in the task table/);
      expect(r.stdout).not.toContain('[campaign] task 5 ->');
    },
    LONG,
  );

  it(
    'refuses a host whose key does not match the pinned fingerprint, showing the one presented',
    async () => {
      if (!ready()) return;
      const { dir, workdir, stateDir } = await campaignDir('hostkey');
      const text = cluster(`hostkey-${RUN}`, workdir).replace(
        /host_key: \S+/,
        'host_key: SHA256:AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA',
      );
      const manifest = await writeManifest(dir, `${text}phases:\n  - { name: p, command: 'true', walltime: 5m }\n`);
      const r = await run(manifest, stateDir);
      expect(r.code).toBe(2);
      expect(r.stderr).toContain(sshd().fingerprint);
      expect(jobsNamed(`hostkey-${RUN}~`)).toHaveLength(0);
    },
    LONG,
  );

  it(
    'refuses a plan the cluster would refuse before submitting anything',
    async () => {
      if (!ready()) return;
      const m = parseManifest(
        'x.yml',
        `${cluster('limits', '/tmp').replace('{ name: short, max_time: 3h }', '{ name: nosuch, max_time: 3h }')}phases:
  - { name: p, command: 'true', walltime: 2h }
`,
      ).manifest;
      const ex = openSlurm(m).executor;
      const limits = await ex.limits();
      // MaxArraySize is read only when an array's test says it matters (see below).
      expect(limits.maxArraySize).toBeUndefined();
      expect(await ex.maxArraySize()).toBe(1001);
      await ex.close();
      expect(limits.partitions.get('debug')).toBe(1800);
      expect(() => SlurmExecutor.checkPlan(planCampaign(m), limits)).toThrow(UserError);
      expect(() => SlurmExecutor.checkPlan(planCampaign(m), limits)).toThrow(/partition nosuch/);
      // No partitions declared: the jobs go to the default one, and its cap holds.
      expect(limits.defaultPartition).toBe('debug');
      const undeclared = parseManifest(
        'y.yml',
        `${cluster('limits', '/tmp').replace(/ {2}partitions:\n(?: {4}- .*\n)+/, '')}phases:
  - { name: p, command: 'true', walltime: 2h }
`,
      ).manifest;
      expect(() => SlurmExecutor.checkPlan(planCampaign(undeclared), limits)).toThrow(
        /asks 2h on debug \(the cluster's default partition\), whose MaxTime is 30m/,
      );
    },
    LONG,
  );

  it(
    "cuts arrays to the cluster's MaxArraySize, read once the test of an array larger than it is refused",
    async () => {
      if (!ready()) return;
      const { dir, workdir } = await campaignDir('array-size');
      // 1,200 tasks in arrays of up to 5,000 by the manifest; the test cluster allows 1,001.
      const head = cluster(`size-${RUN}`, workdir).replace(/^( {2}max_parallel: .*\n)/m, '$1  max_array_size: 5000\n');
      const values = Array.from({ length: 1200 }, (_, i) => i).join(', ');
      const manifest = await writeManifest(
        dir,
        `${head}phases:\n  - { name: p, grid: { n: [${values}] }, command: 'true', walltime: 5m }\n`,
      );
      expect(
        planCampaign(parseManifest('x.yml', await readFile(manifest, 'utf8')).manifest).phases[0]!.arrays,
      ).toHaveLength(1);
      const r = await runCli(['check', manifest]);
      expect(r.code, r.stdout + r.stderr).toBe(0);
      expect(r.stdout).toMatch(/sbatch --test-only accepts the 2 arrays/);
    },
    LONG,
  );
});
