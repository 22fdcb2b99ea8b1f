/**
 * A controller confined to one phase and stage, as one job of a generated workflow is: the
 * smoke job of a phase submits its smoke tasks and evaluates its checklist, the release job
 * submits the full arrays, and neither touches another phase. Observation stays whole: every
 * pass still reconciles every active task.
 */
import type { JOB_STAGES } from '../manifest/expand.js';
import type { Plan } from '../plan/plan.js';
import type { Action } from '../state/events.js';
import { ACTIVE, type CampaignState } from '../state/state.js';
import { startRun, type StartOptions } from './start.js';

export type ScopeStage = (typeof JOB_STAGES)[number];

export interface Scope {
  /** Undefined: every phase. */
  phase?: string;
  stage: ScopeStage;
}

/** One scope, or several driven as one (a scheduled resume of the scopes that parked). */
export type Scopes = Scope | readonly Scope[];

export const WHOLE: Scope = { stage: 'all' };

function covers(scope: Scopes, phase: string, stage: 'smoke' | 'full'): boolean {
  const one = (s: Scope): boolean =>
    (s.phase === undefined || s.phase === phase) && (s.stage === 'all' || s.stage === stage);
  return 'stage' in scope ? one(scope) : scope.some(one);
}

/** The actions this scope may take; preconditions and the checklist come before release, so they are the smoke stage's. */
export function scopeActions(actions: readonly Action[], scope: Scopes): Action[] {
  const out: Action[] = [];
  for (const a of actions) {
    // What waits in the queue while the disk is full is held whatever the scope.
    if (a.type === 'hold') {
      out.push(a);
      continue;
    }
    if (a.type !== 'submit') {
      if (covers(scope, a.phase, 'smoke')) out.push(a);
      continue;
    }
    const submissions = a.submissions.filter((s) => covers(scope, s.array.phase, s.array.stage));
    if (submissions.length > 0) out.push({ ...a, submissions });
  }
  return out;
}

/** True when this scope has nothing left to do or wait for: no action of its own, no task of its own active or due for retry. */
export function scopeAtRest(
  plan: Plan,
  state: CampaignState,
  scopedActions: readonly Action[],
  scope: Scopes,
): boolean {
  if (scopedActions.length > 0) return false;
  for (const p of plan.phases) {
    for (const [stage, specs] of [
      ['smoke', p.smoke],
      ['full', p.tasks],
    ] as const) {
      if (!covers(scope, p.name, stage)) continue;
      for (const t of specs) {
        const s = state.tasks[t.id]?.status;
        if (s !== undefined && (ACTIVE.has(s) || s === 'retrying')) return false;
      }
    }
  }
  return true;
}

/**
 * `startRun` for a scoped job: `retryFailed` resets only this scope's failed tasks, so that a
 * later job of the same run does not reset a task an earlier job saw fail.
 */
export function startScopedRun(state: CampaignState, plan: Plan, scope: Scopes, opts: StartOptions): CampaignState {
  const kept = startRun(state, plan, { ...opts, retryFailed: false });
  if (!opts.retryFailed) return kept;
  const retried = startRun(state, plan, { ...opts, retryFailed: true });
  const tasks = { ...kept.tasks };
  for (const p of plan.phases) {
    for (const t of p.smoke)
      if (covers(scope, p.name, 'smoke') && retried.tasks[t.id]) tasks[t.id] = retried.tasks[t.id]!;
    for (const t of p.tasks)
      if (covers(scope, p.name, 'full') && retried.tasks[t.id]) tasks[t.id] = retried.tasks[t.id]!;
  }
  return { ...kept, tasks };
}
