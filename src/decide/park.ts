/**
 * Parking, pure: what a job that may have ended before its campaign came to rest leaves in the
 * state, and whether the workflow must run again for the next stage. A parked job lists its
 * scopes in the state; a scheduled resume drives exactly those (never a stage no job of the
 * workflow began: a gate, a release waiting for approval, a phase whose dependencies just
 * completed), and once one comes to rest it clears the list and starts the workflow again,
 * whose jobs begin the next stage or park their scopes again.
 */
import type { Plan } from '../plan/plan.js';
import type { CampaignState } from '../state/state.js';
import { scopeAtRest, type Scope } from './scope.js';

/** What the drive loop says of how it ended (app/drive.ts's Driven). */
export interface DriveEnd {
  state: CampaignState;
  atRest: boolean;
  /** Set when it parked: when the campaign last changed (epoch ms). */
  parked?: { since: number };
}

/**
 * The state after a job that may have parked: its scopes listed as parked (from the last change
 * the job saw) when it did, taken off when they came to rest. A resume whose scopes came to
 * rest, some or all, clears every parked scope and `continues`: the workflow runs again and its
 * jobs begin the next stage (or park their scopes again).
 */
export function parkedAfter(
  plan: Plan,
  driven: DriveEnd,
  scopes: readonly Scope[],
  resume: boolean,
): { state: CampaignState; continues: boolean } {
  const { state } = driven;
  const same = (a: Scope, b: Scope): boolean => a.phase === b.phase && a.stage === b.stage;
  const others = (state.parked?.scopes ?? []).filter((p) => !scopes.some((m) => same(m, p)));
  const rest = { ...state };
  delete rest.parked;
  const without = (kept: Scope[], since: string): CampaignState =>
    kept.length > 0 ? { ...rest, parked: { scopes: kept, since } } : rest;
  if (resume) {
    if (driven.parked && scopes.every((sc) => !scopeAtRest(plan, state, [], sc)))
      return { state: without([...scopes], new Date(driven.parked.since).toISOString()), continues: false };
    if (driven.parked || driven.atRest)
      return { state: rest, continues: !plan.phases.every((p) => state.phases[p.name]?.status === 'completed') };
    // The budget ran out or the job was cancelled: what parked stays parked.
    return { state, continues: false };
  }
  if (driven.parked)
    return { state: without([...others, ...scopes], new Date(driven.parked.since).toISOString()), continues: false };
  return { state: state.parked ? without(others, state.parked.since) : state, continues: false };
}
