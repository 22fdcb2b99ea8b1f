/**
 * How long the controller waits before its next pass. Each pass is a round trip to the cluster
 * (a Slurm pass reads the tasks' markers and asks the scheduler only what they cannot say), so
 * passes come at the longest interval unless an answer is due sooner. What is due: a retry
 * whose delay runs out, and a running task's expected end (from its cost model) where that end
 * matters: it frees room for tasks still to be submitted, or it is the last one, the end of the
 * campaign. A task past its expected end is looked at soon, then less and less often. Without a
 * cost model, the run times of the tasks of its stage and stratum that completed stand in for
 * one; a task with neither is looked at as one past its end from its submission and its start
 * (soon, then less and less often), so that short tasks are seen to end within seconds and long
 * ones cost no more than the longest interval. Processes that are free to look at (no
 * scheduler) are looked at again soon after anything changed, less often while nothing does.
 */
import { EXECUTOR_KINDS, type ExecutorKind } from '../plan/executor-kinds.js';
import type { Plan } from '../plan/plan.js';
import type { CampaignState } from '../state/state.js';
import { phaseCounts } from '../state/phase-counts.js';
import { indexOf } from '../state/task-index.js';

export interface PollLimits {
  /** Asks a scheduler (each look costs it) or looks at processes (free). */
  costly: boolean;
  minSeconds: number;
  maxSeconds: number;
}

const MORE_TO_COME = new Set(['waiting', 'smoke', 'gate']);
/** After an expected end, accounting needs a moment to record it. */
const SETTLE_SECONDS = 1;

/** The expected seconds of each task whose phase has a cost model, by task id. */
export function expectedSeconds(plan: Plan): Map<string, number> {
  const expected = new Map<string, number>();
  for (const phase of plan.phases)
    for (const array of phase.arrays) {
      const seconds = array.budget.costSeconds;
      if (seconds !== undefined) for (const id of array.tasks) expected.set(id, seconds);
    }
  return expected;
}

/**
 * Run times learned from the tasks that completed, standing in for a cost model: per array
 * group (phase, stage and stratum) of the tasks that have none, the median run time of its
 * completed tasks' last attempts, by the executor's clock.
 */
class LearnedRunTimes {
  /** The group of each task without a cost model. */
  private readonly groupOf = new Map<string, string>();
  private readonly members = new Map<string, string[]>();
  /** Per group: how many completed when its median was taken, and the median. */
  private readonly known = new Map<string, { completed: number; seconds: number | undefined }>();

  constructor(plan: Plan, costed: ReadonlyMap<string, number>) {
    for (const phase of plan.phases)
      for (const array of phase.arrays) {
        const group = `${array.phase}\0${array.stage}\0${array.stratum}`;
        for (const id of array.tasks) {
          if (costed.has(id)) continue;
          this.groupOf.set(id, group);
          const list = this.members.get(group) ?? [];
          list.push(id);
          this.members.set(group, list);
        }
      }
  }

  /**
   * The learned run time of a task's group in `state`, in seconds (undefined while none of it
   * completed), each group counted once per state and its median taken again only when more of
   * it completed.
   */
  forState(state: CampaignState, completed: ReadonlySet<string>): (id: string) => number | undefined {
    const now = new Map<string, number | undefined>();
    return (id) => {
      const group = this.groupOf.get(id);
      if (group === undefined) return undefined;
      if (now.has(group)) return now.get(group);
      const ids = this.members.get(group)!;
      let count = 0;
      for (const m of ids) if (completed.has(m)) count++;
      const before = this.known.get(group);
      let seconds = before?.seconds;
      if (before?.completed !== count) {
        const runs: number[] = [];
        for (const m of ids) {
          const a = completed.has(m) ? state.tasks[m]?.attempts.at(-1) : undefined;
          if (a?.startedAt && a.endedAt) runs.push((Date.parse(a.endedAt) - Date.parse(a.startedAt)) / 1000);
        }
        runs.sort((x, y) => x - y);
        seconds = runs.length === 0 ? undefined : runs[Math.floor((runs.length - 1) / 2)];
        this.known.set(group, { completed: count, seconds });
      }
      now.set(group, seconds);
      return seconds;
    };
  }
}

export class PollPacer {
  private wait: number;
  private counts = '';
  /** Expected seconds of each task that has a cost model. */
  private readonly expected: ReadonlyMap<string, number>;
  private readonly learned: LearnedRunTimes;
  /** The most tasks seen running at once: as many places as the queued ones will take in waves. */
  private widest = 0;

  constructor(
    private readonly plan: Plan,
    private readonly limits: PollLimits,
  ) {
    this.wait = limits.minSeconds;
    this.expected = expectedSeconds(plan);
    this.learned = new LearnedRunTimes(plan, this.expected);
  }

