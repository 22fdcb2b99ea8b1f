/** Which cells a phase's smoke stage runs. */
import type { TaskSpec } from '../manifest/expand.js';
import { axisNames } from '../manifest/grid.js';
import type { Phase, Scalar } from '../manifest/schema.js';

/** Checks whose meaning needs two tasks or more: one task cannot collide with anything. */
export const COLLISION_CHECKS = new Set(['distinct_outputs']);

export function needsTwo(phase: Phase): boolean {
  return (phase.smoke?.trigger ?? []).some((check) => COLLISION_CHECKS.has(check.check));
}

/**
 * Explicit cells (`axis: values`) or a count. A count picks round-robin across strata so the
 * smoke stage touches every stratum it can, and within each the cell that differs most from
 * those picked. Never fewer than two when a check is about collisions (and the grid has two cells).
 */
export function selectSmoke(phase: Phase, tasks: readonly TaskSpec[]): TaskSpec[] {
  const spec = phase.smoke?.tasks ?? 1;
  const min = needsTwo(phase) ? 2 : 1;
  // A cell's values are on the grid's axes: one new on all of them cannot be bettered.
  const axes = new Set(axisNames(phase.grid)).size;
  if (typeof spec === 'number') return roundRobin(tasks, Math.min(tasks.length, Math.max(spec, min)), axes);
  const chosen = tasks.filter((t) =>
    Object.entries(spec).every(([axis, want]) => {
      const values: readonly Scalar[] = Array.isArray(want) ? want : [want as Scalar];
      return values.some((v) => String(v) === String(t.values[axis]));
    }),
  );
  if (chosen.length >= min) return chosen;
  const extra = roundRobin(
    tasks.filter((t) => !chosen.includes(t)),
    Math.min(tasks.length, min) - chosen.length,
    axes,
  );
  return [...chosen, ...extra];
}

function roundRobin(tasks: readonly TaskSpec[], count: number, axes: number): TaskSpec[] {
  const byStratum = new Map<string, TaskSpec[]>();
  for (const t of tasks) {
    const list = byStratum.get(t.stratum);
    if (list === undefined) byStratum.set(t.stratum, [t]);
    else list.push(t);
  }
  const queues = [...byStratum.values()];
  const picked: TaskSpec[] = [];
  const seen = new Map<string, Set<string>>();
  for (let round = 0; picked.length < count; round++) {
    for (const q of queues) {
      if (picked.length >= count || round >= q.length) continue;
      const t = mostDifferent(q, picked, seen, axes);
      picked.push(t);
      for (const [axis, v] of Object.entries(t.values)) seen.set(axis, (seen.get(axis) ?? new Set()).add(String(v)));
    }
  }
  return picked;
}

/**
 * The first of `candidates` not yet picked with a value not yet seen on the most axes: smoke
 * tasks that differ on every axis they can show a value that does not reach the program (two
 * outputs alike), which tasks alike but on one axis would not. The search ends at a candidate
 * new on all `axes`, which none after it can better: a stratum of 20,000 cells is not read whole.
 */
function mostDifferent(
  candidates: readonly TaskSpec[],
  picked: readonly TaskSpec[],
  seen: ReadonlyMap<string, ReadonlySet<string>>,
  axes: number,
): TaskSpec {
  let best: TaskSpec | undefined;
  let bestScore = -1;
  for (const t of candidates) {
    if (picked.includes(t)) continue;
    let score = 0;
    for (const axis in t.values) if (!seen.get(axis)?.has(String(t.values[axis]))) score++;
    if (score > bestScore) [best, bestScore] = [t, score];
    if (bestScore >= axes) break;
  }
  return best!;
}
