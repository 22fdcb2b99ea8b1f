/**
 * The controller's decisions, pure: events fold into the state (`applyEvents`), and the state
 * with the plan yields the next actions (`step`). Nothing here waits: a phase that cannot go
 * on says why (blocked, failed), so a campaign always comes to rest.
 */
import type { Retry } from '../manifest/schema.js';
import { parseDuration } from '../manifest/units.js';
import { EXECUTOR_KINDS } from '../plan/executor-kinds.js';
import { smokeDefinitions, type Plan, type PhasePlan } from '../plan/plan.js';
import {
  submissionGroup,
  type Action,
  type CampaignEvent,
  type Defined,
  type Hold,
  type Submission,
} from '../state/events.js';
import { checklistKey } from '../judge/checklist.js';
import { definitionChanges } from './definition-changes.js';
import { placement, type Placement } from '../state/placement.js';
import { copyTasks, indexOf, setTask } from '../state/task-index.js';
import {
  ACTIVE,
  TERMINAL,
  type Attempt,
  type CampaignState,
  type FailureClass,
  type PhaseState,
  type TaskState,
} from '../state/state.js';

/** A walltime chosen for one attempt, where it is not the plan's, with how it was chosen. */
export interface NextWalltime {
  seconds: number;
  partition?: string;
  why: string;
}

export interface RetryRule {
  attempts: number;
  delaySeconds: number;
  memFactor?: number;
  /** The next attempt continues from the task's checkpoint (CAMPAIGN_RESUME=1). */
  resume?: boolean;
  /** The next attempt's walltime, from the one that ended and the units it did. */
  walltime?: (ended: { walltimeSeconds?: number; units?: number }) => NextWalltime;
}
export type RetryPolicy = (taskId: string, cls: FailureClass) => RetryRule;

/**
 * Retries per class when the manifest says nothing: a vanished task, a failed node or a
 * preemption is not the task's fault.
 */
const DEFAULT_ATTEMPTS: Partial<Record<FailureClass, number>> = { lost: 2, node_fail: 2, preempted: 3, shortfall: 2 };

/** The manifest retry entry a class is governed by. */
const ruleKey = (cls: 'completed' | FailureClass): string => (cls === 'unverified' ? 'failed' : cls);

/** The retry rule for a class, phase settings over defaults over built-in defaults. */
export function retryRule(phaseRetry: Retry | undefined, defaults: Retry | undefined, cls: FailureClass): RetryRule {
  // Sent again as it is, an unschedulable task would only wait for ever again.
  if (cls === 'gate' || cls === 'cancelled' || cls === 'disk_full' || cls === 'unschedulable')
    return { attempts: 0, delaySeconds: 0 };
  const key = cls === 'unverified' ? 'failed' : cls;
  const rule = phaseRetry?.[key] ?? defaults?.[key];
  const memFactor = key === 'out_of_memory' ? (rule as Retry['out_of_memory'])?.mem_factor : undefined;
  return {
    attempts: rule?.attempts ?? DEFAULT_ATTEMPTS[cls] ?? 0,
    delaySeconds: rule?.delay === undefined ? 0 : parseDuration(rule.delay)!,
    ...(memFactor === undefined ? {} : { memFactor }),
  };
}

/** What an attempt ran under, as its submission event says. */
function definedBy(e: Defined): Defined {
  return {
    ...(e.definition === undefined ? {} : { definition: e.definition }),
    ...(e.stageDefinition === undefined ? {} : { stageDefinition: e.stageDefinition }),
    ...(e.commit === undefined ? {} : { commit: e.commit }),
    ...(e.code === undefined ? {} : { code: e.code }),
  };
}

