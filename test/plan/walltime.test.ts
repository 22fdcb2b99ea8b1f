/** Walltime budgets (plan/walltime.ts, DESIGN rule 1): rate × units × trend × margin, placed in a partition. */
import { readFileSync } from 'node:fs';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseManifest } from '../../src/manifest/load.js';
import { cluster as clusterSchema, phase as phaseSchema, type Cluster, type Phase } from '../../src/manifest/schema.js';
import { planCampaign, type ArrayPlan } from '../../src/plan/plan.js';
import { formatSlurmTime, parseDuration } from '../../src/manifest/units.js';
import { budgetFor, DEFAULT_MARGIN, partitionCaps } from '../../src/plan/walltime.js';

const distill = parseManifest('examples/distill.yml', readFileSync('examples/distill.yml', 'utf8')).manifest;
const plan = planCampaign(distill);
const arrays = new Map<string, ArrayPlan>(plan.phases.flatMap((p) => p.arrays.map((a) => [a.id, a])));
const budgetOf = (id: string) => {
  const a = arrays.get(id);
  if (!a) throw new Error(`no array ${id}; the plan has ${[...arrays.keys()].join(', ')}`);
  return a.budget;
};

describe('examples/distill.yml budgets', () => {
  it('train_teachers N=384: 37 s × 100 × trend 1.2 × margin 1.5 = 6660 s, in short', () => {
    const b = budgetOf('train_teachers.full.N=384');
    expect(b.source).toBe('cost');
    expect(b.costSeconds).toBeCloseTo(37 * 100 * 1.2, 9);
    expect(b.seconds).toBe(6660);
    expect(b.partition).toBe('short');
    expect(b.error).toBeUndefined();
    expect(b.arithmetic).toBe('37s/generation × 100 generations × trend 1.2 × margin 1.5 = 1h51m → short (cap 3h)');
  });

  it('train_teachers N=512: 58 s × 100 × 1.2 × 1.5 = 10440 s, still under short’s 3 h', () => {
    const b = budgetOf('train_teachers.full.N=512');
    expect(b.costSeconds).toBeCloseTo(6960, 9);
    expect(b.seconds).toBe(10440);
    expect(b.partition).toBe('short');
  });

  it('distill_students: N=384 needs 13600 s (> 3 h) and N=512 38500 s: both long, margin rounded up to the minute', () => {
    const small = budgetOf('distill_students.full.N=384');
    expect(small.costSeconds).toBe(13600);
    expect(small.seconds).toBe(17700); // 13600 × 1.3 = 17680, up to the whole minute
    expect(small.partition).toBe('long');
    const large = budgetOf('distill_students.full.N=512');
    expect(large.costSeconds).toBe(38500);
    expect(large.seconds).toBe(50100); // 50050 → 50100
    expect(large.partition).toBe('long');
    expect(large.arithmetic).toContain('385s/generation × 100 generations × margin 1.3');
    expect(large.arithmetic).not.toContain('trend');
  });

  it('smoke stages are budgeted from the smoke units (3), not the full 100', () => {
    const teachers = budgetOf('train_teachers.smoke.N=384');
    expect(teachers.costSeconds).toBeCloseTo(37 * 3 * 1.2, 9);
    expect(teachers.seconds).toBe(240); // 199.8 s → 4 min
    expect(teachers.partition).toBe('short');
    const students = budgetOf('distill_students.smoke.N=512');
    expect(students.costSeconds).toBe(385 * 3);
    expect(students.seconds).toBe(1560); // 1501.5 s → 26 min
  });

  it('every full array of a stratum carries that stratum’s budget, and GPU-hours follow from it', () => {
    const students = plan.phases.find((p) => p.name === 'distill_students')!;
    const full = students.arrays.filter((a) => a.stage === 'full');
    expect(full.map((a) => [a.stratum, a.tasks.length])).toEqual([
      ['N=384', 9],
      ['N=512', 9],
    ]);
    expect(students.gpuHours).toBeCloseTo((9 * 17700 + 9 * 50100) / 3600, 9);
  });
});

const slurm = (caps: readonly number[]): Cluster =>
  clusterSchema.parse({
    executor: 'slurm',
    partitions: caps.map((max, i) => ({ name: `p${i}`, max_time: max })),
  });

interface Model {
  rate: number;
  units: number;
  trend: number | undefined;
  margin: number | undefined;
}

