/**
 * The slurm executor against the real test cluster (scripts/cluster/up), reached over real SSH
 * (scripts/sshd/up is its login node): campaigns run through `campaign run`, and the executor's
 * submission checked against `sacct`.
 */
import { mkdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { UserError } from '../../../src/errors.js';
import { parseManifest } from '../../../src/manifest/load.js';
import { planCampaign, type Plan } from '../../../src/plan/plan.js';
import type { Manifest } from '../../../src/manifest/schema.js';
import type { Submission } from '../../../src/state/events.js';
import { SlurmExecutor } from '../../../src/exec/slurm/slurm-executor.js';
import { SshTransport } from '../../../src/exec/transport/ssh.js';
import { readState, runCli, useBuiltCliAndTemp, writeManifest } from '../../helpers/cli.js';
import { sshdUp, type Sshd } from '../transport/sshd.js';
import { clusterEnv, clusterIsUp, jobsNamed, slurmManifestHead } from '../../helpers/slurm-cluster.js';

const clusterUp = clusterIsUp('Slurm executor tests');

const tempRoot = useBuiltCliAndTemp('slurm');
/** Campaign names unique to this run: sacct remembers earlier runs' jobs. */
const RUN = Date.now().toString(36);
/** A whole campaign on the cluster takes a minute or two. */
const LONG = 400_000;
let sshd: Sshd | undefined;

beforeAll(async () => {
  if (!clusterUp) return;
  sshd = await sshdUp();
  if (sshd) process.env.CAMPAIGN_SSH_KEY_FILE = sshd.keyFile;
}, 300_000);

const ready = (): boolean => clusterUp && sshd !== undefined;

/** A manifest file read back and planned, as the CLI would. */
async function planned(file: string): Promise<{ m: Manifest; plan: Plan }> {
  const m = parseManifest(file, await readFile(file, 'utf8')).manifest;
  return { m, plan: planCampaign(m) };
}

/** The slurm executor over SSH to the test login node. */
function openSlurm(m: Manifest, warn?: (w: string) => void): { transport: SshTransport; executor: SlurmExecutor } {
  const transport = new SshTransport({
    target: sshd!.target,
    hostKeyFingerprint: sshd!.fingerprint,
    keyFile: sshd!.keyFile,
  });
  const executor = new SlurmExecutor({
    manifest: m,
    transport,
    since: new Date().toISOString(),
    ...(warn ? { warn } : {}),
  });
  return { transport, executor };
}

const cluster = (name: string, workdir: string, extra = ''): string => slurmManifestHead(sshd!, name, workdir, extra);

async function campaignDir(name: string): Promise<{ dir: string; workdir: string; stateDir: string }> {
  const dir = join(tempRoot(), name);
  const workdir = join(dir, 'work');
  await mkdir(workdir, { recursive: true });
  return { dir, workdir, stateDir: join(dir, 'state') };
}

const run = (manifest: string, stateDir: string) =>
  runCli(['run', manifest, '--state-dir', stateDir, '--poll', '2'], { timeoutMs: 400_000 });

describe.runIf(clusterUp)('slurm executor on the test cluster, over SSH', () => {
  it(
    'runs the distill shape: smoke, checklist, release, every output verified',
    async () => {
      if (!ready()) return;
      const { dir, workdir, stateDir } = await campaignDir('distill');
      const name = `distill-${RUN}`;
      const manifest = await writeManifest(
        dir,
        `${cluster(name, workdir)}phases:
  - name: teachers
    grid: { N: [384, 512] }
    command: >
      for g in $(seq 1 \${units}); do printf '{"generation": %d, "N": %s}\\n' "$g" \${N}; done > \${output}
    output: ckpt/teacher_N\${N}.jsonl
    flush: per_generation
    cost: { unit: generation, units: 3, per_unit: { N=384: 1s, N=512: 2s }, measured_on: campaign-test, margin: 2 }
    smoke:
      tasks: { N: [384] }
      overrides: { units: 2 }
      trigger:
        - check: log_contains
          pattern: '^\\[campaign\\] task \\d+ -> '
        - check: records
          count: 2
          fields: [generation, N]
  - name: students
    depends_on: teachers
    preconditions: [{ exists: 'ckpt/teacher_N\${N}.jsonl' }]
    grid: { N: [384, 512], seed: [1, 2] }
    strata: [N]
    command: >
      for g in $(seq 1 \${units}); do printf '{"generation": %d, "N": %s, "seed": %s}\\n' "$g" \${N} \${seed}; done > \${output}
    output: results/N\${N}_seed\${seed}.jsonl
    flush: per_generation
    cost: { unit: generation, units: 2, per_unit: { N=384: 1s, N=512: 1s }, measured_on: campaign-test, margin: 2 }
    smoke:
      tasks: 2
      overrides: { units: 1 }
      trigger:
        - check: distinct_outputs
        - check: records
          count: 1
          fields: [generation, seed]
`,
      );
      const r = await run(manifest, stateDir);
      expect(r.code, r.stdout + r.stderr).toBe(0);
      const state = await readState(stateDir);
      expect(state.phases.teachers?.gate?.passed).toBe(true);
      expect(state.phases.students?.gate?.passed).toBe(true);
      for (const [id, t] of Object.entries(state.tasks)) {
        expect(t.status, id).toBe('completed');
        expect(t.attempts[0]!.handle, id).toMatch(/^\d+_\d+$/);
      }
      for (const N of [384, 512]) {
        for (const seed of [1, 2]) {
          const text = await readFile(join(workdir, `results/N${N}_seed${seed}.jsonl`), 'utf8');
          expect(text.trim().split('\n')).toHaveLength(2);
        }
      }
      // One sbatch per array chunk: 1 smoke + 2 full arrays for teachers, 2 smoke + 2 full for students.
      expect(jobsNamed(`${name}~`)).toHaveLength(7);
    },
    LONG,
  );

  it(
    'a failing task ends failed with its log tail and blocks its dependents',
    async () => {
      if (!ready()) return;
      const { dir, workdir, stateDir } = await campaignDir('failing');
      const manifest = await writeManifest(
        dir,
        `${cluster(`failing-${RUN}`, workdir)}phases:
  - name: a
    grid: { n: [1, 2] }
    command: 'if [ \${n} = 2 ]; then echo "the model diverged at step 7" >&2; exit 3; fi; echo ok > \${output}'
    output: a_\${n}.txt
    walltime: 5m
  - name: b
    depends_on: a
    command: echo b > \${output}
    output: b.txt
    walltime: 5m
`,
      );
      const r = await run(manifest, stateDir);
      expect(r.code).toBe(1);
      const state = await readState(stateDir);
      expect(state.tasks['a/n2']?.status).toBe('failed');
      expect(state.tasks['a/n2']?.attempts[0]?.exitCode).toBe(3);
      expect(state.tasks['a/n1']?.status).toBe('completed');
      expect(state.phases.b?.status).toBe('blocked');
      expect(state.phases.b?.reason).toMatch(/dependency a failed/);
      const summary = await readFile(join(stateDir, 'summary.md'), 'utf8');
      expect(summary).toContain('the model diverged at step 7');
    },
    LONG,
  );

  it(
    'retries a task over its --mem with more memory, and classifies a task over its walltime that ignores SIGTERM as TIMEOUT',
    async () => {
      if (!ready()) return;
      if (clusterEnv().CAMPAIGN_CLUSTER_MEMORY_MODE !== 'cgroup') {
        console.warn('*** out-of-memory retry not tested: the test cluster has no cgroup memory enforcement here ***');
        return;
      }
      const { dir, workdir, stateDir } = await campaignDir('limits');
      const manifest = await writeManifest(
        dir,
        `${cluster(`limits-${RUN}`, workdir)}phases:
  - name: big
    command: python3 -c "x = bytearray(300 * 1024 * 1024); open('\${output}', 'w').write('ok')"
    output: big.txt
    walltime: 5m
    resources: { mem: 100M }
    retry:
      out_of_memory: { attempts: 2, mem_factor: 4 }
  - name: slow
    command: trap '' TERM; sleep 600; echo late > \${output}
    output: slow.txt
    walltime: 1m
    retry:
      timeout: { attempts: 0 }
`,
      );
      const r = await run(manifest, stateDir);
      expect(r.code).toBe(1);
      const state = await readState(stateDir);
      const big = state.tasks['big/task']!;
      expect(big.status).toBe('completed');
      expect(big.attempts.map((a) => a.class)).toEqual(['out_of_memory', 'completed']);
      expect(big.attempts.map((a) => a.memBytes)).toEqual([100 * 1024 ** 2, 400 * 1024 ** 2]);
      const slow = state.tasks['slow/task']!;
      expect(slow.status).toBe('failed');
      expect(slow.attempts.map((a) => a.class)).toEqual(['timeout']);
    },
    LONG,
  );

  it(
    'a COMPLETED job whose output ends in a record cut off mid-write is unverified, and its retry completes',
    async () => {
      if (!ready()) return;
      const { dir, workdir, stateDir } = await campaignDir('cut');
      const manifest = await writeManifest(
        dir,
        `${cluster(`cut-${RUN}`, workdir)}phases:
  - name: p
    command: >
      for g in $(seq 1 \${units}); do printf '{"generation": %d}\\n' "$g"; done > \${output};
      if [ \${attempt} = 1 ]; then printf '{"genera' >> \${output}; fi
    output: out.jsonl
    flush: per_generation
    cost: { unit: generation, units: 2, per_unit: 1s, measured_on: campaign-test, progress: { records: true } }
    retry: { failed: { attempts: 1 } }
`,
      );
      const r = await run(manifest, stateDir);
      expect(r.code, r.stdout + r.stderr).toBe(0);
      const t = Object.values((await readState(stateDir)).tasks)[0]!;
      expect(t.attempts.map((a) => [a.class, a.reason])).toEqual([
        ['unverified', 'COMPLETED but out.jsonl: line 3 is not JSON (a record cut off mid-write?)'],
        ['completed', undefined],
      ]);
    },
    LONG,
  );

  it(
    'grid values full of quotes, $, backticks, blanks and newlines reach the program byte for byte',
    async () => {
      if (!ready()) return;
      const { dir, workdir, stateDir } = await campaignDir('bytes');
      const values = [`it's "quoted"`, '$HOME and $(id) and `id`', 'two\nlines', '  blanks  ', 'ünïcödé ✓'];
      const manifest = await writeManifest(
        dir,
        `${cluster(`bytes-${RUN}`, workdir)}phases:
  - name: v
    grid:
      value: ${JSON.stringify(values)}
    command: printf %s \${value} > \${output}
    output: out/\${tag}.txt
    walltime: 5m
`,
      );
      const r = await run(manifest, stateDir);
      expect(r.code, r.stdout + r.stderr).toBe(0);
      const { plan } = await planned(manifest);
      for (const t of plan.phases[0]!.tasks) {
        expect(await readFile(join(workdir, t.output!), 'utf8')).toBe(t.values.value);
      }
    },
    LONG,
  );

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
      expect(r.stderr).toContain(sshd!.fingerprint);
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
      await ex.close();
      expect(limits.maxArraySize).toBe(1001);
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
});