const addSeconds = (iso: string, s: number): string => new Date(Date.parse(iso) + s * 1000).toISOString();

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
      const attempts = replaced(t.attempts, i, a);
      if (e.class === 'completed') return renewed(t, { status: 'completed', attempts });
      const rule = policy(e.task, e.class);
      // Classes that share a rule share its allowance (`unverified` is counted with `failed`).
      const since = t.retryFrom ?? 0;
      const used =
        attempts.filter(
          (x) => x.n > since && x.class !== undefined && !x.unstarted && ruleKey(x.class) === ruleKey(e.class),
        ).length - 1;
      const why = `${e.class}${e.reason ? `: ${e.reason}` : ''}`;
      if (used >= rule.attempts) {
        return renewed(t, {
          status: 'failed',
          attempts,
          reason: rule.attempts > 0 ? `${why} (after ${rule.attempts} retries)` : why,
        });
      }
      const mem = rule.memFactor && a.memBytes ? Math.ceil(a.memBytes * rule.memFactor) : undefined;
      const wall = rule.walltime?.({
        ...(a.walltimeSeconds === undefined ? {} : { walltimeSeconds: a.walltimeSeconds }),
        ...(e.units === undefined ? {} : { units: e.units }),
      });
      return renewed(t, {
        status: 'retrying',
        attempts,
        reason: why,
        notBefore: addSeconds(e.at, rule.delaySeconds),
        ...(mem === undefined ? {} : { nextMemBytes: mem }),
        ...(wall === undefined ? {} : { nextWalltime: wall }),
        ...(rule.resume ? { resume: true } : {}),
      });
    }
  }
}

/**
 * A copy of a task's record or attempt with some fields changed: the keys of `{ ...from,
 * ...fields }`, in its order (the saved JSON's). Object.assign, not a spread: this V8 gives
 * every object spread from one of the many shapes a pass meets a hidden class of its own (a V8
 * map and its descriptors, about 25 MiB at 100,000 tasks), where these copies share theirs.
 */
function amended<T extends object>(from: T, fields: Partial<T>): T {
  return Object.assign({}, from, fields);
}

/** A task's record made afresh: a `--retry-failed` reset lasts for the task's life (retries are counted after it). */
function renewed(t: TaskState, fields: Omit<TaskState, 'retryFrom'>): TaskState {
  return t.retryFrom === undefined ? fields : Object.assign({ retryFrom: t.retryFrom }, fields);
}

/**
 * The attempts with `a` added, in an array of their number: one copied and then pushed to keeps
 * room for 16 more, over 100 bytes a task.
 */
const appended = (attempts: readonly Attempt[], a: Attempt): Attempt[] => attempts.concat([a]);

/** The attempts with the `i`th replaced by `a`. */
function replaced(attempts: readonly Attempt[], i: number, a: Attempt): Attempt[] {
  const out = attempts.slice();
  out[i] = a;
  return out;
}

/**
 * A new run looks again at what an outside change may have mended: missing preconditions are
 * checked again, failed checklists evaluated again (the manifest's checklist may have been
 * fixed), blocked tasks re-derived. With `retryFailed`, failed tasks and the smoke tasks of a
 * failed checklist run again, with their retry allowances afresh.
 */
/**
 * Phases whose smoke stage failed a checklist that the manifest has changed since. The checklist
 * is fixed before the smoke runs: a changed one judges a new smoke stage, never the old results.
 */
export function checklistsChanged(state: CampaignState, plan: Plan): string[] {
  return plan.phases
    .filter((p) => {
      const gate = state.phases[p.name]?.gate;
      return gate && !gate.passed && gate.checklist !== undefined && gate.checklist !== checklistKey(p.checklist);
    })
    .map((p) => p.name);
}

/** What a run says of a phase whose checklist changed after its smoke stage failed it. */
export const checklistChangedWarning = (phase: string): string =>
  `phase ${phase}: its checklist changed after it failed the smoke stage; the smoke stage runs again under the new one (a checklist is fixed before the smoke runs, never fitted to its results)`;

export interface StartOptions {
  retryFailed: boolean;
  /**
   * Keep the completed results of tasks whose definition changed, by the user's choice that the
   * change is harmless (recorded with each result), instead of running them again.
   */
  keepChanged?: boolean;
  /** When the run starts (the time a kept result records). */
  now?: string;
}

