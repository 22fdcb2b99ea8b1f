/**
 * The decisions of a pass after its events are applied: with the plan and the executor's room,
 * which actions come next (arrays to submit as capacity allows, a smoke gate to judge,
 * preconditions to check, dependants of a failed phase to block, tasks held while the disk is
 * full), and whether the campaign is at rest. Nothing here waits: a phase that cannot go on
 * says why (blocked, failed), so a campaign always comes to rest.
 */
import { EXECUTOR_KINDS } from '../plan/executor-kinds.js';
import { dependenciesFirst } from '../plan/dependency-order.js';
import type { Plan, PhasePlan } from '../plan/plan.js';
import { submissionGroup, type Action, type Hold, type Submission } from '../state/events.js';
import { packedElement, placement, type Placement } from '../state/placement.js';
import { copyTasks, indexOf, setTask } from '../state/task-index.js';
import { ACTIVE, TERMINAL, type CampaignState, type PhaseState, type TaskState } from '../state/state.js';
import { amended } from './copies.js';

export interface StepResult {
  state: CampaignState;
  actions: Action[];
}

/**
 * Decides what to do next. `capacity` is how many more jobs (array elements) may be started now (the
 * executor's free slots); phases are visited in dependency order, smoke before full.
 */
export function step(
  state: CampaignState,
  plan: Plan,
  now: string,
  capacity: number,
  /** Active tasks the executor saw end, not yet judged: their places in their phase are free. */
  ended: ReadonlySet<string> = new Set(),
): StepResult {
  // The tasks are copied on the first change only: most passes change none of them here.
  let tasks = state.tasks;
  const own = (): Record<string, TaskState> => (tasks === state.tasks ? (tasks = copyTasks(tasks)) : tasks);
  const set = (id: string, t: TaskState): void => setTask(own(), id, t);
  const phases = { ...state.phases };
  let definitions = state.definitions ?? {};
  let code = state.code ?? {};
  const actions: Action[] = [];
  let room = capacity;
  if (indexOf(tasks).completeFor !== plan) {
    for (const p of plan.phases) {
      for (const t of p.smoke) if (!tasks[t.id]) set(t.id, { status: 'pending', attempts: [] });
      for (const t of p.tasks) if (!tasks[t.id]) set(t.id, { status: 'pending', attempts: [] });
    }
    indexOf(tasks).completeFor = plan;
  }

  const hold = pauseOnFullDisk(tasks, set, EXECUTOR_KINDS[plan.executor].queues);
  if (hold) actions.push({ type: 'hold', ...hold });
  for (const phase of dependenciesFirst(plan.phases, (p) => p.dependsOn)) {
    const prev: PhaseState = phases[phase.name] ?? { status: 'waiting' };
    const next = decidePhase(phase, prev, phases, tasks);
    if (next.submitFrom) {
      // The room is in jobs: a packed phase sends as many tasks as its elements hold.
      const perJob = tasksPerJob(phase);
      const jobs = phaseRoom(plan, phase, tasks, room, ended);
      const due = dueSubmissions(plan, next.submitFrom, tasks, now, jobs * perJob);
      const { submissions, taken } = perJob === 1 ? { submissions: due, taken: due.length } : withinJobs(due, jobs);
      room -= taken;
      if (submissions.length > 0) actions.push({ type: 'submit', submissions });
      // The stage definition the attempts are sent under, kept for telling later which part changed;
      // their code snapshot likewise, for telling which files changed.
      for (const s of submissions) {
        const d = phase.definitions[s.task.stage];
        if (definitions[d.id] === undefined) definitions = { ...definitions, [d.id]: d.parts };
      }
      if (submissions.length > 0 && plan.code !== undefined && code[plan.code.id] === undefined) {
        const { id, ...record } = plan.code;
        code = { ...code, [id]: record };
      }
    }
    if (next.action) actions.push(next.action);
    if (next.block) {
      for (const stage of [phase.smoke, phase.tasks]) {
        for (const t of stage) {
          const ts = tasks[t.id]!;
          if (!TERMINAL.has(ts.status) && !ACTIVE.has(ts.status))
            set(t.id, amended(ts, { status: 'blocked', reason: next.state.reason }));
        }
      }
    }
    phases[phase.name] = next.state;
  }
  // A pass that changed nothing leaves the state as it was: an idle pass then saves nothing.
  const samePhases = JSON.stringify(phases) === JSON.stringify(state.phases);
  const sameDefinitions = definitions === (state.definitions ?? {});
  const sameCode = code === (state.code ?? {});
  if (tasks === state.tasks && samePhases && sameDefinitions && sameCode) return { state, actions };
  return {
    state: {
      ...state,
      tasks,
      phases: samePhases ? state.phases : phases,
      ...(sameDefinitions ? {} : { definitions }),
      ...(sameCode ? {} : { code }),
      updated: now > state.updated ? now : state.updated,
    },
    actions,
  };
}

