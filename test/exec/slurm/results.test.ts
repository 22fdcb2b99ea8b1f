/**
 * `campaign results` on the test cluster, over SSH: two phases, the second depending on the
 * first, seeds as replicates, one task of the second failing on purpose. The aggregate rows'
 * n, means and standard deviations are those of what the tasks wrote; the failed seed is
 * missing in its cell. The outputs are read through the Slurm executor (the login's files).
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { runCli, runProgram, useBuiltCliAndTemp } from '../../helpers/cli.js';
import { clusterIsUp, runSlurmCampaign } from '../../helpers/slurm-cluster.js';
import { sshdUp, type Sshd } from '../transport/sshd.js';

const clusterUp = clusterIsUp('results on Slurm');
const tempRoot = useBuiltCliAndTemp('slurm-results');
let sshd: Sshd | undefined;

beforeAll(async () => {
  if (clusterUp) sshd = await sshdUp();
}, 300_000);

const WIDTHS = [10, 20];
const SEEDS = [1, 2, 3];
const FAILING = 'width20_seed3';

const PHASES = `  - name: train
    grid: { width: [${WIDTHS.join(', ')}], seed: [${SEEDS.join(', ')}] }
    command: >
      printf '{"epoch": 1, "loss": 99}\\n{"epoch": 2, "loss": %s.%s}\\n' \${width} \${seed} > \${output}
    output: train/\${tag}.jsonl
    walltime: 5m
    results: { metrics: [loss], replicates: seed }
  - name: eval
    depends_on: train
    grid: { width: [${WIDTHS.join(', ')}], seed: [${SEEDS.join(', ')}] }
    preconditions:
      - exists: train/\${tag}.jsonl
    command: >
      [ "\${tag}" != ${FAILING} ] || exit 3;
      printf 'split,acc\\ntest,0.%s%s\\n' \${seed} \${width} > \${output}
    output: eval/\${tag}.csv
    walltime: 5m
    retry: { failed: { attempts: 0 } }
    results: { metrics: [acc], replicates: seed }
`;

const mean = (xs: number[]): number => xs.reduce((s, x) => s + x, 0) / xs.length;
const std = (xs: number[]): number => Math.sqrt(xs.reduce((s, x) => s + (x - mean(xs)) ** 2, 0) / (xs.length - 1));

describe.runIf(clusterUp)('campaign results on the test cluster, over SSH', () => {
  it('aggregates each phase over the seeds from what the tasks wrote; the failed seed is missing in its cell', async (ctx) => {
    if (!sshd) return ctx.skip();
    const c = await runSlurmCampaign(tempRoot(), 'results', sshd, PHASES);
    const run = await c.run.done;
    expect(run.code, run.stderr).toBe(1);
    const env = { ...process.env, CAMPAIGN_SSH_KEY_FILE: sshd.keyFile };

    /** The phase's aggregate rows, as Python's csv module reads the CSV the command wrote. */
    const rowsOf = async (phase: string): Promise<{ code: number | null; rows: Record<string, string>[] }> => {
      const out = join(c.dir, `${phase}.csv`);
      const r = await runCli(['results', c.manifest, '--state-dir', c.stateDir, '--phase', phase, '--out', out], {
        env,
      });
      expect(r.stderr).toBe('');
      const py = await runProgram('python3', [
        '-c',
        'import csv, json, sys; print(json.dumps(list(csv.DictReader(open(sys.argv[1], newline="")))))',
        out,
      ]);
      expect(py.code, py.stderr).toBe(0);
      return { code: r.code, rows: JSON.parse(py.stdout) as Record<string, string>[] };
    };
    /** What a task's output holds in its last record, read from the workdir. */
    const wrote = async (path: string, field: string): Promise<number> => {
      const text = (await readFile(join(c.workdir, path), 'utf8')).trim().split('\n');
      if (path.endsWith('.csv')) return Number(text.at(-1)!.split(',')[text[0]!.split(',').indexOf(field)]);
      return (JSON.parse(text.at(-1)!) as Record<string, number>)[field]!;
    };

    for (const [phase, metric, path] of [
      ['train', 'loss', (t: string) => `train/${t}.jsonl`],
      ['eval', 'acc', (t: string) => `eval/${t}.csv`],
    ] as const) {
      const { code, rows } = await rowsOf(phase);
      expect(code).toBe(phase === 'eval' ? 1 : 0);
      expect(rows.map((r) => r.width)).toEqual(WIDTHS.map(String));
      for (const row of rows) {
        const present = SEEDS.map((s) => `width${row.width}_seed${s}`).filter((t) => phase !== 'eval' || t !== FAILING);
        const xs = await Promise.all(present.map((t) => wrote(path(t), metric)));
        expect([Number(row.n), Number(row.planned)]).toEqual([present.length, SEEDS.length]);
        expect(Number(row[`${metric}_mean`])).toBeCloseTo(mean(xs), 12);
        expect(Number(row[`${metric}_std`])).toBeCloseTo(std(xs), 12);
        // The reason is the executor's: Slurm's says FAILED (exit 3).
        if (present.length === SEEDS.length) expect([row.status, row.missing]).toEqual(['complete', '']);
        else
          expect([row.status, row.missing]).toEqual(['incomplete', expect.stringMatching(/^seed=3: failed: .*exit 3/)]);
      }
    }
  }, 300_000);
});
