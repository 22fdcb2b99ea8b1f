/** How many tasks of each phase's current stage stand at each status: what progress lines say. */
import type { Plan } from '../plan/plan.js';
import { definitionOf, type CampaignState, type TaskState } from './state.js';

export interface PhaseCounts {
  phase: string;
  status: string;
  reason?: string;
  stage: 'smoke' | 'full';
  done: number;
  running: number;
  pending: number;
  failed: number;
  total: number;
  retries: number;
  /** Submitted and not started: with the most common reason the scheduler gives. */
  queued: number;
  waiting?: string;
}

/**
 * The retries of a task: its attempts under its current definition after the first. The
 * attempts of an earlier definition are runs of another task, not retries of this one.
 */
export function retriesOf(s: TaskState | undefined, definition: string | undefined): number {
  if (!s) return 0;
  const own = s.attempts.filter((a) => {
    const d = definitionOf(a);
    return d === undefined || d === definition;
  });
  return Math.max(0, own.length - 1);
}

export function phaseCounts(plan: Plan, state: CampaignState): PhaseCounts[] {
  return plan.phases.map((p) => {
    const ps = state.phases[p.name];
    const stage = ps?.status === 'smoke' || ps?.status === 'gate' ? 'smoke' : 'full';
    const specs = stage === 'smoke' ? p.smoke : p.tasks;
    const counts = { done: 0, running: 0, queued: 0, pending: 0, failed: 0, retries: 0 };
    const reasons = new Map<string, number>();
    for (const t of specs) {
      const s = state.tasks[t.id];
      const status = s?.status ?? 'pending';
      if (status === 'completed') counts.done++;
      else if (status === 'running') counts.running++;
      else if (status === 'submitted') {
        counts.queued++;
        if (s?.waiting) reasons.set(s.waiting, (reasons.get(s.waiting) ?? 0) + 1);
      } else if (status === 'failed' || status === 'stuck') counts.failed++;
      else counts.pending++;
      counts.retries += retriesOf(s, t.definition);
    }
    const waiting = [...reasons.entries()].sort((a, b) => b[1] - a[1])[0]?.[0];
    return {
      phase: p.name,
      ...(waiting ? { waiting } : {}),
      status: ps?.status ?? 'waiting',
      ...(ps?.reason ? { reason: ps.reason } : {}),
      stage,
      ...counts,
      total: specs.length,
    };
  });
}
