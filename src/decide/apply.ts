/**
 * The first decision of a pass: the events an executor observed (and the controller's own, a
 * gate judged, preconditions checked) folded into the state, each attempt's end earning what the
 * retry policy gives it (decide/retry.ts). Replayed events change nothing, so a pass cut short
 * and made again converges.
 */
import type { CampaignEvent, Defined } from '../state/events.js';
import { copyTasks, setTask } from '../state/task-index.js';
import type { CampaignState, PhaseState, TaskState } from '../state/state.js';
import { amended, appended, renewed, replaced } from './copies.js';
import { afterEnd, type RetryPolicy } from './retry.js';

/** What an attempt ran under, as its submission event says. */
function definedBy(e: Defined): Defined {
  return {
    ...(e.definition === undefined ? {} : { definition: e.definition }),
    ...(e.stageDefinition === undefined ? {} : { stageDefinition: e.stageDefinition }),
    ...(e.commit === undefined ? {} : { commit: e.commit }),
    ...(e.code === undefined ? {} : { code: e.code }),
  };
}

/**
 * Folds observations into the state. The input state is not changed, with one exception for
 * the caller that made the state's tasks record itself and lets no one else see it: passed as
 * `owned`, that record is changed in place rather than copied.
 */
export function applyEvents(
  state: CampaignState,
  events: readonly CampaignEvent[],
  policy: RetryPolicy,
  owned?: Record<string, TaskState>,
): CampaignState {
  if (events.length === 0) return state;
  // Copied on the first change only: a pass's events touch a few of many tasks.
  let tasks = state.tasks;
  let copy = tasks !== owned;
  const phases = { ...state.phases };
  let updated = state.updated;
  for (const e of events) {
    updated = e.at > updated ? e.at : updated;
    if (e.type === 'gate' || e.type === 'preconditions') {
      const prev: PhaseState = phases[e.phase] ?? { status: 'waiting' };
      phases[e.phase] =
        e.type === 'gate'
          ? {
              ...prev,
              gate: {
                passed: e.results.every((r) => r.passed),
                at: e.at,
                results: e.results,
                checklist: e.checklist,
                definitions: e.definitions,
              },
            }
          : { ...prev, preconditions: { at: e.at, missing: e.missing } };
      continue;
    }
    const prev = tasks[e.task];
    if (!prev) continue;
    const next = applyTaskEvent(prev, e, policy);
    if (next === prev) continue;
    if (copy) {
      tasks = copyTasks(tasks);
      copy = false;
    }
    setTask(tasks, e.task, next);
  }
  return { ...state, tasks, phases, updated };
}

function applyTaskEvent(t: TaskState, e: Exclude<CampaignEvent, { phase: string }>, policy: RetryPolicy): TaskState {
  const i = t.attempts.findIndex((a) => a.n === e.attempt);
  switch (e.type) {
    case 'submitted': {
      if (i >= 0) return t; // a replayed submission: the attempt is already recorded
      const attempts = appended(t.attempts, {
        n: e.attempt,
        submittedAt: e.at,
        handle: e.handle,
        ...(e.memBytes === undefined ? {} : { memBytes: e.memBytes }),
        ...(e.log === undefined ? {} : { log: e.log }),
        ...(e.walltimeSeconds === undefined ? {} : { walltimeSeconds: e.walltimeSeconds }),
        ...(e.gpus === undefined ? {} : { gpus: e.gpus }),
        ...(t.resume ? { resumed: true } : {}),
        ...(t.nextWalltime ? { retimed: t.nextWalltime.why } : {}),
        ...definedBy(e),
      });
      return renewed(t, { status: 'submitted', attempts });
    }
    case 'submit_failed': {
      if (i >= 0) return t;
      const attempts = appended(t.attempts, {
        n: e.attempt,
        submittedAt: e.at,
        endedAt: e.at,
        class: 'failed',
        reason: e.reason,
        ...definedBy(e),
      });
      return renewed(t, { status: 'failed', attempts, reason: `could not start: ${e.reason}` });
    }
    case 'unstarted': {
      if (i < 0 || t.attempts[i]!.class !== undefined) return t;
      const a = amended(t.attempts[i]!, { endedAt: e.at, class: 'cancelled', reason: e.reason, unstarted: true });
      return renewed(t, { status: 'pending', attempts: replaced(t.attempts, i, a) });
    }
    case 'queued':
      return i < 0 || t.status !== 'submitted' ? t : amended(t, { waiting: e.waiting });
    case 'started': {
      if (i < 0 || t.status !== 'submitted') return t;
      const a = amended(t.attempts[i]!, { startedAt: e.at, ...(e.node === undefined ? {} : { node: e.node }) });
      return amended(t, { waiting: undefined, status: 'running', attempts: replaced(t.attempts, i, a) });
    }
    case 'finished': {
      if (i < 0 || t.attempts[i]!.class !== undefined) return t; // unknown or already finished: finish once
      const a = amended(t.attempts[i]!, {
        endedAt: e.at,
        class: e.class,
        ...(e.exitCode === undefined ? {} : { exitCode: e.exitCode }),
        ...(e.reason === undefined ? {} : { reason: e.reason }),
        ...(e.node === undefined ? {} : { node: e.node }),
        ...(e.adapted === undefined || e.adapted.length === 0 ? {} : { adapted: e.adapted }),
        ...(e.startedAt === undefined ? {} : { startedAt: e.startedAt }),
        ...(e.unitsFrom === undefined ? {} : { unitsFrom: e.unitsFrom }),
      });
      return afterEnd(t, replaced(t.attempts, i, a), a, e, policy);
    }
  }
}
