/**
 * Where each task of a plan is sent: its spec, its array, the array's place among its phase's
 * arrays and the task's index in it. Made once per plan and shared by everything that looks a
 * task up by id (the controller, the retry policy, the due submissions, the provenance
 * records): at 100,000 tasks, each map of them costs 4 to 6 MiB for as long as the plan lives.
 */
import type { Stage, TaskSpec } from '../manifest/expand.js';
import type { Packing } from '../plan/pack.js';
import type { ArrayPlan, Plan } from '../plan/plan.js';
import type { TaskState } from './state.js';

export interface Placement {
  spec: TaskSpec;
  array: ArrayPlan;
  /** The array's place among its phase's arrays. */
  order: number;
  /** The task's index in its array. */
  index: number;
}

/** By stage: a smoke stage of full runs has the ids of full tasks, in arrays of its own. */
type Placements = Record<Stage, Map<string, Placement>>;

const placementsOf = new WeakMap<Plan, Placements>();

function placements(plan: Plan): Placements {
  let out = placementsOf.get(plan);
  if (out === undefined) {
    out = { smoke: new Map(), full: new Map() };
    for (const phase of plan.phases) {
      const specs = {
        smoke: new Map(phase.smoke.map((t) => [t.id, t])),
        full: new Map(phase.tasks.map((t) => [t.id, t])),
      };
      phase.arrays.forEach((array, order) => {
        const specsOfStage = specs[array.stage];
        const into = out![array.stage];
        array.tasks.forEach((id, index) => into.set(id, { spec: specsOfStage.get(id)!, array, order, index }));
      });
    }
    placementsOf.set(plan, out);
  }
  return out;
}

/**
 * Where task `id` is sent in `stage`; without a stage, where it is sent at all (a task of both
 * stages, a full run that is also a smoke task, is found in its full array).
 */
export function placement(plan: Plan, id: string, stage?: Stage): Placement | undefined {
  const p = placements(plan);
  return stage === undefined ? (p.full.get(id) ?? p.smoke.get(id)) : p[stage].get(id);
}

/**
 * The packed element a task's active attempt runs in: its handle, which the element's tasks
 * share, and the array's packing. Undefined for a task that is a job of its own.
 */
export function packedElement(
  plan: Plan,
  task: TaskState,
  id: string,
): { handle: string; packing: Packing } | undefined {
  const packing = placement(plan, id)?.array.packing;
  const handle = task.attempts.at(-1)?.handle;
  return packing === undefined || handle === undefined ? undefined : { handle, packing };
}
