import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { mergeParallelStates, type SavedState } from '../../src/decide/parallel-states.js';
import { emptyState, type CampaignState, type TaskState } from '../../src/state/state.js';

const PHASES = ['a', 'b', 'c'];

/** A state in which each phase's tasks have moved `progress[phase]` steps. */
function stateAt(progress: Record<string, number>, updated: string): CampaignState {
  const s = emptyState('m', '2026-01-01T00:00:00.000Z');
  s.updated = updated;
  for (const p of PHASES) {
    const n = progress[p] ?? 0;
    s.phases[p] = { status: n >= 2 ? 'completed' : n === 1 ? 'full' : 'waiting' };
    for (const k of [1, 2]) {
      const t: TaskState = {
        status: n >= 2 ? 'completed' : n === 1 ? 'running' : 'pending',
        attempts: Array.from({ length: n }, (_, i) => ({ n: i + 1, submittedAt: `2026-01-01T0${i}:00:00.000Z` })),
      };
      s.tasks[`${p}/k=${k}`] = t;
    }
  }
  return s;
}

describe('merging the saves of jobs that ran at once', () => {
  it('takes each phase from the newest save that drove it, whichever saved last', () => {
    fc.assert(
      fc.property(
        fc.subarray(PHASES, { minLength: 1 }),
        fc.array(fc.integer({ min: 1, max: 2 }), { minLength: 3, maxLength: 3 }),
        (driven, steps) => {
          // Every job began from the same state; each moved its own phase on and saved.
          const start = { a: 0, b: 0, c: 0 };
          const saves: SavedState[] = driven.map((p, i) => ({
            state: stateAt({ ...start, [p]: steps[i]! }, `2026-01-02T0${i}:00:00.000Z`),
            drove: [p],
          }));
          saves.reverse(); // newest first
          const merged = mergeParallelStates(saves).state;
          for (const p of PHASES) {
            const i = driven.indexOf(p);
            const want = stateAt({ ...start, [p]: i < 0 ? 0 : steps[i]! }, 'x');
            expect(merged.phases[p]).toEqual(want.phases[p]);
            for (const k of [1, 2]) expect(merged.tasks[`${p}/k=${k}`]).toEqual(want.tasks[`${p}/k=${k}`]);
          }
          expect(merged.updated).toBe(`2026-01-02T0${driven.length - 1}:00:00.000Z`);
        },
      ),
    );
  });

  it('takes a phase only from the save that drove it (by name, else a whole-campaign one), its tasks too, and names the phases none drove', () => {
    const drove = fc.oneof(fc.constant('all' as const), fc.subarray(PHASES));
    const save = fc.record({
      drove,
      progress: fc.record({ a: fc.nat(2), b: fc.nat(2), c: fc.nat(2) }),
      // Tasks the save lacks: its job began before they were planned.
      lacks: fc.subarray(PHASES.flatMap((p) => [`${p}/k=1`, `${p}/k=2`])),
    });
    fc.assert(
      fc.property(fc.array(save, { minLength: 2, maxLength: 4 }), (made) => {
        // Newest first.
        const saves: SavedState[] = made.map((m, i) => {
          const state = stateAt(m.progress, `2026-01-02T0${9 - i}:00:00.000Z`);
          state.tasks = Object.fromEntries(Object.entries(state.tasks).filter(([id]) => !m.lacks.includes(id)));
          return { state, drove: m.drove };
        });
        const merged = mergeParallelStates(saves);
        const uncovered: string[] = [];
        for (const p of PHASES) {
          const driver =
            saves.find((s) => s.drove !== 'all' && s.drove.includes(p)) ?? saves.find((s) => s.drove === 'all');
          if (driver === undefined) uncovered.push(p);
          const from = (driver ?? saves[0]!).state;
          expect(merged.state.phases[p]).toEqual(from.phases[p]);
          for (const k of [1, 2]) expect(merged.state.tasks[`${p}/k=${k}`]).toEqual(from.tasks[`${p}/k=${k}`]);
        }
        expect(merged.uncovered).toEqual(uncovered);
      }),
    );
  });

  it('a whole-campaign save does not replace the save of a job that drove a phase by name', () => {
    const whole = stateAt({ a: 2, b: 1, c: 0 }, '2026-01-03T00:00:00.000Z');
    const older = stateAt({ a: 0, b: 2, c: 2 }, '2026-01-02T00:00:00.000Z');
    const merged = mergeParallelStates([
      { state: whole, drove: 'all' },
      { state: older, drove: ['b'] },
    ]);
    expect(merged.state.phases).toEqual({ a: whole.phases.a, b: older.phases.b, c: whole.phases.c });
    expect(merged.state.tasks['b/k=1']).toEqual(older.tasks['b/k=1']);
    expect(merged.state.tasks['c/k=1']).toEqual(whole.tasks['c/k=1']);
    expect(merged.uncovered).toEqual([]);
  });

  it("takes no task of a phase from a save whose job did not drive it, even one the driver's save lacks", () => {
    const drivesA = stateAt({ a: 1 }, '2026-01-03T00:00:00.000Z');
    delete drivesA.tasks['a/k=2'];
    const drivesB = stateAt({ a: 2, b: 1 }, '2026-01-02T00:00:00.000Z');
    const merged = mergeParallelStates([
      { state: drivesA, drove: ['a'] },
      { state: drivesB, drove: ['b'] },
    ]);
    expect(merged.state.tasks['a/k=1']).toEqual(drivesA.tasks['a/k=1']);
    expect(merged.state.tasks['a/k=2']).toBeUndefined();
    expect(merged.state.tasks['b/k=1']).toEqual(drivesB.tasks['b/k=1']);
    // No job drove c: it is as the newest save holds it, and said.
    expect(merged.uncovered).toEqual(['c']);
    expect(merged.state.phases.c).toEqual(drivesA.phases.c);
  });

  it('the definitions of every save are kept', () => {
    const x = { ...stateAt({}, '2026-01-02T00:00:00.000Z'), definitions: { d1: { command: '1' } } };
    const y = { ...stateAt({}, '2026-01-01T00:00:00.000Z'), definitions: { d2: { command: '2' } } };
    const merged = mergeParallelStates([
      { state: x, drove: ['a'] },
      { state: y, drove: ['b'] },
    ]).state;
    expect(merged.definitions).toEqual({ d1: { command: '1' }, d2: { command: '2' } });
  });
});
