/** `campaign plan`: the Plan as a table a person can check, or as JSON. */
import type { TaskSpec } from '../manifest/expand.js';
import type { Scalar } from '../manifest/schema.js';
import { formatDuration, formatSlurmMem, formatSlurmTime } from '../manifest/units.js';
import { elementsOf, type Packing } from '../plan/pack.js';
import type { ArrayPlan, Plan, TaskResources } from '../plan/plan.js';

export function renderPlanText(plan: Plan): string {
  const out: string[] = [`campaign ${plan.campaign} on ${plan.executor}, workdir ${plan.workdir}`];
  let total = 0;
  for (const p of plan.phases) {
    total += p.gpuHours + p.smokeGpuHours;
    out.push(
      '',
      `phase ${p.name}${p.dependsOn.length > 0 ? ` (after ${p.dependsOn.join(', ')})` : ''}: ${p.tasks.length} tasks` +
        `${p.strata.length > 0 ? `, strata ${p.strata.join(' × ')}` : ''}, budget ${p.gpuHours.toFixed(1)} GPU-h (+${p.smokeGpuHours.toFixed(2)} smoke)`,
    );
    const cells = cellsLine(p.tasks);
    if (cells !== undefined) out.push(cells);
    if (p.preconditions.length > 0) out.push(`  preconditions: ${p.preconditions.join(', ')}`);
    out.push(
      p.smoke.length > 0
        ? `  smoke: ${p.smoke.map((t) => t.tag).join(', ')}; checklist: ${p.checklist.map((check) => check.check).join(', ') || '(none)'}`
        : '  smoke: none (the full arrays start at once)',
    );
    const rows = p.arrays.map((a) => [
      a.stage,
      a.stratum,
      String(a.tasks.length),
      formatSlurmTime(a.budget.seconds),
      a.budget.partition ?? '-',
      resourcesText(a.resources),
      a.budget.arithmetic,
    ]);
    out.push(
      ...table(['stage', 'stratum', 'tasks', 'time', 'partition', 'resources', 'walltime arithmetic'], rows).map(
        (l) => `  ${l}`,
      ),
      ...p.arrays.flatMap((a) => (a.packing ? [`  ${packingLine(a, a.packing)}`] : [])),
    );
  }
  out.push('', `budgeted GPU-hours in all: ${total.toFixed(1)} (walltime × GPUs: an upper bound)`);
  return out.join('\n') + '\n';
}

/**
 * `packed full x=1: 20 elements of 10 tasks (2 at a time), 00:50:00 each in long: …`: what one
 * array element of a packed array runs and asks for, and why.
 */
function packingLine(a: ArrayPlan, packing: Packing): string {
  const elements = elementsOf(a.tasks.length, packing.tasks);
  const side = packing.parallel > 1 ? ` (${packing.parallel} at a time)` : '';
  const where = packing.budget.partition === undefined ? '' : ` in ${packing.budget.partition}`;
  return (
    `packed ${a.stage} ${a.stratum}: ${elements} element${elements === 1 ? '' : 's'} of ${packing.tasks} tasks${side}, ` +
    `${formatSlurmTime(packing.budget.seconds)} each${where}: ${packing.budget.arithmetic}`
  );
}

/** Tags a cells line names before it counts the rest. */
const CELLS_SHOWN = 6;

/**
 * For a phase whose tasks are not every combination of their axes' values (an exclude, an
 * include or a zip made them), how many of the combinations run and which: a person checking
 * the plan sees what the grid's forms added up to.
 */
function cellsLine(tasks: readonly TaskSpec[]): string | undefined {
  // The values each axis takes, gathered as they are and written as text once each: the pairs
  // of every task's values, and each value's text, were arrays and strings made per task.
  const taken = new Map<string, Set<Scalar>>();
  for (const t of tasks) {
    const cell = t.values;
    for (const axis in cell) {
      let set = taken.get(axis);
      if (set === undefined) taken.set(axis, (set = new Set()));
      set.add(cell[axis]!);
    }
  }
  const values = new Map([...taken].map(([axis, set]) => [axis, new Set([...set].map(String))]));
  const combinations = [...values.values()].reduce((n, set) => n * set.size, 1);
  if (tasks.length === 0 || tasks.length === combinations) return undefined;
  const shown = tasks.slice(0, CELLS_SHOWN).map((t) => t.tag);
  const rest = tasks.length - shown.length;
  return (
    `  cells: ${tasks.length} of the ${combinations} combinations of ${[...values.keys()].join(' × ')}: ` +
    `${shown.join(', ')}${rest > 0 ? ` and ${rest} more` : ''}`
  );
}

/** `2g:h100 8c 65536M qos=normal`: what one task asks for, the Slurm options after the sizes. */
function resourcesText(r: TaskResources): string {
  const mem =
    r.memBytes === undefined
      ? '-'
      : r.memPerCpu
        ? `${formatSlurmMem(Math.ceil(r.memBytes / r.cpus))}/cpu`
        : formatSlurmMem(r.memBytes);
  const options = (['account', 'qos', 'constraint', 'reservation', 'exclude'] as const).flatMap((k) =>
    r[k] === undefined ? [] : [`${k}=${r[k]}`],
  );
  return [`${r.gpus}g${r.gpuType ? `:${r.gpuType}` : ''}`, `${r.cpus}c`, mem, ...options].join(' ');
}

export function table(head: string[], rows: string[][]): string[] {
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  const line = (cells: string[]): string =>
    cells.map((cell, i) => (i === cells.length - 1 ? cell : cell.padEnd(widths[i]!))).join('  ');
  return [line(head), ...rows.map(line)];
}

/** The Plan as JSON: arrays list their task ids; tasks carry their cell values. */
export function renderPlanJson(plan: Plan): string {
  return JSON.stringify(
    {
      ...plan,
      phases: plan.phases.map((p) => ({
        ...p,
        arrays: p.arrays.map((a) => ({
          ...a,
          time: formatSlurmTime(a.budget.seconds),
          human: formatDuration(a.budget.seconds),
          ...(a.packing
            ? {
                packing: {
                  ...a.packing,
                  elements: elementsOf(a.tasks.length, a.packing.tasks),
                  time: formatSlurmTime(a.packing.budget.seconds),
                },
              }
            : {}),
        })),
      })),
    },
    null,
    2,
  );
}
