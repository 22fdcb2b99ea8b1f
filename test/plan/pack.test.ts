/** Packing (plan/pack.ts, issue 37): tasks per element, and the element's walltime from its tasks' budgets. */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseManifest } from '../../src/manifest/load.js';
import type { Cluster, Pack } from '../../src/manifest/schema.js';
import { DEFAULT_MIN_JOB_SECONDS, elementsOf, packingFor } from '../../src/plan/pack.js';
import { planCampaign } from '../../src/plan/plan.js';
import { budgetFor, partitionCaps, type Budget } from '../../src/plan/walltime.js';

/** A Slurm cluster with these partition caps (seconds) and min_job. */
function slurm(caps: readonly number[], minJob?: number): Cluster {
  return {
    executor: 'slurm',
    ...(caps.length === 0 ? {} : { partitions: caps.map((c, i) => ({ name: `p${i}`, max_time: c })) }),
    ...(minJob === undefined ? {} : { min_job: minJob }),
  };
}

/** One task's budget from a cost model, as the plan makes it. */
function taskBudget(cluster: Cluster, perUnit: number, units: number, margin: number): Budget {
  return budgetFor({
    phase: { name: 'p', command: 'true', cost: { unit: 'step', units, per_unit: perUnit, margin } },
    cluster,
    cell: {},
  });
}

const caps = fc.array(
  fc.integer({ min: 1, max: 60 * 24 * 3 }).map((m) => m * 60),
  { maxLength: 3 },
);
const cost = fc.record({
  perUnit: fc.integer({ min: 1, max: 6000 }).map((x) => x / 10),
  units: fc.integer({ min: 1, max: 20 }),
  margin: fc.integer({ min: 100, max: 200 }).map((x) => x / 100),
});
const pack: fc.Arbitrary<Pack> = fc.oneof(
  fc.integer({ min: 1, max: 200 }),
  fc.constant('auto' as const),
  fc.record({
    tasks: fc.oneof(fc.integer({ min: 1, max: 200 }), fc.constant('auto' as const)),
    parallel: fc.integer({ min: 1, max: 8 }),
  }),
);

describe('packingFor, any cost model, partitions and pack', () => {
  it('holds between one task and the array, runs ceil(tasks / parallel) waves, never below their cost, within its partition', () => {
    fc.assert(
      fc.property(caps, cost, pack, fc.integer({ min: 1, max: 3000 }), (cs, c, p, size) => {
        const cluster = slurm(cs);
        const task = taskBudget(cluster, c.perUnit, c.units, c.margin);
        const packing = packingFor({ pack: p, cluster, task, size });
        expect(packing.tasks).toBeGreaterThanOrEqual(1);
        expect(packing.tasks).toBeLessThanOrEqual(size);
        expect(packing.parallel).toBeGreaterThanOrEqual(1);
        expect(packing.parallel).toBeLessThanOrEqual(packing.tasks);
        expect(packing.waves).toBe(Math.ceil(packing.tasks / packing.parallel));
        expect(packing.budget.seconds % 60).toBe(0);
        if (packing.budget.error !== undefined) return;
        expect(packing.budget.seconds).toBeGreaterThanOrEqual(packing.waves * task.costSeconds! - 1e-6);
        const cap = partitionCaps(cluster).find((x) => x.name === packing.budget.partition);
        if (cap) expect(packing.budget.seconds).toBeLessThanOrEqual(cap.maxSeconds);
      }),
    );
  });

  it('auto: fits whenever one task fits, and runs at least min_job unless the array or the cap stops it', () => {
    fc.assert(
      fc.property(
        caps,
        cost,
        fc.integer({ min: 1, max: 8 }),
        fc.integer({ min: 1, max: 3000 }),
        fc.option(
          fc.integer({ min: 1, max: 240 }).map((m) => m * 60),
          { nil: undefined },
        ),
        (cs, c, parallel, size, minJob) => {
          const cluster = slurm(cs, minJob);
          const task = taskBudget(cluster, c.perUnit, c.units, c.margin);
          if (task.error !== undefined) return;
          const packing = packingFor({ pack: { tasks: 'auto', parallel }, cluster, task, size });
          expect(packing.budget.error).toBeUndefined();
          const reached = packing.waves * task.costSeconds! >= (minJob ?? DEFAULT_MIN_JOB_SECONDS);
          const largest = partitionCaps(cluster).at(-1)?.maxSeconds ?? Infinity;
          const oneMoreWaveOverCap = (packing.waves + 1) * task.exactSeconds! > largest;
          expect(reached || packing.tasks === size || oneMoreWaveOverCap).toBe(true);
          // Never more waves than min_job asks.
          if (packing.waves > 1)
            expect((packing.waves - 1) * task.costSeconds!).toBeLessThan(minJob ?? DEFAULT_MIN_JOB_SECONDS);
        },
      ),
    );
  });

  it('elements of an array hold every task once: ceil(size / tasks), the last one the rest', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 100000 }), fc.integer({ min: 1, max: 1000 }), (size, tasks) => {
        const n = elementsOf(size, tasks);
        expect((n - 1) * tasks).toBeLessThan(size);
        expect(n * tasks).toBeGreaterThanOrEqual(size);
      }),
    );
  });
});

