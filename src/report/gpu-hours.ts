/** GPU-hours used: each attempt's run time × the GPUs it held, per task and per phase against its budget. */
import type { Plan } from '../plan/plan.js';
import type { Attempt, CampaignState } from '../state/state.js';

/**
 * The GPU-hours some attempts used: each one's run time × its GPUs (those it was pinned to where
 * the executor chose them, else `gpus`, what its array asked). An attempt still running counts up
 * to `until` (ms) where given, and not at all otherwise.
 */
export function attemptsGpuHours(attempts: readonly Attempt[], gpus: number, until?: number): number {
  let seconds = 0;
  for (const a of attempts) {
    if (a.startedAt === undefined) continue;
    const end = a.endedAt === undefined ? until : Date.parse(a.endedAt);
    if (end === undefined) continue;
    const ran = (end - Date.parse(a.startedAt)) / 1000;
    if (ran > 0) seconds += ran * (a.gpus?.length ?? gpus);
  }
  return seconds / 3600;
}

export interface PhaseGpuHours {
  phase: string;
  /** Used by the attempts of its smoke and full stages, the running ones up to the state's last update. */
  used: number;
  /** What the plan budgets for both stages (walltime × GPUs: an upper bound). */
  budget: number;
}

export function phaseGpuHours(plan: Plan, state: CampaignState): PhaseGpuHours[] {
  const until = Date.parse(state.updated);
  return plan.phases.map((p) => {
    let used = 0;
    for (const array of p.arrays) {
      for (const id of array.tasks) {
        const attempts = state.tasks[id]?.attempts;
        if (attempts) used += attemptsGpuHours(attempts, array.resources.gpus, until);
      }
    }
    return { phase: p.name, used, budget: p.gpuHours + p.smokeGpuHours };
  });
}

/** GPU-hours as the summary writes them: two decimals under ten, one above. */
export function formatGpuHours(hours: number): string {
  return hours.toFixed(hours < 10 ? 2 : 1);
}