const phaseWith = (m: Model): Phase =>
  phaseSchema.parse({
    name: 'ph',
    command: 'true',
    cost: {
      unit: 'step',
      units: m.units,
      per_unit: `${m.rate}s`,
      ...(m.trend === undefined ? {} : { trend: m.trend }),
      ...(m.margin === undefined ? {} : { margin: m.margin }),
    },
  });

const model: fc.Arbitrary<Model> = fc.record({
  rate: fc.oneof(
    fc.integer({ min: 0, max: 3600 }),
    fc.integer({ min: 1, max: 100000 }).map((x) => x / 100),
  ),
  units: fc.oneof(
    fc.integer({ min: 1, max: 5000 }),
    fc.integer({ min: 1, max: 1000 }).map((x) => x / 10),
  ),
  trend: fc.option(
    fc.integer({ min: 100, max: 300 }).map((x) => x / 100),
    { nil: undefined },
  ),
  margin: fc.option(
    fc.integer({ min: 100, max: 300 }).map((x) => x / 100),
    { nil: undefined },
  ),
});

/** Partition caps as Slurm has them (whole minutes), sometimes odd seconds, in any order. */
const caps = fc.array(
  fc.oneof(
    fc.integer({ min: 1, max: 60 * 24 * 7 }).map((m) => m * 60),
    fc.integer({ min: 1, max: 400000 }),
  ),
  { minLength: 1, maxLength: 5 },
);

