/**
 * DESIGN rule 8 at resume: the outputs are the source of truth, not the stored state. A task
 * recorded completed whose output is gone (a scratch purge, a cleanup) is completed no longer.
 */
import type { Plan } from '../plan/plan.js';
import type { CampaignState } from '../state/state.js';
import { copyTasks, indexOf, setTask } from '../state/task-index.js';

/** The completed full tasks that declare an output: id → output path (workdir-relative). */
export function completedOutputs(state: CampaignState, plan: Plan): Map<string, string> {
  const completed = indexOf(state.tasks).ids('completed');
  const out = new Map<string, string>();
  for (const phase of plan.phases)
    for (const t of phase.tasks) if (t.output !== undefined && completed.has(t.id)) out.set(t.id, t.output);
  return out;
}

/**
 * The state with these tasks failed, their outputs gone: they are not run again unasked (the
 * outputs may have been moved on purpose), and `--retry-failed` runs them again.
 */
export function outputsGone(state: CampaignState, gone: ReadonlyMap<string, string>): CampaignState {
  if (gone.size === 0) return state;
  const tasks = copyTasks(state.tasks);
  for (const [id, path] of gone) {
    const t = tasks[id]!;
    setTask(tasks, id, { ...t, status: 'failed', reason: `its output ${path} was gone when the run resumed` });
  }
  return { ...state, tasks };
}

/** What a run says of the tasks whose outputs were gone, with the way out. */
export function outputsGoneWarning(gone: ReadonlyMap<string, string>, retryHow: string): string {
  const [id, path] = [...gone][0]!;
  const more = gone.size > 1 ? ` and ${gone.size - 1} more` : '';
  return (
    `${gone.size} completed task${gone.size === 1 ? '' : 's'} no longer ha${gone.size === 1 ? 's its output' : 've their outputs'} ` +
    `(${id}: ${path}${more}): marked failed; ${retryHow} to run ${gone.size === 1 ? 'it' : 'them'} again`
  );
}
