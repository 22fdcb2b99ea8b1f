/**
 * `campaign results` on the local executor: a grid with seeds as replicates, one task failing.
 * The aggregate rows agree with what the tasks wrote, the failed task is missing in its cell,
 * `--tasks` lists every task and no smoke task, and Python's csv module reads the CSV back.
 */
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { runCli, runProgram, useBuiltCliAndTemp, writeManifest } from '../helpers/cli.js';

const tempRoot = useBuiltCliAndTemp('results');

const WIDTHS = [10, 20];
const SEEDS = [1, 2, 3];
const FAILING = 'width20_seed3';

let dir: string;
let manifest: string;
let state: string;

beforeAll(async () => {
  dir = join(tempRoot(), 'campaign');
  state = join(dir, 'state');
  await mkdir(join(dir, 'work'), { recursive: true });
  manifest = await writeManifest(
    dir,
    `campaign: results
cluster: { executor: local, name: here }
workdir: work
phases:
  - name: train
    grid: { width: [${WIDTHS.join(', ')}], seed: [${SEEDS.join(', ')}] }
    command: >
      [ "\${tag}" != ${FAILING} ] || exit 3;
      printf '{"step": 1, "loss": 99, "acc": 0}\\n{"step": 2, "loss": %s.%s, "acc": %s}\\n'
      \${width} \${seed} \${seed} > \${output}
    output: results/\${tag}.jsonl
    walltime: 1m
    retry: { failed: { attempts: 0 } }
    smoke:
      tasks: { width: 10, seed: 1 }
      overrides: { units: 1 }
      trigger:
        - check: records
          fields: [loss, acc]
    results:
      metrics: [loss, acc]
      record: last
      replicates: seed
`,
  );
  const r = await runCli(['run', manifest, '--state-dir', state, '--poll', '0.2']);
  // The failed task leaves the campaign incomplete.
  expect(r.code, r.stderr).toBe(1);
}, 120_000);

/** What a task wrote in its last record, read from its output. */
async function written(width: number, seed: number): Promise<{ loss: number; acc: number }> {
  const text = await readFile(join(dir, 'work', 'results', `width${width}_seed${seed}.jsonl`), 'utf8');
  return JSON.parse(text.trim().split('\n').at(-1)!) as { loss: number; acc: number };
}

const mean = (xs: number[]): number => xs.reduce((s, x) => s + x, 0) / xs.length;
const std = (xs: number[]): number => Math.sqrt(xs.reduce((s, x) => s + (x - mean(xs)) ** 2, 0) / (xs.length - 1));

/** CSV read by Python's csv module: a list of dicts of strings. */
async function pythonCsv(file: string): Promise<Record<string, string>[]> {
  const r = await runProgram('python3', [
    '-c',
    'import csv, json, sys; print(json.dumps(list(csv.DictReader(open(sys.argv[1], newline="")))))',
    file,
  ]);
  expect(r.code, r.stderr).toBe(0);
  return JSON.parse(r.stdout) as Record<string, string>[];
}