describe('budgetFor, any cost model and partitions', () => {
  it('never below the cost, never above the cap, in the shortest partition that holds the cost; an error exactly when none does', () => {
    fc.assert(
      fc.property(model, caps, (m, cs) => {
        const b = budgetFor({ phase: phaseWith(m), cluster: slurm(cs), cell: {} });
        const cost = m.rate * m.units * (m.trend ?? 1);
        expect(b.source).toBe('cost');
        expect(b.costSeconds).toBeCloseTo(cost, 6);
        const largest = Math.max(...cs);
        if (cost > largest) {
          expect(b.error).toMatch(/above the largest partition cap/);
          expect(b.partition).toBeUndefined();
          return;
        }
        expect(b.error).toBeUndefined();
        const fitting = cs.filter((c) => c >= cost);
        const cap = Math.min(...fitting);
        expect(b.partition).toBeDefined();
        expect(cs[Number(b.partition!.slice(1))]).toBe(cap);
        expect(b.seconds).toBeGreaterThanOrEqual(b.costSeconds!);
        expect(b.seconds).toBeLessThanOrEqual(cap);
        // The margin is kept when the cap allows it, else the budget is the whole cap.
        const wanted = Math.max(60, Math.ceil((cost * (m.margin ?? DEFAULT_MARGIN)) / 60) * 60);
        expect(b.seconds).toBe(Math.min(wanted, cap));
      }),
      { numRuns: 1000 },
    );
  });

  it('without partitions the budget is the cost with its margin, rounded up to whole minutes', () => {
    fc.assert(
      fc.property(model, (m) => {
        const b = budgetFor({ phase: phaseWith(m), cluster: clusterSchema.parse({ executor: 'local' }), cell: {} });
        const cost = m.rate * m.units * (m.trend ?? 1);
        expect(b.error).toBeUndefined();
        expect(b.partition).toBeUndefined();
        expect(b.seconds % 60).toBe(0);
        expect(b.seconds).toBeGreaterThanOrEqual(Math.max(60, cost * (m.margin ?? DEFAULT_MARGIN) - 1e-6));
        expect(b.seconds).toBeLessThan(Math.max(60, cost * (m.margin ?? DEFAULT_MARGIN)) + 60);
      }),
      { numRuns: 500 },
    );
  });

  it('a forced partition is used as long as its cap holds the cost, and refused otherwise', () => {
    fc.assert(
      fc.property(model, caps, fc.nat(), (m, cs, pick) => {
        const forced = pick % cs.length;
        const b = budgetFor({ phase: phaseWith(m), cluster: slurm(cs), cell: {}, partition: `p${forced}` });
        const cost = m.rate * m.units * (m.trend ?? 1);
        // Partitions may share a name only in p<i> spelling here, so the forced one is unique.
        if (cost > cs[forced]!) {
          expect(b.error).toMatch(/above the largest partition cap \(p\d+/);
        } else {
          expect(b.error).toBeUndefined();
          expect(b.partition).toBe(`p${forced}`);
          expect(b.seconds).toBeLessThanOrEqual(cs[forced]!);
          expect(b.seconds).toBeGreaterThanOrEqual(b.costSeconds!);
        }
      }),
      { numRuns: 300 },
    );
  });

  it('trims the margin to the cap rather than jumping to a longer partition, and says so', () => {
    // 100 × 100 s = 10000 s fits short (3 h = 10800 s); × 1.2 = 12000 s would not.
    const b = budgetFor({
      phase: phaseWith({ rate: 100, units: 100, trend: undefined, margin: undefined }),
      cluster: slurm([10800, 86400]),
      cell: {},
    });
    expect(b).toMatchObject({ seconds: 10800, partition: 'p0', costSeconds: 10000 });
    expect(b.arithmetic).toContain("trimmed to p0's cap 3h");
  });

  it('refuses a cost above every cap, naming the largest', () => {
    const b = budgetFor({
      phase: phaseWith({ rate: 3600, units: 25, trend: undefined, margin: undefined }),
      cluster: slurm([10800, 86400]),
      cell: {},
    });
    expect(b.error).toBe('needs 1d1h, above the largest partition cap (p1, 1d)');
  });

  it('an undeclared forced partition is an error, not a silent choice', () => {
    const b = budgetFor({
      phase: phaseWith({ rate: 1, units: 1, trend: undefined, margin: undefined }),
      cluster: slurm([3600]),
      cell: {},
      partition: 'gpu',
    });
    expect(b.error).toBe('partition "gpu" is not declared in cluster.partitions');
  });

  it('per-stratum rates and units pick the cell’s entry; a stratum without one is an error', () => {
    const phase = phaseSchema.parse({
      name: 'ph',
      command: 'true',
      cost: { unit: 'epoch', units: { 'd=a': 10, 'd=b': 20 }, per_unit: { 'd=a': '1m', 'd=b': 30 }, margin: 1 },
    });
    const cluster = clusterSchema.parse({ executor: 'local' });
    expect(budgetFor({ phase, cluster, cell: { d: 'a' } })).toMatchObject({ costSeconds: 600, seconds: 600 });
    expect(budgetFor({ phase, cluster, cell: { d: 'b' } })).toMatchObject({ costSeconds: 600, seconds: 600 });
    expect(budgetFor({ phase, cluster, cell: { d: 'c' } }).error).toBe('no cost.per_unit entry matches this stratum');
  });

  it('a fixed walltime must fit a partition as it is: there is no cost to trim down to', () => {
    const phase = phaseSchema.parse({ name: 'ph', command: 'true', walltime: '4h' });
    expect(budgetFor({ phase, cluster: slurm([10800, 86400]), cell: {} })).toMatchObject({
      seconds: 14400,
      partition: 'p1',
      source: 'walltime',
    });
    expect(budgetFor({ phase, cluster: slurm([10800]), cell: {} }).error).toMatch(/above the largest partition cap/);
  });

  it('orders partition caps shortest first whatever order the manifest lists them in', () => {
    expect(partitionCaps(slurm([86400, 3600, 10800])).map((c) => c.maxSeconds)).toEqual([3600, 10800, 86400]);
  });
});

describe('durations as users and Slurm write them', () => {
  it.each([
    ['37s', 37],
    ['90s', 90],
    ['1h30m', 5400],
    ['2d', 172800],
    ['1.5h', 5400],
    ['30:00', 1800], // MM:SS
    ['01:30:00', 5400], // HH:MM:SS
    ['1-00:00:00', 86400], // D-HH:MM:SS, as sinfo prints MaxTime
    ['1-12', 129600], // D-HH
    ['1-02:30', 95400], // D-HH:MM: the field after the day is hours, not minutes
    ['179ms', 0.179], // milliseconds, as the method's rates are measured: never 179 minutes
    ['0.5s', 0.5],
    ['.25s', 0.25],
    ['1m30s500ms', 90.5],
    ['0.1s0.2s', 0.3], // summed without floating-point dust
    [3600, 3600],
  ])('%s is %d seconds', (text, seconds) => {
    expect(parseDuration(text)).toBe(seconds);
  });

  it('refuses what is not a duration', () => {
    for (const bad of ['', '3 hours', '1-', ':30', '-1s', 'h', -5, Number.POSITIVE_INFINITY]) {
      expect(parseDuration(bad)).toBeUndefined();
    }
  });

  it('--time as written for Slurm reads back as the budget it came from', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 60 * 86400 }), (s) => {
        expect(parseDuration(formatSlurmTime(s))).toBe(s);
      }),
      { numRuns: 1000 },
    );
  });
});