export function startRun(state: CampaignState, plan: Plan, opts: StartOptions): CampaignState {
  const phases: Record<string, PhaseState> = {};
  // Made here, so that its index is kept from this first pass on.
  const tasks = copyTasks(state.tasks);
  let definitions = state.definitions;
  const reset = (id: string): void => {
    const t = tasks[id];
    if (!t) return;
    const last = t.attempts[t.attempts.length - 1]?.n ?? 0;
    setTask(tasks, id, { status: 'pending', attempts: t.attempts, retryFrom: last });
  };
  // A changed definition runs again (or is kept by choice); a gate holds only for the smoke tasks it judged.
  const regated = new Map<string, 'drop' | 'keep'>();
  for (const change of definitionChanges(state, plan)) {
    const phase = plan.phases.find((p) => p.name === change.phase)!;
    const smokeIds = new Set(phase.smoke.map((t) => t.id));
    const specs = new Map([...phase.smoke, ...phase.tasks].map((t) => [t.id, t]));
    for (const { id, completed } of change.ended) {
      const touchesGate = smokeIds.has(id);
      if (!opts.keepChanged) {
        reset(id);
        if (touchesGate) regated.set(phase.name, 'drop');
        continue;
      }
      if (!completed) continue;
      const spec = specs.get(id)!;
      const stage = phase.definitions[spec.stage];
      const t = tasks[id]!;
      const last = t.attempts.at(-1)!;
      const kept = { definition: spec.definition!, stageDefinition: stage.id, at: opts.now ?? state.updated };
      const a = amended(last, { kept: [...(last.kept ?? []), { ...kept, changed: change.parts }] });
      setTask(tasks, id, amended(t, { attempts: replaced(t.attempts, t.attempts.length - 1, a) }));
      if (definitions?.[stage.id] === undefined) definitions = { ...definitions, [stage.id]: stage.parts };
      if (touchesGate && regated.get(phase.name) !== 'drop') regated.set(phase.name, 'keep');
    }
  }
  const changed = new Set(checklistsChanged(state, plan));
  for (const [name, p] of Object.entries(state.phases)) {
    const { gate, preconditions, ...rest } = p;
    const again = regated.get(name);
    const planned = plan.phases.find((x) => x.name === name);
    // A passed gate holds unless its smoke tasks run again; kept by choice, it holds for their new definitions.
    let held = gate?.passed && again !== 'drop' ? gate : undefined;
    if (held && again === 'keep' && planned) held = { ...held, definitions: smokeDefinitions(planned) };
    phases[name] = {
      ...rest,
      ...(held ? { gate: held } : {}),
      ...(preconditions && preconditions.missing.length === 0 ? { preconditions } : {}),
    };
    if ((opts.retryFailed || changed.has(name)) && gate && !gate.passed)
      for (const t of planned?.smoke ?? []) reset(t.id);
  }
  for (const [id, t] of Object.entries(tasks)) {
    if (t.status === 'blocked') {
      setTask(tasks, id, {
        status: 'pending',
        attempts: t.attempts,
        ...(t.retryFrom === undefined ? {} : { retryFrom: t.retryFrom }),
      });
    } else if (opts.retryFailed && (t.status === 'failed' || t.status === 'stuck')) reset(id);
    // The disk was full, not the task wrong: once there is room, it runs again with its retries intact.
    else if (t.status === 'failed' && t.attempts.at(-1)?.class === 'disk_full') reset(id);
  }
  const code = state.code === undefined ? undefined : usedSnapshots(state.code, tasks);
  return {
    ...state,
    phases,
    tasks,
    ...(definitions === undefined ? {} : { definitions }),
    ...(code === undefined ? {} : { code }),
  };
}

/** The code snapshots some attempt ran: those no attempt names any more are forgotten. */
function usedSnapshots(code: NonNullable<CampaignState['code']>, tasks: CampaignState['tasks']): CampaignState['code'] {
  const used = new Set<string>();
  for (const t of Object.values(tasks)) for (const a of t.attempts) if (a.code !== undefined) used.add(a.code);
  return Object.fromEntries(Object.entries(code).filter(([id]) => used.has(id)));
}

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
  for (const phase of dependencyOrder(plan)) {
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
  const handle = placement(plan, id)?.array.packing ? tasks[id]!.attempts.at(-1)?.handle : undefined;
  return handle === undefined ? id : `\u0000${handle}`;
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

/** Phases with their dependencies first (the plan's order where there is a choice). */
export function dependencyOrder(plan: Plan): PhasePlan[] {
  const byName = new Map(plan.phases.map((p) => [p.name, p]));
  const done = new Set<string>();
  const order: PhasePlan[] = [];
  const visit = (p: PhasePlan, path: Set<string>): void => {
    if (done.has(p.name) || path.has(p.name)) return;
    path.add(p.name);
    for (const d of p.dependsOn) {
      const dep = byName.get(d);
      if (dep) visit(dep, path);
    }
    done.add(p.name);
    order.push(p);
  };
  for (const p of plan.phases) visit(p, new Set());
  return order;
}

/** True when nothing more will happen without an outside change: no task active, nothing to do. */
export function atRest(state: CampaignState, actions: readonly Action[]): boolean {
  if (actions.length > 0) return false;
  return indexOf(state.tasks).count([...ACTIVE, 'retrying']) === 0;
}
