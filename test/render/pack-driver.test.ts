/**
 * The driver of a packed array element (render/pack-driver.ts), run by real bash with Slurm's
 * variables set by hand: it runs its element's rows, each as task.sh with its own log and
 * markers, K side by side; SIGTERM reaches the running task and no later row starts.
 */
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { parseMarkers } from '../../src/exec/slurm/markers.js';
import { manifest as manifestSchema } from '../../src/manifest/schema.js';
import { planCampaign } from '../../src/plan/plan.js';
import { parseElementLine } from '../../src/render/pack-driver.js';
import { renderSbatch, rowAttempt, type SbatchRow } from '../../src/render/sbatch.js';

const root = mkdtempSync(join(tmpdir(), 'campaign-pack-driver-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

const JOB = '4343';

/** One submission of `n` tasks packed `tasks` to an element, `parallel` side by side, written in a fresh dir. */
function packed(n: number, pack: unknown, command: string, resources: object = { cpus: 2, mem: '200M' }) {
  const dir = mkdtempSync(join(root, 'sub-'));
  const m = manifestSchema.parse({
    campaign: 'packd',
    cluster: { executor: 'slurm', name: 'test', partitions: [{ name: 'debug', max_time: '30m' }] },
    workdir: dir,
    phases: [
      {
        name: 'p',
        grid: { k: Array.from({ length: n }, (_, i) => String(i + 1)) },
        command,
        walltime: '1m',
        pack,
        resources,
      },
    ],
  });
  const array = planCampaign(m).phases[0]!.arrays.find((a) => a.stage === 'full')!;
  const per = array.packing!.tasks;
  const rows: SbatchRow[] = planCampaign(m).phases[0]!.tasks.map((task, index) => ({
    index,
    task,
    attempt: 1,
    element: Math.floor(index / per),
  }));
  const out = renderSbatch({
    manifest: m,
    array,
    jobName: 'campaign-packd',
    key: array.id,
    submission: 'abcdef012345',
    rows,
    workdir: dir,
    tablePath: join(dir, 'table.tsv'),
    logDir: join(dir, 'logs'),
    markerDir: join(dir, 'markers'),
  });
  mkdirSync(join(dir, 'logs'));
  writeFileSync(join(dir, 'table.tsv'), out.table);
  writeFileSync(join(dir, 'job.sh'), out.script);
  writeFileSync(join(dir, 'task.sh'), out.task!);
  const env = (element: number): NodeJS.ProcessEnv => ({
    PATH: process.env.PATH ?? '/usr/bin:/bin',
    SLURM_ARRAY_JOB_ID: JOB,
    SLURM_ARRAY_TASK_ID: String(element),
    SLURMD_NODENAME: 'node7',
  });
  const markers = () => parseMarkers(spawnSync('bash', ['-c', `cat ${dir}/markers/*`], { encoding: 'utf8' }).stdout);
  return { dir, out, env, markers };
}

describe('a packed element', () => {
  it('is an array of elements, each asking the sum of its tasks, with its rows in the table', () => {
    const { out } = packed(5, 2, 'echo ${k}');
    expect(out.script).toMatch(/^#SBATCH --array=0-2$/m);
    // Two tasks of 1 minute to an element.
    expect(out.script).toMatch(/^#SBATCH --time=00:02:00$/m);
    expect(out.script).toMatch(/^#SBATCH --output=.*\/logs\/e%a\.log$/m);
    expect(out.script).not.toMatch(/\beval\b/);
    expect(out.task).not.toMatch(/^#SBATCH/m);
    const lines = out.table.split('\n');
    expect(lines.flatMap((l) => parseElementLine(l) ?? [])).toEqual([
      { element: 0, rows: [0, 1] },
      { element: 1, rows: [2, 3] },
      { element: 2, rows: [4] },
    ]);
    // The element lines are no task rows.
    expect(lines.filter((l) => rowAttempt(l)).length).toBe(5);
  });

  it('passes shellcheck, one at a time or side by side with GPUs', () => {
    for (const { dir } of [
      packed(3, 3, 'echo ${k}'),
      packed(4, { tasks: 4, parallel: 2 }, 'echo ${k}', { cpus: 2, gpus: 2, mem: '200M' }),
    ]) {
      const r = spawnSync('shellcheck', ['-s', 'bash', '-S', 'warning', join(dir, 'job.sh')], { encoding: 'utf8' });
      expect(r.stdout + r.stderr).toBe('');
    }
  });

  it('runs its rows in order, each with its own log and markers, and no other element’s', () => {
    const { dir, env, markers } = packed(5, 2, 'echo ran ${k}');
    const r = spawnSync('bash', [join(dir, 'job.sh')], { cwd: dir, encoding: 'utf8', env: env(1) });
    expect(r.status, r.stdout + r.stderr).toBe(0);
    expect(r.stdout).toMatch(/element 1 runs row 2 \(slot 0\)\n[^]*element 1 runs row 3 \(slot 0\)/);
    expect(readFileSync(join(dir, 'logs', '2.log'), 'utf8')).toContain('ran 3');
    expect(readFileSync(join(dir, 'logs', '3.log'), 'utf8')).toContain('ran 4');
    expect(existsSync(join(dir, 'logs', '0.log'))).toBe(false);
    const m = markers();
    expect([...m.keys()].sort()).toEqual([`${JOB}_2`, `${JOB}_3`]);
    for (const x of m.values()) expect(x.end).toMatchObject({ code: 0 });
  });

  it('keeps its failed task’s status in that task’s marker, and runs the next', () => {
    const { dir, env, markers } = packed(2, 2, 'exit $(( ${k} == 1 ? 3 : 0 ))');
    const r = spawnSync('bash', [join(dir, 'job.sh')], { cwd: dir, encoding: 'utf8', env: env(0) });
    expect(r.status).toBe(0);
    expect(markers().get(`${JOB}_0`)?.end?.code).toBe(3);
    expect(markers().get(`${JOB}_1`)?.end?.code).toBe(0);
  });

  it('runs `parallel` side by side', () => {
    // Four tasks of 2 s, two at a time: two waves, 4 s (one at a time would take 8).
    const { dir, env } = packed(4, { tasks: 4, parallel: 2 }, 'sleep 2');
    const t0 = Date.now();
    const r = spawnSync('bash', [join(dir, 'job.sh')], { cwd: dir, encoding: 'utf8', env: env(0) });
    expect(r.status).toBe(0);
    const s = (Date.now() - t0) / 1000;
    expect(s).toBeGreaterThanOrEqual(4);
    expect(s).toBeLessThan(7);
  });

  it('gives side-by-side tasks equal shares of the element’s GPUs and CPUs, each task its own devices', () => {
    // Six tasks, three at a time, in an element of 6 CPUs and 6 GPUs: two of each per task.
    const { dir, env, markers } = packed(
      6,
      { tasks: 6, parallel: 3 },
      'echo "share dev=$CUDA_VISIBLE_DEVICES cpus=$SLURM_CPUS_PER_TASK omp=$OMP_NUM_THREADS campaign=$CAMPAIGN_CPUS"; sleep 0.3',
      { cpus: 6, gpus: 6, mem: '200M' },
    );
    const r = spawnSync('bash', [join(dir, 'job.sh')], {
      cwd: dir,
      encoding: 'utf8',
      env: { ...env(0), CUDA_VISIBLE_DEVICES: '3,4,5,6,7,8', SLURM_CPUS_PER_TASK: '6' },
    });
    expect(r.status, r.stdout + r.stderr).toBe(0);
    const m = markers();
    const runs = [0, 1, 2, 3, 4, 5].map((row) => {
      const log = readFileSync(join(dir, 'logs', `${row}.log`), 'utf8');
      // Its devices gate counted its share and passed.
      expect(log, `row ${row}`).toContain('[campaign] gate devices: ok');
      const [, dev = ''] = /share dev=(\S*) cpus=2 omp=2 campaign=2$/m.exec(log) ?? [];
      const x = m.get(`${JOB}_${row}`)!;
      expect(x.end?.code, `row ${row}`).toBe(0);
      return { dev, from: Date.parse(x.startedAt!), to: Date.parse(x.end!.at) };
    });
    // Each share is a whole slot's slice of the element's devices.
    for (const run of runs) expect(['3,4', '5,6', '7,8']).toContain(run.dev);
    // Tasks that ran at the same time held different devices; all three slices were used.
    for (const a of runs)
      for (const b of runs)
        if (a !== b && a.from < b.to && b.from < a.to) expect(a.dev, JSON.stringify([a, b])).not.toBe(b.dev);
    expect(new Set(runs.slice(0, 3).map((x) => x.dev)).size).toBe(3);
  });

  it('leaves a side-by-side task short of its share of GPUs to its devices gate', () => {
    // Slurm gave the element 2 of its 4 GPUs: the second slot's task finds none.
    const { dir, env, markers } = packed(2, { tasks: 2, parallel: 2 }, 'true', { cpus: 2, gpus: 4, mem: '200M' });
    const r = spawnSync('bash', [join(dir, 'job.sh')], {
      cwd: dir,
      encoding: 'utf8',
      env: { ...env(0), CUDA_VISIBLE_DEVICES: '0,1' },
    });
    expect(r.status, r.stdout + r.stderr).toBe(0);
    const ends = [0, 1].map((row) => markers().get(`${JOB}_${row}`)?.end);
    expect(ends.map((e) => e?.code).sort()).toEqual([0, 97]);
    expect(ends.find((e) => e?.code === 97)?.gate).toBe('devices');
  });

  it(
    'on SIGTERM, passes it to the running task, which records it, and starts no later row',
    { timeout: 20_000 },
    async () => {
      const { dir, env, markers } = packed(3, 3, 'sleep 30');
      const child = spawn('bash', [join(dir, 'job.sh')], { cwd: dir, env: env(0), stdio: 'ignore' });
      const deadline = Date.now() + 10_000;
      while (!markers().get(`${JOB}_0`)?.startedAt && Date.now() < deadline)
        await new Promise((r) => setTimeout(r, 100));
      await new Promise((r) => setTimeout(r, 300));
      child.kill('SIGTERM');
      const code = await new Promise<number | null>((r) => child.on('exit', (c) => r(c)));
      expect(code).toBe(143);
      const m = markers();
      expect(m.get(`${JOB}_0`)?.end).toMatchObject({ signal: 'TERM' });
      expect(m.has(`${JOB}_1`)).toBe(false);
      expect(m.has(`${JOB}_2`)).toBe(false);
    },
  );
});
