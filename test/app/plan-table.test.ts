/** The plan table (`campaign plan`) of a grid that excludes, includes and zips. */
import { describe, expect, it } from 'vitest';
import { renderPlanJson, renderPlanText } from '../../src/app/plan-table.js';
import { parseManifest } from '../../src/manifest/load.js';
import { planCampaign } from '../../src/plan/plan.js';

const manifest = (grid: string): string => `campaign: forms
cluster:
  executor: local
workdir: runs
phases:
  - name: train
    grid:
${grid}
    strata: [N]
    command: python train.py --n \${N} --out \${output}
    output: results/\${tag}.json
    walltime: 10m
`;

const plan = (text: string): string => renderPlanText(planCampaign(parseManifest('m.yml', text).manifest));

describe('the plan table', () => {
  it('says how many combinations a grid with exclude, include and zip runs, and which', () => {
    const text = plan(
      manifest(`      N: [384, 512]
      zip: { lr: [0.1, 0.01], batch: [32, 64] }
      exclude: [{ N: 512, batch: 64 }]
      include: [{ N: 1024, lr: 0.001, batch: 128 }]`),
    );
    expect(text).toContain('phase train: 4 tasks, strata N,');
    expect(text).toContain(
      '  cells: 4 of the 27 combinations of N × lr × batch: N384_lr0.1_batch32, N384_lr0.01_batch64, N512_lr0.1_batch32, N1024_lr0.001_batch128\n',
    );
    const rows = text.split('\n').filter((l) => /^ {2}full +N=/.test(l));
    expect(rows.map((l) => l.split(/ {2,}/).slice(1, 4))).toEqual([
      ['full', 'N=384', '2'],
      ['full', 'N=512', '1'],
      ['full', 'N=1024', '1'],
    ]);
  });

  it('counts the rest past the first cells, and says nothing of cells for a plain product', () => {
    const many = plan(
      manifest(`      N: [1, 2, 3, 4]\n      seed: [1, 2, 3]\n      exclude: [{ seed: 3 }, { N: 4, seed: 2 }]`),
    );
    expect(many).toContain(
      '  cells: 7 of the 8 combinations of N × seed: N1_seed1, N1_seed2, N2_seed1, N2_seed2, N3_seed1, N3_seed2 and 1 more\n',
    );
    expect(plan(manifest(`      N: [1, 2]\n      seed: [1, 2, 3]`))).not.toContain('cells:');
  });

  it('shows a packed array: its elements, tasks per element, walltime, partition and the arithmetic, in text and JSON', () => {
    const text = manifest('      N: [1, 2]\n      seed: [1, 2, 3, 4, 5, 6, 7, 8, 9, 10]')
      .replace('  executor: local\n', '  executor: slurm\n  partitions:\n    - { name: debug, max_time: 30m }\n')
      .replace('    walltime: 10m\n', '    walltime: 2m\n    pack: { tasks: 4, parallel: 2 }\n');
    const p = planCampaign(parseManifest('m.yml', text).manifest);
    expect(renderPlanText(p)).toContain(
      '  packed full N=1: 3 elements of 4 tasks (2 at a time), 00:04:00 each in debug: 4 tasks 2 at a time = 2 waves × 2m = 4m → debug (cap 30m)\n',
    );
    const json = JSON.parse(renderPlanJson(p)) as {
      phases: { arrays: { packing: { tasks: number; parallel: number; elements: number; time: string } }[] }[];
    };
    expect(json.phases[0]!.arrays[0]!.packing).toMatchObject({ tasks: 4, parallel: 2, elements: 3, time: '00:04:00' });
  });
});