describe('the plan of a packed phase', () => {
  const text = (pack: string, smoke = '') => `campaign: demo
cluster:
  executor: slurm
  min_job: 2m
  max_array_size: 10
  partitions:
    - { name: debug, max_time: 30m }
workdir: runs
phases:
  - name: short
    grid:
      seed: [${Array.from({ length: 250 }, (_, i) => i + 1).join(', ')}]
    command: echo \${seed} > \${output}
    output: out/\${tag}.txt
    cost: { unit: step, units: 1, per_unit: 5s }
    pack: ${pack}
${smoke}`;
  const planOf = (pack: string, smoke?: string) =>
    planCampaign(parseManifest('test.yml', text(pack, smoke)).manifest).phases[0]!;

  it('auto: 2 minutes of 5 s tasks is 24 to an element, the walltime their 6 s budgets, chunks of MaxArraySize elements', () => {
    const phase = planOf('auto');
    expect(phase.arrays.map((a) => [a.tasks.length, a.packing?.tasks, a.packing?.budget.seconds])).toEqual([
      [240, 24, 180],
      [10, 10, 60],
    ]);
    expect(phase.arrays[0]!.packing!.budget.arithmetic).toBe(
      'auto: 2m min_job / 5s cost = 24 waves; 24 tasks = 24 waves × 6s = 3m → debug (cap 30m)',
    );
    expect(phase.arrays.flatMap((a) => a.tasks)).toEqual(phase.tasks.map((t) => t.id));
  });

  it('auto keeps a smoke stage that checks collisions in two elements; a written number is kept', () => {
    const smoke = '    smoke:\n      tasks: 2\n      trigger:\n        - check: distinct_outputs\n';
    expect(planOf('auto', smoke).arrays.find((a) => a.stage === 'smoke')!.packing!.tasks).toBe(1);
    expect(planOf('4', smoke).arrays.find((a) => a.stage === 'smoke')!.packing!.tasks).toBe(2);
  });

  it('side by side: 10 tasks 2 at a time run in 5 waves', () => {
    const packing = planOf('{ tasks: 10, parallel: 2 }').arrays[0]!.packing!;
    expect([packing.tasks, packing.parallel, packing.waves, packing.budget.seconds]).toEqual([10, 2, 5, 60]);
  });

  it('no packing on an executor without array elements', () => {
    const local = text('4').replace(
      '  executor: slurm\n  min_job: 2m\n  max_array_size: 10\n  partitions:\n    - { name: debug, max_time: 30m }\n',
      '  executor: local\n',
    );
    expect(planCampaign(parseManifest('test.yml', local).manifest).phases[0]!.arrays[0]!.packing).toBeUndefined();
  });
});
