/** `campaign plan` on a manifest whose grid excludes, includes and zips: the tasks it prints. */
import { describe, expect, it } from 'vitest';
import { runCli, useBuiltCliAndTemp, writeManifest } from '../helpers/cli.js';

const tempRoot = useBuiltCliAndTemp('plan-grid-forms');

const MANIFEST = `campaign: forms
cluster:
  executor: local
workdir: runs
phases:
  - name: train
    grid:
      N: [384, 512]
      zip:
        lr: [0.1, 0.01]
        batch: [32, 64]
      exclude:
        - { N: 512, batch: 64 }
      include:
        - { N: 1024, lr: 0.001, batch: 128 }
    strata: [N]
    command: python train.py --n \${N} --lr \${lr} --batch \${batch} --out \${output}
    output: results/\${tag}.json
    walltime: 10m
    smoke:
      tasks: { N: 1024 }
      trigger: [{ check: all_completed }]
`;

describe('campaign plan with include, exclude and zip', () => {
  it('prints the kept product cells, then the included one, and lists them as tasks in JSON', async () => {
    const dir = tempRoot();
    const file = await writeManifest(dir, MANIFEST);
    const text = await runCli(['plan', file]);
    expect(text.code, text.stderr).toBe(0);
    expect(text.stdout).toContain('phase train: 4 tasks, strata N,');
    expect(text.stdout).toContain(
      '  cells: 4 of the 27 combinations of N × lr × batch: N384_lr0.1_batch32, N384_lr0.01_batch64, N512_lr0.1_batch32, N1024_lr0.001_batch128\n',
    );
    expect(text.stdout).toContain('  smoke: N1024_lr0.001_batch128;');
    const json = await runCli(['plan', file, '--format', 'json']);
    expect(json.code, json.stderr).toBe(0);
    const plan = JSON.parse(json.stdout) as { phases: { tasks: { id: string; values: object }[] }[] };
    expect(plan.phases[0]!.tasks.map((t) => [t.id, t.values])).toEqual([
      ['train/N384_lr0.1_batch32', { N: 384, lr: 0.1, batch: 32 }],
      ['train/N384_lr0.01_batch64', { N: 384, lr: 0.01, batch: 64 }],
      ['train/N512_lr0.1_batch32', { N: 512, lr: 0.1, batch: 32 }],
      ['train/N1024_lr0.001_batch128', { N: 1024, lr: 0.001, batch: 128 }],
    ]);
  });
});