describe('campaign results', () => {
  it('gives one row per cell over the seeds: n, means and std of what the tasks wrote, the failed seed missing', async () => {
    const out = join(dir, 'cells.csv');
    const r = await runCli(['results', manifest, '--state-dir', state, '--out', out]);
    // A cell short of a replicate makes the command exit 1.
    expect(r.code, r.stderr).toBe(1);
    const rows = await pythonCsv(out);
    expect(rows.map((row) => row.width)).toEqual(WIDTHS.map(String));
    for (const row of rows) {
      const width = Number(row.width);
      const present = SEEDS.filter((s) => `width${width}_seed${s}` !== FAILING);
      const values = await Promise.all(present.map((s) => written(width, s)));
      expect(Number(row.n)).toBe(present.length);
      expect(Number(row.planned)).toBe(SEEDS.length);
      for (const m of ['loss', 'acc'] as const) {
        const xs = values.map((v) => v[m]);
        expect(Number(row[`${m}_mean`])).toBeCloseTo(mean(xs), 12);
        expect(Number(row[`${m}_std`])).toBeCloseTo(std(xs), 12);
        expect(Number(row[`${m}_sem`])).toBeCloseTo(std(xs) / Math.sqrt(xs.length), 12);
        expect(Number(row[`${m}_min`])).toBe(Math.min(...xs));
        expect(Number(row[`${m}_max`])).toBe(Math.max(...xs));
      }
    }
    expect(rows.map((row) => [row.status, row.missing])).toEqual([
      ['complete', ''],
      ['incomplete', 'seed=3: failed: exit 3'],
    ]);
  });

  it('--tasks lists each full task with its metrics, attempt and definition, and no smoke task', async () => {
    const r = await runCli(['results', manifest, '--state-dir', state, '--tasks', '--format', 'jsonl']);
    expect(r.code, r.stderr).toBe(1);
    const rows = r.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(rows.map((row) => `width${String(row.width)}_seed${String(row.seed)}`)).toEqual(
      WIDTHS.flatMap((w) => SEEDS.map((s) => `width${w}_seed${s}`)),
    );
    for (const row of rows) {
      const tag = `width${String(row.width)}_seed${String(row.seed)}`;
      expect(row.attempt).toBe(1);
      expect(row.definition).toMatch(/^[0-9a-f]{8,}/);
      expect(row.gpu_hours).toBe(0);
      if (tag === FAILING) {
        expect([row.status, row.loss, row.problem]).toEqual(['failed', null, 'failed: exit 3']);
        continue;
      }
      const v = await written(Number(row.width), Number(row.seed));
      expect([row.status, row.loss, row.acc, row.problem]).toEqual(['completed', v.loss, v.acc, null]);
    }
  });

  it('the summary of the run has a results section, its tables beside it and the picture', async () => {
    const summary = await readFile(join(state, 'summary.md'), 'utf8');
    expect(summary).toContain('## Results: train');
    expect(summary).toContain('1 of 2 cells have every replicate');
    expect(summary).toMatch(/\| 20 \| \*\*2 of 3\*\* \| /);
    expect(summary).toContain('- width=20: `seed=3: failed: exit 3`');
    expect(summary).toContain('[results-train.csv](results-train.csv)');
    expect(summary).toContain('](results-train.svg)');
    const rows = await pythonCsv(join(state, 'results-train.csv'));
    expect(rows.map((row) => [row.width, row.n, row.status])).toEqual([
      ['10', '3', 'complete'],
      ['20', '2', 'incomplete'],
    ]);
    expect(await pythonCsv(join(state, 'results-train-tasks.csv'))).toHaveLength(WIDTHS.length * SEEDS.length);
    expect(await readFile(join(state, 'results-train.svg'), 'utf8')).toMatch(/^<svg xmlns=/);
  });

  it('keeps what each output held under the state directory: a rewritten output is read again, a damaged file is said and rebuilt', async () => {
    const kept = join(state, 'results', 'train.kept.json');
    const before = JSON.parse(await readFile(kept, 'utf8')) as { files: Record<string, unknown> };
    expect(Object.keys(before.files).sort()).toEqual(
      WIDTHS.flatMap((w) => SEEDS.map((s) => `results/width${w}_seed${s}.jsonl`))
        .filter((p) => !p.includes(FAILING))
        .sort(),
    );
    const output = join(dir, 'work', 'results', 'width10_seed2.jsonl');
    const original = await readFile(output, 'utf8');
    const cell = async (): Promise<string> => {
      const r = await runCli(['results', manifest, '--state-dir', state, '--tasks', '--format', 'jsonl']);
      expect(r.code, r.stderr).toBe(1);
      const row = r.stdout
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l) as Record<string, unknown>)
        .find((x) => x.width === 10 && x.seed === 2)!;
      return `${String(row.loss)} ${r.stderr}`;
    };
    try {
      await writeFile(output, '{"step": 2, "loss": 42.5, "acc": 2}\n');
      expect(await cell()).toBe('42.5 ');
      await writeFile(kept, '{"version": 1, "files": ');
      const damaged = await cell();
      expect(damaged).toMatch(
        /^42\.5 campaign: .*train\.kept\.json is not JSON \(cut short\?\): every output is read again/,
      );
      expect(await cell()).toBe('42.5 ');
    } finally {
      await writeFile(output, original);
    }
    expect(await cell()).toBe(`${(await written(10, 2)).loss} `);
  });

  it('says how to declare results where the phase has none, and refuses an unknown format', async () => {
    const bare = await writeManifest(
      dir,
      (await readFile(manifest, 'utf8')).replace(/ {4}results:[\s\S]*$/, ''),
      'bare.yml',
    );
    const none = await runCli(['results', bare, '--state-dir', state]);
    expect(none.code).toBe(2);
    expect(none.stderr).toMatch(/no phase of results declares results.*fix: declare results: \{ metrics:/);
    const fmt = await runCli(['results', manifest, '--state-dir', state, '--format', 'xlsx']);
    expect(fmt.code).toBe(2);
    expect(fmt.stderr).toMatch(/--format xlsx is not known/);
  });
});
