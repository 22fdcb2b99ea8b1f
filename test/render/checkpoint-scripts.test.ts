/**
 * A warning before the kill, in the scripts that deliver it, run by real bash and real Python
 * with the patterns training code uses (test/fixtures/checkpoint): a flag handler that saves
 * and carries on, one that saves and exits 0, one that saves and exits 3, the same run by
 * `exec`, a launcher whose two workers must all see the signal, and a command that ignores it.
 * The wrapper of the local and ssh-gpu executors signals the task's process group `before` its
 * walltime ends; the Slurm batch script passes the signal Slurm sends it (`--signal=B:…`) on to
 * the command's process group. Either way the task's shell survives the warning, the attempt
 * ends when the command ends, with its status, and the end is judged as the method says: without
 * its output, a continuation (`timeout`); with it, by the normal checks. Both scripts pass
 * shellcheck.
 */
import { spawn, spawnSync } from 'node:child_process';
import { once } from 'node:events';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { parseMarkers } from '../../src/exec/slurm/markers.js';
import { classifyEnd } from '../../src/judge/attempt-end.js';
import { waitUntil } from '../helpers/cli.js';
import { manifest as manifestSchema } from '../../src/manifest/schema.js';
import { planCampaign } from '../../src/plan/plan.js';
import { renderSbatch, rowAttempt, rowEnvironment } from '../../src/render/sbatch.js';
import { renderTaskScript } from '../../src/render/task-script.js';
import { parseExitMarker, renderWrapper } from '../../src/render/wrapper.js';

