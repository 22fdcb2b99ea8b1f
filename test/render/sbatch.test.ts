/**
 * The batch script for an array chunk, run by real bash as Slurm would run it (here without
 * Slurm: SLURM_ARRAY_TASK_ID set by hand): the table lookup, the out-of-range abort, values
 * reaching the program byte for byte, and shellcheck on the script.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { UserError } from '../../src/errors.js';
import { manifest as manifestSchema, type Manifest } from '../../src/manifest/schema.js';
import { planCampaign } from '../../src/plan/plan.js';
import { arraySpec, renderSbatch, rowAttempt, tableRow, type SbatchRow } from '../../src/render/sbatch.js';
import { GATE_EXIT } from '../../src/render/task-script.js';

const root = mkdtempSync(join(tmpdir(), 'campaign-sbatch-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

function manifestWith(values: string[], caps: { campaign?: number; phase?: number } = { campaign: 4 }): Manifest {
  return manifestSchema.parse({
    campaign: 'c',
    cluster: {
      executor: 'slurm',
      name: 'test',
      account: 'acct',
      ...(caps.campaign === undefined ? {} : { max_parallel: caps.campaign }),
      partitions: [{ name: 'debug', max_time: '30m' }],
    },
    workdir: '/work',
    phases: [
      {
        name: 'p',
        grid: { v: values, seed: [1] },
        command: 'printf %s ${v} > ${output}',
        output: 'out/${tag}.txt',
        walltime: '5m',
        resources: { gpus: 1, cpus: 2, mem: '1G' },
        ...(caps.phase === undefined ? {} : { max_parallel: caps.phase }),
      },
    ],
  });
}

function render(values: string[], workdir: string, caps?: { campaign?: number; phase?: number }) {
  const m = manifestWith(values, caps);
  const plan = planCampaign(m);
  const array = plan.phases[0]!.arrays.find((a) => a.stage === 'full')!;
  const rows: SbatchRow[] = plan.phases[0]!.tasks.map((task, index) => ({ index, task, attempt: 1 }));
  const tablePath = join(workdir, 'table.tsv');
  const out = renderSbatch({
    manifest: m,
    array,
    jobName: 'campaign-c',
    key: 'c:p.full.all:1',
    submission: 'abc123',
    rows,
    workdir,
    tablePath,
    logDir: join(workdir, 'logs'),
    markerDir: join(workdir, 'markers'),
  });
  writeFileSync(tablePath, out.table);
  const script = join(workdir, 'job.sh');
  writeFileSync(script, out.script);
  return { out, script, rows };
}

function runIndex(script: string, workdir: string, index: string) {
  const r = spawnSync('bash', [script], {
    cwd: workdir,
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { PATH: process.env.PATH ?? '/usr/bin:/bin', SLURM_ARRAY_TASK_ID: index, CUDA_VISIBLE_DEVICES: '0' },
  });
  return { status: r.status, log: r.stdout + r.stderr };
}

describe('sbatch script', () => {
  it('writes a % of the log directory as %%, which sbatch reads back as the path itself', () => {
    const dir = join(root, 'at_100%');
    mkdirSync(dir);
    const { out } = render(['a'], dir);
    expect(out.script).toContain(`#SBATCH --output=${join(root, 'at_100%%')}/logs/%a.log`);
  });

  it('carries the directives the plan asks for', () => {
    const { out } = render(['a', 'b', 'c'], root);
    const directives = out.script.split('\n').filter((l) => l.startsWith('#SBATCH'));
    expect(directives).toEqual([
      '#SBATCH --job-name=campaign-c',
      '#SBATCH --comment=c:p.full.all:1',
      '#SBATCH --array=0-2%3',
      '#SBATCH --time=00:05:00',
      '#SBATCH --partition=debug',
      '#SBATCH --account=acct',
      '#SBATCH --nodes=1',
      '#SBATCH --ntasks=1',
      '#SBATCH --cpus-per-task=2',
      '#SBATCH --gres=gpu:1',
      '#SBATCH --mem=1024M',
      `#SBATCH --chdir=${root}`,
      `#SBATCH --output=${join(root, 'logs')}/%a.log`,
      '#SBATCH --no-requeue',
    ]);
    expect(out.script.split('\n')[0]).toBe('#!/usr/bin/env bash');
    expect(out.script).not.toMatch(/\beval\b/);
  });

  it("throttles the array to its share of max_parallel: its rows, within the campaign's cap and the phase's", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 12 }),
        fc.option(fc.integer({ min: 1, max: 8 }), { nil: undefined }),
        fc.option(fc.integer({ min: 1, max: 8 }), { nil: undefined }),
        (rows, campaign, phase) => {
          const values = Array.from({ length: rows }, (_, i) => `v${i}`);
          const { out } = render(values, root, {
            ...(campaign === undefined ? {} : { campaign }),
            ...(phase === undefined ? {} : { phase }),
          });
          const array = /^#SBATCH --array=(\S+)$/m.exec(out.script)![1]!;
          const caps = [campaign, phase].filter((c) => c !== undefined);
          // No cap, no throttle: Slurm runs what it can.
          const throttle = caps.length === 0 ? '' : `%${Math.min(rows, ...caps)}`;
          expect(array).toBe(`${rows === 1 ? '0' : `0-${rows - 1}`}${throttle}`);
        },
      ),
      { numRuns: 60 },
    );
  });

  it('passes shellcheck', () => {
    const { script } = render(['a', "it's", '$(x)'], root);
    const r = spawnSync('shellcheck', ['-s', 'bash', '-S', 'warning', script], { encoding: 'utf8' });
    expect(r.stdout + r.stderr).toBe('');
    expect(r.status).toBe(0);
  });

  it('maps an index to its row, echoes the mapping, and aborts on an index not in the table', () => {
    const dir = mkdtempSync(join(root, 'map-'));
    const { script, rows } = render(['a', 'b', 'c'], dir);
    const ok = runIndex(script, dir, '2');
    expect(ok.status).toBe(0);
    expect(ok.log.split('\n')[0]).toBe(`[campaign] task 2 -> ${rows[2]!.task.id}`);
    expect(readFileSync(join(dir, rows[2]!.task.output!), 'utf8')).toBe('c');
    for (const bad of ['3', '-1', '', '1 ']) {
      const r = runIndex(script, dir, bad);
      expect(r.status).toBe(GATE_EXIT);
      expect(r.log).toMatch(/^\[campaign\] gate index: FAIL array index .* is not in the task table/m);
    }
  });

  it('delivers any value byte for byte through the task table', () => {
    const dir = mkdtempSync(join(root, 'bytes-'));
    const value = fc.string({ unit: 'binary', minLength: 1, maxLength: 40 }).filter((s) => !s.includes('\0'));
    fc.assert(
      fc.property(fc.uniqueArray(value, { minLength: 1, maxLength: 4, selector: (s) => s }), (values) => {
        const { script, rows } = render(values, dir);
        if (new Set(rows.map((r) => r.task.output)).size !== rows.length) return; // tags collide: lint refuses these
        for (const row of rows) {
          const r = runIndex(script, dir, String(row.index));
          expect(r.status, r.log).toBe(0);
          expect(readFileSync(join(dir, row.task.output!), 'utf8')).toBe(String(row.task.values.v));
        }
      }),
      { numRuns: 40 },
    );
  });

  it('refuses a directive value that sbatch would misread', () => {
    expect(() => render(['a'], join(root, 'a dir with blanks'))).toThrow(UserError);
  });

  it('folds array indices into ranges', () => {
    expect(arraySpec([0, 1, 2, 3, 7, 9, 10])).toBe('0-3,7,9-10');
    expect(arraySpec([5])).toBe('5');
  });
});

describe('task-table rows read back (finding a submission again)', () => {
  it('gives the task, attempt and definition a row was written for, whatever the other values hold', () => {
    fc.assert(
      fc.property(
        fc.nat(100_000),
        fc.string({ minLength: 1 }).filter((s) => !s.includes('\0')),
        fc.integer({ min: 1, max: 50 }),
        fc.stringMatching(/^[0-9a-f]{16}$/),
        fc.dictionary(
          fc.stringMatching(/^CAMPAIGN_AXIS_[a-z]{1,8}$/),
          fc.string().filter((s) => !s.includes('\0')),
        ),
        (index, task, attempt, definition, axes) => {
          const row = tableRow(index, {
            ...axes,
            CAMPAIGN_TASK: task,
            CAMPAIGN_ATTEMPT: String(attempt),
            CAMPAIGN_DEFINITION: definition,
          });
          expect(rowAttempt(row)).toEqual({ index, task, attempt, definition });
        },
      ),
    );
  });

  it('reads the rows of earlier releases, base64 of KEY=VALUE and NUL pairs', () => {
    const pairs = 'CAMPAIGN_TASK=p/a b\0CAMPAIGN_ATTEMPT=2\0CAMPAIGN_DEFINITION=0123456789abcdef\0';
    expect(rowAttempt(`7\t${Buffer.from(pairs).toString('base64')}`)).toEqual({
      index: 7,
      task: 'p/a b',
      attempt: 2,
      definition: '0123456789abcdef',
    });
  });

  it('refuses rows that are not a task-table row', () => {
    for (const line of ['', 'x\tAAAA', '3', `3\t${Buffer.from('CAMPAIGN_TASK=a\0').toString('base64')}`]) {
      expect(rowAttempt(line)).toBeUndefined();
    }
  });
});
