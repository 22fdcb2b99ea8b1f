/**
 * What `campaign shell` opens for a task, decided from the plan: the task an id names (or an
 * error listing the ids nearest it), the array whose resources it asks for, and the walltime
 * and partition of its allocation, fitted to the partitions as a stage's are (walltime.ts).
 */
import { UserError } from '../errors.js';
import type { TaskSpec } from '../manifest/expand.js';
import type { Manifest, Phase } from '../manifest/schema.js';
import { editDistance } from '../manifest/suggest.js';
import { parseDuration } from '../manifest/units.js';
import type { ArrayPlan, Plan } from './plan.js';
import { budgetFor, type Budget } from './walltime.js';

export interface ShellTask {
  task: TaskSpec;
  phase: Phase;
  /** The array the task is planned in: its resources are the allocation's. */
  array: ArrayPlan;
}

/** How many near ids an unknown one is answered with. */
const NEAR = 5;

/** The ids nearest `id`: those that end with it (a tag alone), then by edit distance. */
function nearIds(id: string, ids: readonly string[]): string[] {
  const suffixed = ids.filter((t) => t.endsWith(`/${id}`));
  const byDistance = ids
    .filter((t) => !suffixed.includes(t))
    .map((t) => ({ t, d: editDistance(id.toLowerCase(), t.toLowerCase()) }))
    .filter(({ t, d }) => d <= Math.max(3, Math.floor(t.length / 3)))
    .sort((a, b) => a.d - b.d || a.t.localeCompare(b.t))
    .map(({ t }) => t);
  return [...suffixed, ...byDistance].slice(0, NEAR);
}

/** The task `id` names in the plan (as `campaign status` shows it: phase/tag or phase/smoke/tag). */
export function shellTask(manifest: Manifest, plan: Plan, id: string, file: string): ShellTask {
  for (const p of plan.phases) {
    const task = p.tasks.find((t) => t.id === id) ?? p.smoke.find((t) => t.id === id);
    if (!task) continue;
    const array = p.arrays.find((a) => a.stage === task.stage && a.tasks.includes(id))!;
    return { task, phase: manifest.phases.find((m) => m.name === p.name)!, array };
  }
  const near = nearIds(
    id,
    plan.phases.flatMap((p) => [...p.smoke, ...p.tasks].map((t) => t.id)),
  );
  throw new UserError({
    message: `${plan.campaign} has no task ${id}${near.length > 0 ? `; the nearest: ${near.join(', ')}` : ''}`,
    fix:
      near.length > 0
        ? `campaign shell ${file} ${near[0]!}`
        : 'give a task id as `campaign status` shows it (phase/tag, or phase/smoke/tag)',
  });
}

/**
 * The allocation's walltime and partition: `time` where the user gives one, else the walltime
 * of the phase's smoke stage for this task's cell (a shell is for trying the task, not for
 * running it whole), placed in the partitions as the planner places a stage's.
 */
export function shellBudget(manifest: Manifest, { task, phase, array }: ShellTask, time?: string): Budget {
  if (time !== undefined && parseDuration(time) === undefined)
    throw new UserError({
      message: `--time ${time} is not a duration`,
      fix: 'write e.g. --time 30m, --time 2h or --time 1:30:00',
    });
  const overrides = phase.smoke?.overrides;
  const units = overrides?.units ?? task.units;
  const walltime = time ?? overrides?.walltime;
  const budget = budgetFor({
    phase,
    cluster: manifest.cluster,
    cell: task.values,
    ...(units === undefined ? {} : { units }),
    ...(walltime === undefined ? {} : { walltime }),
    ...(manifest.defaults?.walltime === undefined ? {} : { defaultWalltime: manifest.defaults.walltime }),
    ...(array.resources.partition === undefined ? {} : { partition: array.resources.partition }),
  });
  if (budget.error !== undefined)
    throw new UserError({
      message: `the walltime of a shell for ${task.id} (${budget.arithmetic}) does not fit: ${budget.error}`,
      fix: 'give a --time that a partition of cluster.partitions holds',
    });
  return budget;
}