/** Tasks that ended on a full disk: the campaign is paused while there are any. */
export function diskFullTasks(state: CampaignState): string[] {
  return [...indexOf(state.tasks).diskFullIds()];
}

/**
 * While a task has found the disk full, the tasks not yet sent are held back (blocked, with
 * the reason; tasks running go on): they would only fail the same way and spend their
 * retries. The next run (startRun) sends them, and the tasks that found the disk full, again.
 * Where a scheduler queues what was sent (`queued`), the attempts still waiting in its queue
 * are taken out of it too (the hold returned), or they would start and fail one after another.
 */
function pauseOnFullDisk(
  tasks: Record<string, TaskState>,
  set: (id: string, t: TaskState) => void,
  queued: boolean,
): Hold | undefined {
  const index = indexOf(tasks);
  const full = [...index.diskFullIds()];
  if (full.length === 0) return undefined;
  const more = full.length > 1 ? ` and ${full.length - 1} more` : '';
  const reason = `paused: the disk is full (${full[0]}${more}); free space and run again`;
  for (const id of [...index.ids('pending'), ...index.ids('retrying')])
    set(id, amended(tasks[id]!, { status: 'blocked', reason }));
  // A submitted task has not been seen to start: in a scheduler's queue, it is waiting there.
  const waiting = queued ? [...index.ids('submitted')] : [];
  if (waiting.length === 0) return undefined;
  return {
    tasks: waiting.map((id) => ({ task: id, attempt: tasks[id]!.attempts.at(-1)!.n })),
    reason: `held: taken out of the queue while the disk is full (${full[0]}${more}); sent again by the next run`,
  };
}

interface PhaseDecision {
  state: PhaseState;
  /** The stage whose due tasks should be submitted. */
  submitFrom?: { phase: PhasePlan; stage: 'smoke' | 'full' };
  action?: Action;
  block?: boolean;
}

function decidePhase(
  phase: PhasePlan,
  prev: PhaseState,
  phases: Record<string, PhaseState>,
  tasks: Record<string, TaskState>,
): PhaseDecision {
  const keep = {
    ...(prev.gate ? { gate: prev.gate } : {}),
    ...(prev.preconditions ? { preconditions: prev.preconditions } : {}),
  };
  const at = (status: PhaseState['status'], reason?: string): PhaseState => ({
    ...keep,
    status,
    ...(reason ? { reason } : {}),
  });
  // Nothing here is sticky: the status is derived afresh from the tasks, the gate and the
  // preconditions on every pass, so tasks added to a finished phase by an edited manifest run.
  for (const dep of phase.dependsOn) {
    const d = phases[dep];
    if (d?.status === 'failed' || d?.status === 'blocked') {
      return { state: at('blocked', `dependency ${dep} ${d.status}${d.reason ? `: ${d.reason}` : ''}`), block: true };
    }
  }
  const waitingOn = phase.dependsOn.filter((dep) => phases[dep]?.status !== 'completed');
  if (waitingOn.length > 0) return { state: at('waiting', `waiting for ${waitingOn.join(', ')}`) };

  if (phase.preconditions.length > 0 && !prev.preconditions) {
    return {
      state: at('waiting', 'checking preconditions'),
      action: { type: 'check_preconditions', phase: phase.name },
    };
  }
  if (prev.preconditions && prev.preconditions.missing.length > 0) {
    const shown = prev.preconditions.missing.slice(0, 3).join(', ');
    const more = prev.preconditions.missing.length > 3 ? ` and ${prev.preconditions.missing.length - 3} more` : '';
    return { state: at('blocked', `precondition missing: ${shown}${more}`), block: true };
  }

  if (phase.smoke.length > 0 && !prev.gate?.passed) {
    if (!phase.smoke.every((t) => TERMINAL.has(tasks[t.id]!.status))) {
      return { state: at('smoke'), submitFrom: { phase, stage: 'smoke' } };
    }
    if (!prev.gate) return { state: at('gate'), action: { type: 'evaluate_gate', phase: phase.name } };
    const failed = prev.gate.results.filter((r) => !r.passed);
    const why = failed.map((r) => `${r.check}: ${r.detail}${r.otherwise ? ` → ${r.otherwise}` : ''}`).join('; ');
    return { state: at('blocked', `smoke checklist failed: ${why}`), block: true };
  }

  let bad = 0;
  for (const t of phase.tasks) {
    const s = tasks[t.id]!;
    if (!TERMINAL.has(s.status)) return { state: at('full'), submitFrom: { phase, stage: 'full' } };
    if (s.status !== 'completed') bad++;
  }
  if (bad === 0) return { state: at('completed') };
  return { state: at('failed', `${bad} of ${phase.tasks.length} tasks did not complete`) };
}

/**
 * The tasks of a stage that are due, up to `room`, in array order. Found among the pending and
 * retrying tasks: a walk over every task of the phase cost a twentieth of a second at 100,000.
 */
