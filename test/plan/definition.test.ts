/**
 * What counts as the same task (plan/definition.ts): a change to anything that decides what a
 * task computes changes its digest; a change to what it costs does not; and neither does how
 * the manifest is written (key order, YAML layout, spaces inside `${ }`).
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseManifest } from '../../src/manifest/load.js';
import { manifest as manifestSchema, type Manifest } from '../../src/manifest/schema.js';
import { planCampaign, type Plan } from '../../src/plan/plan.js';

type Raw = Record<string, unknown> & { phases: Record<string, unknown>[] };

const base = (): Raw => ({
  campaign: 'c',
  cluster: { executor: 'slurm', partitions: [{ name: 'short', max_time: '4h' }] },
  workdir: 'w',
  setup: 'export A=1',
  gates: { imports: ['json'], capability: 'true' },
  defaults: { resources: { cpus: 2, mem: '4G' }, retry: { failed: { attempts: 1 } } },
  phases: [
    {
      name: 'train',
      grid: { seed: [1, 2], width: [8, 16] },
      strata: ['width'],
      command: 'python train.py --seed ${seed} --width ${width} --steps ${units} --out ${output}',
      output: 'models/w${width}_s${seed}.json',
      setup: 'cd src',
      preconditions: [{ exists: 'data/${width}.csv' }],
      cost: { unit: 'step', units: { 'width=8': 10, 'width=16': 20 }, per_unit: '2s', margin: 1.5 },
      resources: { gpus: 1 },
      smoke: { tasks: 2, overrides: { units: 2, args: '--dry' }, trigger: [{ check: 'all_completed' }] },
    },
    {
      name: 'eval',
      depends_on: 'train',
      grid: { seed: [1, 2], width: [8, 16] },
      preconditions: [{ exists: 'models/w${width}_s${seed}.json' }],
      command: 'python eval.py ${seed} ${width} > ${output}',
      output: 'eval/w${width}_s${seed}.json',
      walltime: '10m',
    },
  ],
});

const planOf = (raw: unknown): Plan => planCampaign(manifestSchema.parse(raw) as Manifest);

/** Task id → digest, every stage of every phase. */
function digests(plan: Plan): Map<string, string> {
  return new Map(plan.phases.flatMap((p) => [...p.smoke, ...p.tasks].map((t) => [t.id, t.definition!] as const)));
}

type Edit = { name: string; apply: (m: Raw) => void; changes: (id: string) => boolean };

const train = (m: Raw): Record<string, unknown> => m.phases[0]!;
const phaseOf = (id: string): string => id.split('/')[0]!;
const isSmoke = (id: string): boolean => id.split('/')[1] === 'smoke';
const all = (): boolean => true;

/** Edits of the definition, each with the tasks it must change (eval reads train's outputs). */
const meaning: Edit[] = [
  { name: 'command', apply: (m) => (train(m).command = `${train(m).command as string} --new`), changes: all },
  { name: 'campaign setup', apply: (m) => (m.setup = 'export A=2'), changes: all },
  { name: 'phase setup', apply: (m) => (train(m).setup = 'cd other'), changes: all },
  { name: 'gate imports', apply: (m) => ((m.gates as Raw).imports = ['json', 'os']), changes: all },
  { name: 'gate capability', apply: (m) => ((m.gates as Raw).capability = 'test -d .'), changes: all },
  { name: 'workdir', apply: (m) => (m.workdir = 'w2'), changes: all },
  { name: 'output path', apply: (m) => (train(m).output = 'models/${width}/${seed}.json'), changes: all },
  { name: 'precondition', apply: (m) => (train(m).preconditions = [{ exists: 'data/x${width}.csv' }]), changes: all },
  { name: 'gpus', apply: (m) => ((train(m).resources as Raw).gpus = 2), changes: all },
  {
    name: 'units of one stratum',
    apply: (m) => ((train(m).cost as Raw).units = { 'width=8': 10, 'width=16': 30 }),
    // The smoke tasks run the override's units: only the full tasks of width 16, and what reads them.
    changes: (id) => !isSmoke(id) && id.includes('width16'),
  },
  {
    name: 'smoke units',
    apply: (m) => (((train(m).smoke as Raw).overrides as Raw).units = 3),
    changes: (id) => phaseOf(id) === 'train' && isSmoke(id),
  },
  {
    name: 'smoke args',
    apply: (m) => (((train(m).smoke as Raw).overrides as Raw).args = '--dry --fast'),
    changes: (id) => phaseOf(id) === 'train' && isSmoke(id),
  },
  {
    name: 'eval command',
    apply: (m) => (m.phases[1]!.command = 'python eval.py ${seed} ${width} --v2 > ${output}'),
    changes: (id) => phaseOf(id) === 'eval',
  },
];