const root = mkdtempSync(join(tmpdir(), 'campaign-checkpoint-scripts-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

const FIXTURES = resolve(import.meta.dirname, '../fixtures/checkpoint');
// The interpreter itself, not a version manager's shim: a shim's shell would die of the signal.
const PYTHON = spawnSync('python3', ['-c', 'import sys; print(sys.executable)'], { encoding: 'utf8' }).stdout.trim();

const shellcheck = (file: string): string => {
  const r = spawnSync('shellcheck', ['-s', 'bash', '-S', 'warning', file], { encoding: 'utf8' });
  return r.stdout + r.stderr;
};

/** A directory of its own for one run, with the training scripts copied in. */
function workdir(name: string): string {
  const dir = join(root, name);
  mkdirSync(dir, { recursive: true });
  for (const f of ['train.py', 'launcher.py']) copyFileSync(join(FIXTURES, f), join(dir, f));
  return dir;
}

/**
 * The six patterns, each as the command line a phase would declare (run in the task's
 * directory): 100 ms steps, and once warned, five more before finishing where it carries on.
 */
const PATTERNS = {
  carries: `${PYTHON} train.py carry 100000 0.1 5`,
  exits0: `${PYTHON} train.py exit0 100000 0.1`,
  exits3: `${PYTHON} train.py exit3 100000 0.1`,
  exec: `exec ${PYTHON} train.py carry 100000 0.1 5`,
  launcher: `${PYTHON} launcher.py carry 100000 0.1 5`,
  ignores: `${PYTHON} train.py ignore 100000 0.1`,
} as const;

const read = (path: string): string | undefined => (existsSync(path) ? readFileSync(path, 'utf8') : undefined);

describe('the wrapper of local and ssh-gpu: the warning reaches the command, and nothing else kills it early', () => {
  /** Runs one attempt under the wrapper, as the local executor does; the walltime, in seconds, leaves the command `before` after the warning. */
  const run = async (name: string, command: string, wall: number, before: number) => {
    const dir = workdir(name);
    const task = renderTaskScript({
      campaign: 'ck',
      index: 0,
      prelude: ['CAMPAIGN_TASK=p/task', `CAMPAIGN_WORKDIR=${dir}`],
      setup: [],
      command,
      inputs: 0,
      checkpointSignal: 'USR1',
    });
    writeFileSync(join(dir, 'task.sh'), task);
    writeFileSync(
      join(dir, 'wrapper.sh'),
      renderWrapper({
        dir,
        walltimeSeconds: wall,
        killAfterSeconds: 1,
        checkpoint: { signal: 'USR1', beforeSeconds: before },
      }),
    );
    expect(shellcheck(join(dir, 'wrapper.sh'))).toBe('');
    // shellcheck would say, rightly, that nothing after a user's `exec` runs.
    if (!command.startsWith('exec ')) expect(shellcheck(join(dir, 'task.sh'))).toBe('');
    const child = spawn('bash', [join(dir, 'wrapper.sh')], { stdio: 'ignore' });
    const [code] = (await once(child, 'exit')) as [number | null];
    expect(code).toBe(0);
    const marker = parseExitMarker(readFileSync(join(dir, 'exit'), 'utf8'), new Date().toISOString());
    const log = readFileSync(join(dir, 'log'), 'utf8');
    const exists = existsSync(join(dir, 'out.txt'));
    const judged = classifyEnd({
      marker,
      log,
      walltimeSeconds: wall,
      oomPatterns: [],
      output: { path: 'out.txt', exists, fresh: exists },
    });
    return { dir, marker, log, judged };
  };
  // The warning comes 6 s in, time enough for Python (three processes under the launcher) to
  // start however loaded the machine.
  const WALL = 10;
  const BEFORE = 4;

  it.concurrent('(a) a flag handler saves, carries on and finishes: completed, not killed at the warning', async () => {
    const r = await run('w-carries', PATTERNS.carries, WALL, BEFORE);
    expect(r.marker, r.log).toMatchObject({ code: 0, cause: 'exit' });
    expect(r.marker.warnedAt).toBeDefined();
    const saved = Number(/^checkpoint at (\d+)$/m.exec(r.log)?.[1]);
    expect(r.log).toContain(`step ${saved + 5}\nfinished`);
    expect(r.judged).toEqual({ cls: 'completed' });
  });

  it.concurrent(
    '(a) one still working at the walltime is ended by it: a continuation, its checkpoint written',
    async () => {
      const r = await run('w-carries-on', `${PYTHON} train.py carry 100000 0.1`, 9, 3);
      expect(r.marker, r.log).toMatchObject({ cause: 'walltime' });
      expect(read(join(r.dir, 'ckpt.txt'))).toMatch(/^\d+\n$/);
      expect(r.judged.cls).toBe('timeout');
      expect(r.judged.reason).toMatch(/^signalled at 0:\d\d, ended at 0:\d\d \(time limit\)$/);
    },
  );

  it.concurrent('(b) a handler that saves and exits 0 without its output: a continuation, said so', async () => {
    const r = await run('w-exits0', PATTERNS.exits0, WALL, BEFORE);
    expect(r.marker, r.log).toMatchObject({ code: 0, cause: 'exit' });
    expect(read(join(r.dir, 'ckpt.txt'))).toMatch(/^\d+\n$/);
    expect(r.judged.cls).toBe('timeout');
    expect(r.judged.reason).toMatch(/^signalled at 0:0\d, exited 0 at 0:0\d without its output$/);
  });

  it.concurrent('(c) a handler that saves and exits 3: a continuation, its status said', async () => {
    const r = await run('w-exits3', PATTERNS.exits3, WALL, BEFORE);
    expect(r.marker, r.log).toMatchObject({ code: 3, cause: 'exit' });
    expect(read(join(r.dir, 'ckpt.txt'))).toMatch(/^\d+\n$/);
    expect(r.judged.cls).toBe('timeout');
    expect(r.judged.reason).toMatch(/^signalled at 0:0\d, exited 3 at 0:0\d without its output$/);
  });

  it.concurrent('(d) `exec python …`: the same as (a)', async () => {
    const r = await run('w-exec', PATTERNS.exec, WALL, BEFORE);
    expect(r.marker, r.log).toMatchObject({ code: 0, cause: 'exit' });
    expect(r.log).toMatch(/^checkpoint at \d+$/m);
    expect(r.judged).toEqual({ cls: 'completed' });
  });

  it.concurrent('(e) a launcher and its two workers all see the signal; each saves and finishes', async () => {
    const r = await run('w-launcher', PATTERNS.launcher, WALL, BEFORE);
    expect(r.marker, r.log).toMatchObject({ code: 0, cause: 'exit' });
    expect(r.log).toContain('launcher warned: True; workers exited [0, 0]');
    expect(read(join(r.dir, 'ckpt.0.txt'))).toMatch(/^\d+\n$/);
    expect(read(join(r.dir, 'ckpt.1.txt'))).toMatch(/^\d+\n$/);
    expect(r.judged).toEqual({ cls: 'completed' });
  });

  it.concurrent('(f) a command that ignores it runs to the walltime: a continuation at the time limit', async () => {
    const r = await run('w-ignores', PATTERNS.ignores, 9, 3);
    expect(r.marker, r.log).toMatchObject({ cause: 'walltime' });
    expect(r.marker.warnedAt).toBeDefined();
    expect(existsSync(join(r.dir, 'ckpt.txt'))).toBe(false);
    expect(r.judged.reason).toMatch(/^signalled at 0:\d\d, ended at 0:\d\d \(time limit\)$/);
  });

  it.concurrent('a task that ends before the warning is not warned', async () => {
    const r = await run('w-quick', `${PYTHON} train.py carry 3 0.1`, 8, 2);
    expect(r.marker).toMatchObject({ cause: 'exit', code: 0 });
    expect(r.marker.warnedAt).toBeUndefined();
    expect(existsSync(join(r.dir, 'ckpt.txt'))).toBe(false);
    expect(r.judged).toEqual({ cls: 'completed' });
  });
});

describe('the Slurm batch script passes the warning on to the command and ends when it does', () => {
  /** The batch script of one task of a checkpointing phase, and its table, written in `dir`. */
  function rendered(dir: string, signal: string, command: string, resume: boolean) {
    const m = manifestSchema.parse({
      campaign: 'ck',
      cluster: { executor: 'slurm', name: 'test' },
      workdir: dir,
      phases: [{ name: 'p', command, walltime: '5m', checkpoint: { signal, before: '40s' } }],
    });
    const plan = planCampaign(m);
    const array = plan.phases[0]!.arrays.find((a) => a.stage === 'full')!;
    const tablePath = join(dir, 'table.tsv');
    const out = renderSbatch({
      manifest: m,
      array,
      jobName: 'campaign-ck',
      key: array.id,
      submission: 'c0ffee000001',
      rows: [{ index: 0, task: plan.phases[0]!.tasks[0]!, attempt: 2, ...(resume ? { resume: true } : {}) }],
      workdir: dir,
      tablePath,
      logDir: join(dir, 'logs'),
      markerDir: join(dir, 'markers'),
    });
    writeFileSync(tablePath, out.table);
    writeFileSync(join(dir, 'job.sh'), out.script);
    return { ...out, file: join(dir, 'job.sh') };
  }

  /**
   * Runs the batch script as Slurm would and, once the command is ready, signals its shell
   * alone as `--signal=B:` does; each later signal once the log shows `until`. The run ends by
   * itself: no time limit comes unless a signal here is one.
   */
  async function runSignalled(dir: string, file: string, signals: { signal: string; until?: string }[]) {
    const child = spawn('bash', [file], {
      cwd: dir,
      env: { PATH: process.env.PATH, SLURM_ARRAY_JOB_ID: '77', SLURM_ARRAY_TASK_ID: '0' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let log = '';
    child.stdout.on('data', (d: Buffer) => (log += d.toString()));
    child.stderr.on('data', (d: Buffer) => (log += d.toString()));
    // 'close', not 'exit': the pipes may still hold the command's last lines when it exits.
    const done = new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)));
    await waitUntil(`the command to be ready in ${dir}`, async () => existsSync(join(dir, 'ready')) || undefined);
    for (const { signal, until } of signals) {
      if (until !== undefined) await waitUntil(`"${until}" in the log`, async () => log.includes(until) || undefined);
      child.kill(`SIG${signal}` as NodeJS.Signals);
    }
    const code = await done;
    const markers = parseMarkers(
      ['0.start', '0.warn', '0.end'].map((f) => read(join(dir, 'markers', f)) ?? '').join(''),
    ).get('77_0');
    return { code, log, markers };
  }

  /** Runs one pattern warned by USR1; returns when the script has ended by itself. */
  const warned = async (name: string, command: string, more: { signal: string; until?: string }[] = []) => {
    const dir = workdir(name);
    const { file } = rendered(dir, 'USR1', command, false);
    expect(shellcheck(file)).toBe('');
    return { dir, ...(await runSignalled(dir, file, [{ signal: 'USR1' }, ...more])) };
  };

  it('asks Slurm for the warning, tells the command whether it resumes, and passes shellcheck', () => {
    const dir = join(root, 'slurm-render');
    mkdirSync(join(dir, 'a'), { recursive: true });
    mkdirSync(join(dir, 'b'), { recursive: true });
    const first = rendered(join(dir, 'a'), 'USR1', 'true', false);
    expect(first.script).toContain('#SBATCH --signal=B:USR1@40');
    expect(shellcheck(first.file)).toBe('');
    const resume = (table: string) => rowEnvironment(table.trim().split('\n').at(-1)!)?.env.get('CAMPAIGN_RESUME');
    expect(resume(first.table)).toBe('0');
    const again = rendered(join(dir, 'b'), 'TERM', 'true', true);
    expect(resume(again.table)).toBe('1');
    expect(rowAttempt(again.table.trim().split('\n').at(-1)!)).toMatchObject({ attempt: 2 });
    expect(shellcheck(again.file)).toBe('');
  });

  it.concurrent('(a) a flag handler saves, carries on and finishes: the job ends with it, exit 0', async () => {
    const r = await warned('s-carries', PATTERNS.carries);
    expect(r.code, r.log).toBe(0);
    expect(r.log).toMatch(/^checkpoint at \d+$/m);
    expect(r.log).toContain('finished');
    expect(r.markers).toMatchObject({ end: { code: 0 } });
    expect(r.markers?.warnedAt).toBeDefined();
  });

  it.concurrent('(b) saves and exits 0: the job ends then, exit 0, the warning recorded', async () => {
    const r = await warned('s-exits0', PATTERNS.exits0);
    expect(r.code, r.log).toBe(0);
    expect(read(join(r.dir, 'ckpt.txt'))).toMatch(/^\d+\n$/);
    expect(r.markers).toMatchObject({ end: { code: 0 } });
    expect(r.markers?.warnedAt).toBeDefined();
  });

  it.concurrent('(c) saves and exits 3: the job ends then, not at the time limit, with exit 3', async () => {
    const r = await warned('s-exits3', PATTERNS.exits3);
    expect(r.code, r.log).toBe(3);
    expect(read(join(r.dir, 'ckpt.txt'))).toMatch(/^\d+\n$/);
    expect(r.markers).toMatchObject({ end: { code: 3 } });
    expect(r.markers?.end).not.toHaveProperty('signal');
  });

  it.concurrent('(d) `exec python …`: the same as (a)', async () => {
    const r = await warned('s-exec', PATTERNS.exec);
    expect(r.code, r.log).toBe(0);
    expect(r.log).toMatch(/^checkpoint at \d+$/m);
    expect(r.markers).toMatchObject({ end: { code: 0 } });
  });

  it.concurrent('(e) a launcher and its two workers all see the signal', async () => {
    const r = await warned('s-launcher', PATTERNS.launcher);
    expect(r.code, r.log).toBe(0);
    expect(r.log).toContain('launcher warned: True; workers exited [0, 0]');
    expect(read(join(r.dir, 'ckpt.0.txt'))).toMatch(/^\d+\n$/);
    expect(read(join(r.dir, 'ckpt.1.txt'))).toMatch(/^\d+\n$/);
    expect(read(join(r.dir, 'out.txt'))).toBeDefined();
  });

  it.concurrent('(f) a command that ignores it runs on until the time limit (the next SIGTERM)', async () => {
    const r = await warned('s-ignores', PATTERNS.ignores, [{ signal: 'TERM', until: 'step 20\n' }]);
    expect(r.code, r.log).toBe(143);
    expect(r.log).toContain('step 20');
    expect(r.markers).toMatchObject({ end: { code: 143, signal: 'TERM' } });
    expect(r.markers?.warnedAt).toBeDefined();
  });

  it.concurrent('a warning by SIGTERM is passed on; the next SIGTERM, the time limit, ends the task', async () => {
    const dir = workdir('s-term');
    // A shell command that saves on the first SIGTERM, then dies of the next, as most do.
    const command =
      'n=0; trap \'echo "$n" > ckpt.txt; echo saved "$n"; trap - TERM\' TERM; : > ready; ' +
      'while [ "$n" -lt 1000 ]; do sleep 0.1 & wait $!; n=$((n + 1)); done; echo finished';
    const { file } = rendered(dir, 'TERM', command, false);
    const r = await runSignalled(dir, file, [{ signal: 'TERM' }, { signal: 'TERM', until: 'saved' }]);
    expect(r.code, r.log).toBe(143);
    expect(r.log).toMatch(/^saved \d+$/m);
    expect(r.markers).toMatchObject({ end: { code: 143, signal: 'TERM' } });
    expect(r.markers?.warnedAt).toBeDefined();
  });
});
