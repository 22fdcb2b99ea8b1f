/**
 * Which cells a smoke stage runs (plan/smoke.ts): one per stratum in turn, and within each the
 * cell that differs most from those already picked, so that a value which never reaches the
 * program shows as two outputs alike.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { expandPhase } from '../../src/manifest/expand.js';
import { manifest as manifestSchema, type Manifest } from '../../src/manifest/schema.js';
import { selectSmoke } from '../../src/plan/smoke.js';

function smokeOf(grid: Record<string, number[]>, strata: string[], tasks: number) {
  const m = manifestSchema.parse({
    campaign: 'c',
    cluster: { executor: 'local' },
    workdir: 'w',
    phases: [
      { name: 'p', grid, ...(strata.length ? { strata } : {}), command: 'x', output: 'o/${tag}', smoke: { tasks } },
    ],
  }) as Manifest;
  const all = expandPhase(m, m.phases[0]!);
  return { all, picked: selectSmoke(m.phases[0]!, all) };
}

describe('smoke cells', () => {
  it('the distill shape: two smoke tasks, one per N, that differ in n and seed too', () => {
    const { picked } = smokeOf({ N: [384, 512], n: [50000, 150000, 500000], seed: [42, 200, 201] }, ['N'], 2);
    expect(picked.map((t) => t.values)).toEqual([
      { N: 384, n: 50000, seed: 42 },
      { N: 512, n: 150000, seed: 200 },
    ]);
  });

  it('any grid: distinct cells, every stratum it can, and two or more cells differ on every axis that varies within a stratum', () => {
    fc.assert(
      fc.property(
        fc.dictionary(
          fc.constantFrom('a', 'b', 'c', 'd'),
          fc.uniqueArray(fc.integer({ min: 0, max: 9 }), { minLength: 1, maxLength: 4 }),
          { minKeys: 1 },
        ),
        fc.nat(),
        fc.integer({ min: 1, max: 6 }),
        (grid, strataBits, count) => {
          const axes = Object.keys(grid);
          const strata = axes.filter((_, i) => (strataBits >> i) & 1);
          const { all, picked } = smokeOf(grid, strata, count);
          expect(picked).toHaveLength(Math.min(count, all.length));
          expect(new Set(picked.map((t) => t.id)).size).toBe(picked.length);
          const strataCount = new Set(all.map((t) => t.stratum)).size;
          expect(new Set(picked.map((t) => t.stratum)).size).toBe(Math.min(picked.length, strataCount));
          if (picked.length < 2) return;
          for (const axis of axes.filter((a) => !strata.includes(a) && grid[a]!.length > 1))
            expect(new Set(picked.map((t) => t.values[axis])).size, axis).toBeGreaterThan(1);
        },
      ),
    );
  });
});