/** Edits of what a task costs or how it is run: never its definition. */
const costOnly: Edit[] = [
  { name: 'per_unit', apply: (m) => ((train(m).cost as Raw).per_unit = '3s'), changes: () => false },
  { name: 'margin', apply: (m) => ((train(m).cost as Raw).margin = 2), changes: () => false },
  { name: 'trend', apply: (m) => ((train(m).cost as Raw).trend = 1.2), changes: () => false },
  { name: 'walltime', apply: (m) => (m.phases[1]!.walltime = '20m'), changes: () => false },
  { name: 'cpus', apply: (m) => (((m.defaults as Raw).resources as Raw).cpus = 4), changes: () => false },
  { name: 'mem', apply: (m) => (((m.defaults as Raw).resources as Raw).mem = '8G'), changes: () => false },
  { name: 'partition', apply: (m) => ((train(m).resources as Raw).partition = 'short'), changes: () => false },
  { name: 'retry', apply: (m) => ((m.defaults as Raw).retry = { failed: { attempts: 3 } }), changes: () => false },
  {
    name: 'max_parallel',
    apply: (m) => ((m.cluster as Raw).max_parallel = 3),
    changes: () => false,
  },
  {
    name: 'smoke walltime',
    apply: (m) => (((train(m).smoke as Raw).overrides as Raw).walltime = '1m'),
    changes: () => false,
  },
  {
    name: 'checklist',
    apply: (m) => ((train(m).smoke as Raw).trigger = [{ check: 'output_exists' }]),
    changes: () => false,
  },
];

describe('task definitions', () => {
  const before = digests(planOf(base()));

  it('keeps the digests campaigns have recorded: a state made before reads every task as unchanged', () => {
    // Recorded at ad3f178, before the text hashed was written without per-task arrays.
    expect(Object.fromEntries(before)).toEqual({
      'train/smoke/seed1_width8': '7315a352d118b625',
      'train/smoke/seed2_width16': '75ad95e670b891b3',
      'train/seed1_width8': '1ca389ad0a34fa3c',
      'train/seed1_width16': 'd10fa573037434ad',
      'train/seed2_width8': '0427be5cc49eafd5',
      'train/seed2_width16': '96ab363367d7c411',
      'eval/seed1_width8': '14b57ba8c8e26e6e',
      'eval/seed1_width16': '410e88701b471551',
      'eval/seed2_width8': 'fedb98ef4042639a',
      'eval/seed2_width16': 'c3921ab60d19594a',
    });
  });

  it('every task has a distinct digest', () => {
    expect(new Set(before.values()).size).toBe(before.size);
  });

  it('any sequence of edits changes exactly the tasks a meaning edit touches, and no cost-only edit changes any', () => {
    fc.assert(
      fc.property(fc.subarray([...meaning, ...costOnly], { minLength: 1 }), (edits) => {
        const m = base();
        for (const e of edits) e.apply(m);
        const after = digests(planOf(m));
        for (const [id, digest] of before) {
          const touched = edits.some((e) => e.changes(id));
          expect(after.get(id) !== digest, `${id} after ${edits.map((e) => e.name).join(', ')}`).toBe(touched);
        }
      }),
    );
  });

  it('a changed phase names the parts that changed, at the level of its templates', () => {
    const m = base();
    train(m).command = 'python train2.py';
    (train(m).resources as Raw).gpus = 2;
    const now = planOf(m).phases[0]!.definitions.full.parts;
    const was = planOf(base()).phases[0]!.definitions.full.parts;
    const changed = Object.keys(now).filter((k) => now[k as keyof typeof now] !== was[k as keyof typeof was]);
    expect(changed.sort()).toEqual(['command', 'gpus']);
  });

  it('does not depend on key order, YAML layout or spaces inside ${ }', () => {
    const plain = `campaign: c
cluster: { executor: local }
workdir: w
phases:
  - name: p
    grid: { seed: [1, 2], lr: [0.1, 0.01] }
    command: python t.py --seed \${seed} --lr \${lr} > \${output}
    output: o/\${seed}_\${lr}.json
    walltime: 1m
`;
    const reordered = `# the same campaign, written otherwise
phases:
  - walltime: 60s
    output: o/\${ seed }_\${lr}.json
    command: |
      python t.py --seed \${ seed } --lr \${lr} > \${ output }
    grid:
      seed: [1, 2]
      lr: [0.1, 0.01]
    name: p
workdir: w
cluster:
  executor: local
campaign: c
`;
    const planText = (text: string): Map<string, string> =>
      digests(planCampaign(parseManifest('m.yml', text).manifest));
    expect(planText(reordered)).toEqual(planText(plain));
  });

  it('the values count as the task receives them: 1 and "1" are one value, 1 and 2 are two', () => {
    const of = (seed: unknown) =>
      digests(
        planOf({
          campaign: 'c',
          cluster: { executor: 'local' },
          workdir: 'w',
          phases: [{ name: 'p', grid: { seed: [seed] }, command: 'echo ${seed}', walltime: '1m' }],
        }),
      );
    expect([...of(1).values()]).toEqual([...of('1').values()]);
    expect([...of(1).values()]).not.toEqual([...of(2).values()]);
  });
});
