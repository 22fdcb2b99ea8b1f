/**
 * The slurm executor against the real test cluster (scripts/cluster/up), reached over real SSH
 * (scripts/sshd/up is its login node): whole campaigns through `campaign run`, their failures,
 * retries and values, checked against `sacct`. The submission's own cases are in
 * slurm-submission.test.ts.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readState, writeManifest } from '../../helpers/cli.js';
import { clusterEnv, jobsNamed } from '../../helpers/slurm-cluster.js';
import { LONG, RUN, planned, slurmSuite } from './suite.js';

const { clusterUp, ready, cluster, campaignDir, run } = slurmSuite('slurm');

describe.runIf(clusterUp)('slurm executor on the test cluster, over SSH', () => {
  it(
    'runs the distill shape: smoke, checklist, release, every output verified',
    async () => {
      if (!ready()) return;
      const { dir, workdir, stateDir } = await campaignDir('distill');
      const name = `distill-${RUN}`;
      const manifest = await writeManifest(
        dir,
        // Room for a whole stage at once (max_parallel is the campaign's: with less, a stratum's tasks may go in two sbatch).
        `${cluster(name, workdir).replace(/^( {2}max_parallel:) \d+$/m, '$1 4')}phases:
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
    command: python3 -c "import os; x = bytearray(300 * 1024 * 1024); open(os.environ['CAMPAIGN_OUTPUT'], 'w').write('ok')"
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
});
