/**
 * A warning before the kill, in the scripts that deliver it, run by real bash: the wrapper of
 * the local and ssh-gpu executors signals the task's process group `before` its walltime ends,
 * and the Slurm batch script passes the signal Slurm sends it (`--signal=B:…`) on to the
 * command's process group and goes on waiting for the command. Both pass shellcheck.
 */
import { spawn, spawnSync } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { parseMarkers } from '../../src/exec/slurm/markers.js';
import { waitUntil } from '../helpers/cli.js';
import { manifest as manifestSchema } from '../../src/manifest/schema.js';
import { planCampaign } from '../../src/plan/plan.js';
import { renderSbatch, rowAttempt } from '../../src/render/sbatch.js';
import { parseExitMarker, renderWrapper } from '../../src/render/wrapper.js';

const root = mkdtempSync(join(tmpdir(), 'campaign-checkpoint-scripts-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

const shellcheck = (file: string): string => {
  const r = spawnSync('shellcheck', ['-s', 'bash', '-S', 'warning', file], { encoding: 'utf8' });
  return r.stdout + r.stderr;
};

/** Waits, briefly, for a file to appear. */
async function appears(path: string, ms = 10_000): Promise<void> {
  const end = Date.now() + ms;
  while (!existsSync(path)) {
    if (Date.now() > end) throw new Error(`${path} did not appear`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/**
 * A command that works in steps until it has done `steps`, saving its step to `ckpt` when
 * signalled; `then` is what it does after saving (go on, or exit).
 */
const worker = (signal: string, then: string, steps = 1000): string =>
  `n=0; trap 'echo "$n" > ckpt; echo saved "$n"; ${then}' ${signal}; : > running; ` +
  `while [ "$n" -lt ${steps} ]; do sleep 0.1 & wait $!; n=$((n + 1)); done; echo finished`;

describe('the wrapper warns the task before its walltime', () => {
  const run = async (dir: string, task: string, wall: number, before: number) => {
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, 'task.sh'), task);
    const wrapper = renderWrapper({
      dir,
      walltimeSeconds: wall,
      killAfterSeconds: 1,
      checkpoint: { signal: 'USR1', beforeSeconds: before },
    });
    writeFileSync(join(dir, 'wrapper.sh'), wrapper);
    expect(shellcheck(join(dir, 'wrapper.sh'))).toBe('');
    const child = spawn('bash', [join(dir, 'wrapper.sh')], { stdio: 'ignore' });
    const [code] = (await once(child, 'exit')) as [number | null];
    expect(code).toBe(0);
    return {
      marker: parseExitMarker(readFileSync(join(dir, 'exit'), 'utf8'), new Date().toISOString()),
      log: readFileSync(join(dir, 'log'), 'utf8'),
    };
  };

  it.concurrent('a task that saves and carries on is ended by its walltime, its checkpoint written', async () => {
    const dir = join(root, 'carry-on');
    const { marker, log } = await run(dir, worker('USR1', ':'), 3, 2);
    expect(marker.cause).toBe('walltime');
    expect(log).toMatch(/^saved \d+$/m);
    expect(log).not.toContain('finished');
    expect(readFileSync(join(dir, 'ckpt'), 'utf8')).toMatch(/^\d+\n$/);
  });

  it.concurrent('a task that saves and exits on the warning is taken as stopped by its walltime', async () => {
    const dir = join(root, 'exits');
    const { marker, log } = await run(dir, worker('USR1', 'exit 1'), 3, 2);
    expect(marker).toMatchObject({ cause: 'walltime', code: 1 });
    expect(log).toMatch(/^saved \d+$/m);
  });

  it.concurrent('a task that ends before the warning is not warned', async () => {
    const dir = join(root, 'quick');
    const { marker, log } = await run(dir, worker('USR1', ':', 3), 4, 1);
    expect(marker).toMatchObject({ cause: 'exit', code: 0 });
    expect(log).toContain('finished');
    expect(existsSync(join(dir, 'ckpt'))).toBe(false);
  });
});

describe('the Slurm batch script passes the warning on to the command', () => {
  /** The batch script of one task of a checkpointing phase, and its table, written in `dir`. */
  function rendered(dir: string, signal: string, command: string, resume: boolean) {
    mkdirSync(dir, { recursive: true });
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

  /** Runs the batch script as Slurm would, signals its shell alone as `--signal=B:` does, and waits for its end. */
  async function runSignalled(dir: string, file: string, signals: { signal: string; until?: string }[]) {
    const child = spawn('bash', [file], {
      cwd: dir,
      env: { PATH: process.env.PATH, SLURM_ARRAY_JOB_ID: '77', SLURM_ARRAY_TASK_ID: '0' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let log = '';
    child.stdout.on('data', (d: Buffer) => (log += d.toString()));
    child.stderr.on('data', (d: Buffer) => (log += d.toString()));
    const done = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
    await appears(join(dir, 'running'));
    for (const { signal, until } of signals) {
      child.kill(`SIG${signal}` as NodeJS.Signals);
      // The next signal only once this one has done what it does, however loaded the machine.
      if (until !== undefined) await waitUntil(`"${until}" in the log`, async () => log.includes(until) || undefined);
    }
    const code = await done;
    const end = parseMarkers(readFileSync(join(dir, 'markers', '0.end'), 'utf8')).get('77_0')?.end;
    return { code, log, end };
  }

  it('asks Slurm for the warning, tells the command whether it resumes, and passes shellcheck', () => {
    const dir = join(root, 'slurm-render');
    const first = rendered(join(dir, 'a'), 'USR1', 'true', false);
    expect(first.script).toContain('#SBATCH --signal=B:USR1@40');
    expect(shellcheck(first.file)).toBe('');
    const row = (table: string) =>
      Buffer.from(table.trim().split('\n').at(-1)!.split('\t')[1]!, 'base64').toString('utf8').split('\0');
    expect(row(first.table)).toContain('CAMPAIGN_RESUME=0');
    const again = rendered(join(dir, 'b'), 'TERM', 'true', true);
    expect(row(again.table)).toContain('CAMPAIGN_RESUME=1');
    expect(rowAttempt(again.table.trim().split('\n').at(-1)!)).toMatchObject({ attempt: 2 });
    expect(shellcheck(again.file)).toBe('');
  });

  it.concurrent('a warning by USR1 reaches the command, which saves, goes on and completes', async () => {
    const dir = join(root, 'slurm-usr1');
    const { file } = rendered(dir, 'USR1', worker('USR1', ':', 15), false);
    const r = await runSignalled(dir, file, [{ signal: 'USR1' }]);
    expect(r.code, r.log).toBe(0);
    expect(r.log).toMatch(/^saved \d+$/m);
    expect(r.log).toContain('finished');
    expect(r.end).toMatchObject({ code: 0 });
  });

  it.concurrent('a warning by SIGTERM is passed on; the next SIGTERM, the time limit, ends the task', async () => {
    const dir = join(root, 'slurm-term');
    // Once saved, the command dies of the next SIGTERM, as most do.
    const { file } = rendered(dir, 'TERM', worker('TERM', 'trap - TERM'), false);
    const r = await runSignalled(dir, file, [{ signal: 'TERM', until: 'saved' }, { signal: 'TERM' }]);
    expect(r.code, r.log).toBe(143);
    expect(r.log).toMatch(/^saved \d+$/m);
    expect(r.end).toMatchObject({ code: 143, signal: 'TERM' });
  });

  it.concurrent('a command that exits after saving leaves the job to end at its time limit', async () => {
    const dir = join(root, 'slurm-exits');
    const { file } = rendered(dir, 'USR1', worker('USR1', 'exit 3'), false);
    const r = await runSignalled(dir, file, [
      { signal: 'USR1', until: 'waiting for the time limit' },
      { signal: 'TERM' },
    ]);
    expect(r.code, r.log).toBe(143);
    expect(r.log).toContain('the command stopped after its checkpoint signal (exit 3): waiting for the time limit');
    expect(r.end).toMatchObject({ code: 143, signal: 'TERM' });
  });
});
