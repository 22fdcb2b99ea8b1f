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
          const merged = mergeParallelStates(saves);
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

  it('a save of a job that drove the whole campaign is the state as it is', () => {
    const whole = stateAt({ a: 2, b: 1, c: 0 }, '2026-01-03T00:00:00.000Z');
    const older = stateAt({ a: 0, b: 2, c: 2 }, '2026-01-02T00:00:00.000Z');
    expect(
      mergeParallelStates([
        { state: whole, drove: 'all' },
        { state: older, drove: ['b'] },
      ]),
    ).toBe(whole);
  });

  it('the definitions of every save are kept', () => {
    const x = { ...stateAt({}, '2026-01-02T00:00:00.000Z'), definitions: { d1: { command: '1' } } };
    const y = { ...stateAt({}, '2026-01-01T00:00:00.000Z'), definitions: { d2: { command: '2' } } };
    const merged = mergeParallelStates([
      { state: x, drove: ['a'] },
      { state: y, drove: ['b'] },
    ]);
    expect(merged.definitions).toEqual({ d1: { command: '1' }, d2: { command: '2' } });
  });
});