  /** Seconds to wait after a pass that left `state`, at `nowMs`. */
  next(state: CampaignState, nowMs: number): number {
    const { minSeconds: min, maxSeconds: max } = this.limits;
    if (!this.limits.costly) {
      const counts = JSON.stringify(phaseCounts(this.plan, state));
      this.wait = counts !== this.counts ? min : Math.min(max, this.wait * 1.5);
      this.counts = counts;
      return this.wait;
    }
    const clamp = (s: number): number => Math.min(max, Math.max(min, s));
    let wait = max;
    const learned = this.learned.forState(state, indexOf(state.tasks).ids('completed'));
    const expectedOf = (id: string): number | undefined => this.expected.get(id) ?? learned(id);
    this.widest = Math.max(this.widest, indexOf(state.tasks).ids('running').size);
    for (const at of dueTimes(state, this.plan, expectedOf, nowMs, this.widest)) {
      const ahead = (at - nowMs) / 1000;
      wait = Math.min(wait, clamp(ahead >= 0 ? ahead + SETTLE_SECONDS : -ahead / 2));
    }
    return wait;
  }

  /**
   * Seconds from `nowMs` until an answer from the scheduler is first due: 0 when one is due now
   * (or a task's run time is unknown), Infinity when none is. How long a job may leave the
   * campaign alone (park).
   */
  quietSeconds(state: CampaignState, nowMs: number): number {
    const learned = this.learned.forState(state, indexOf(state.tasks).ids('completed'));
    const due = dueTimes(state, this.plan, (id) => this.expected.get(id) ?? learned(id), nowMs, this.widest);
    const first = due.reduce((a, b) => Math.min(a, b), Infinity);
    return Math.max(0, (first - nowMs) / 1000);
  }
}

/** The times (epoch ms) at which an answer from the scheduler is due. */
function dueTimes(
  state: CampaignState,
  plan: Plan,
  expected: (id: string) => number | undefined,
  nowMs: number,
  widest: number,
): number[] {
  const due: number[] = [];
  const ends: number[] = [];
  const index = indexOf(state.tasks);
  const queued = index.ids('submitted').size;
  const running = index.ids('running').size;
  /** The shortest and longest expected times of the queued tasks (Infinity: one has none). */
  let soonestQueued = Infinity;
  let longestQueued = 0;
  const waiting =
    index.ids('pending').size > 0 ||
    index.ids('retrying').size > 0 ||
    plan.phases.some((p) => {
      const status = state.phases[p.name]?.status ?? 'waiting';
      const missing = () => index.completeFor !== plan && p.tasks.some((t) => state.tasks[t.id] === undefined);
      return MORE_TO_COME.has(status) || (status === 'full' && missing());
    });
  for (const id of index.ids('retrying')) {
    const notBefore = state.tasks[id]!.notBefore;
    if (notBefore) due.push(Date.parse(notBefore));
  }
  for (const id of index.ids('submitted')) {
    const seconds = expected(id);
    soonestQueued = Math.min(soonestQueued, seconds ?? Infinity);
    longestQueued = Math.max(longestQueued, seconds ?? Infinity);
    // Nothing known of its run time: it may start and end at once, so it is looked at as one
    // past its end since it was submitted.
    const submitted = state.tasks[id]!.attempts.at(-1)?.submittedAt;
    if (seconds === undefined && submitted) due.push(Date.parse(submitted));
  }
  for (const id of index.ids('running')) {
    const started = state.tasks[id]!.attempts.at(-1)?.startedAt;
    if (!started) continue;
    const seconds = expected(id);
    if (seconds !== undefined) ends.push(Date.parse(started) + seconds * 1000);
    // Nothing known of its run time: looked at as one past its end since it started.
    else due.push(Date.parse(started));
  }
  // Nothing running: the first queued task to start cannot end before its expected time from now.
  if (running === 0 && soonestQueued < Infinity) due.push(nowMs + soonestQueued * 1000);
  // Room for waiting tasks comes with any end.
  if (waiting) return due.concat(ends);
  if (ends.length < running) return due;
  const lastEnd = ends.reduce((a, b) => Math.max(a, b), nowMs);
  // The last rounds, the queued tasks taking the running ones' places in waves: the campaign
  // ends when the last wave does (far off while many waves are left, so no look is spent). A
  // pass between two waves sees few running: the places are as many as were ever seen taken.
  if (queued === 0) due.push(lastEnd);
  else if (running > 0 && longestQueued < Infinity)
    due.push(lastEnd + Math.ceil(queued / Math.max(running, widest)) * longestQueued * 1000);
  return due;
}

/** The limits for an executor kind (its traits); `maxSeconds` overrides the longest wait. */
export function pollLimits(executor: ExecutorKind, maxSeconds?: number): PollLimits {
  const { pollSeconds, costlyPolls } = EXECUTOR_KINDS[executor];
  const longest = maxSeconds ?? pollSeconds[1];
  return { costly: costlyPolls, minSeconds: Math.min(pollSeconds[0], longest), maxSeconds: longest };
}