function dueSubmissions(
  plan: Plan,
  from: { phase: PhasePlan; stage: 'smoke' | 'full' },
  tasks: Record<string, TaskState>,
  now: string,
  room: number,
): Submission[] {
  if (room <= 0) return [];
  const index = indexOf(tasks);
  const due: { slot: Placement; t: TaskState }[] = [];
  for (const status of ['pending', 'retrying'] as const) {
    for (const id of index.ids(status)) {
      const slot = placement(plan, id, from.stage);
      if (slot === undefined || slot.array.phase !== from.phase.name) continue;
      const t = tasks[id]!;
      if (status === 'pending' || t.notBefore === undefined || t.notBefore <= now) due.push({ slot, t });
    }
  }
  due.sort((a, b) => a.slot.order - b.slot.order || a.slot.index - b.slot.index);
  return due.slice(0, room).map(({ slot: { spec, array, index }, t }) => {
    const last = t.attempts[t.attempts.length - 1];
    const mem = t.nextMemBytes ?? last?.memBytes ?? array.resources.memBytes;
    const wall = t.nextWalltime;
    const budget = wall && {
      ...array.budget,
      seconds: wall.seconds,
      partition: wall.partition ?? array.budget.partition,
      arithmetic: wall.why,
    };
    return {
      task: spec,
      attempt: (last?.n ?? 0) + 1,
      // The array as this attempt is sent in it: with its own walltime where it has one.
      array: budget ? { ...array, budget } : array,
      index,
      ...(t.resume ? { resume: true } : {}),
      stageDefinition: from.phase.definitions[spec.stage].id,
      ...(plan.code === undefined ? {} : { code: plan.code.id }),
      ...(mem === undefined ? {} : { memBytes: mem }),
      ...avoid(t),
    };
  });
}

/**
 * The room a phase has this pass: the campaign's, and within it what the phase's own
 * max_parallel leaves beside its tasks already sent (smoke and full alike).
 */
function phaseRoom(
  plan: Plan,
  phase: PhasePlan,
  tasks: Record<string, TaskState>,
  room: number,
  ended: ReadonlySet<string>,
): number {
  if (phase.maxParallel === undefined) return room;
  const index = indexOf(tasks);
  const sent = new Set<string>();
  for (const status of ACTIVE)
    for (const id of index.ids(status))
      if (!ended.has(id) && placement(plan, id)?.array.phase === phase.name) sent.add(jobOf(plan, tasks, id));
  return Math.min(room, phase.maxParallel - sent.size);
}

/**
 * Of `due` (in order), those that fit in `jobs` jobs, and the jobs they take: a packed task
 * fills its group's element (state/events.ts, submissionGroup: a retry's is apart from first
 * attempts') and starts a new one only where there is room for it; any other task is a job.
 */
function withinJobs(due: readonly Submission[], jobs: number): { submissions: Submission[]; taken: number } {
  const held = new Map<string, number>();
  const submissions: Submission[] = [];
  let taken = 0;
  for (const s of due) {
    const per = s.array.packing?.tasks ?? 1;
    const group = submissionGroup(s);
    const n = held.get(group) ?? 0;
    const more = n % per === 0 ? 1 : 0;
    if (taken + more > jobs) continue;
    taken += more;
    held.set(group, n + 1);
    submissions.push(s);
  }
  return { submissions, taken };
}

/** The most tasks one job of the phase holds: its packed elements' size, else 1. */
function tasksPerJob(phase: PhasePlan): number {
  return Math.max(1, ...phase.arrays.map((a) => a.packing?.tasks ?? 1));
}

/**
 * The job a task's active attempt runs in: a packed task's is its handle, which it shares with
 * its element's other tasks; any other task is a job of its own (a process's handle, its pid,
 * may be another's once it has ended).
 */
function jobOf(plan: Plan, tasks: Record<string, TaskState>, id: string): string {
  const element = packedElement(plan, tasks[id]!, id);
  return element === undefined ? id : `\u0000${element.handle}`;
}

/**
 * The jobs the active tasks take (capacity and the submit limit count jobs and array elements,
 * not tasks): a packed element's tasks share one.
 */
export function activeJobs(plan: Plan, tasks: Record<string, TaskState>): number {
  const index = indexOf(tasks);
  const jobs = new Set<string>();
  for (const status of ACTIVE) for (const id of index.ids(status)) jobs.add(jobOf(plan, tasks, id));
  return jobs.size;
}

/** The nodes earlier attempts of a task failed on, for the next submission to avoid. */
function avoid(t: TaskState): { avoidNodes?: string[] } {
  const nodes = [...new Set(t.attempts.flatMap((a) => (a.class === 'node_fail' && a.node ? [a.node] : [])))];
  return nodes.length > 0 ? { avoidNodes: nodes } : {};
}

/** True when nothing more will happen without an outside change: no task active, nothing to do. */
export function atRest(state: CampaignState, actions: readonly Action[]): boolean {
  if (actions.length > 0) return false;
  return indexOf(state.tasks).count([...ACTIVE, 'retrying']) === 0;
}
