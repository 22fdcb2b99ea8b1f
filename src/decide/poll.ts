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
 * ones cost no more than the longest interval. The places are counted in jobs: a packed
 * element's tasks run in turn, so it frees its place when the last of them ends, and while
 * jobs are still starting (more running than the pass before, and one sent seconds ago not
 * started) the next pass comes soon, since the places the queued ones wait for are not all
 * seen yet. Processes that are free to look at (no scheduler) are looked at again soon after
 * anything changed, less often while nothing does.
 */
import { EXECUTOR_KINDS, type ExecutorKind } from '../plan/executor-kinds.js';
import type { Plan } from '../plan/plan.js';
import type { CampaignState } from '../state/state.js';
import { phaseCounts } from '../state/phase-counts.js';
import { packedElement } from '../state/placement.js';
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
/**
 * A job sent this recently and not started may be starting: a scheduler starts what fits within
 * a second or two of the submission, and the job's first task writes its start marker soon after.
 */
const STARTING_SECONDS = 10;

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
  /** The most jobs seen running at once: as many places as the queued ones will take in waves. */
  private widest = 0;
  /** The jobs the last pass saw running (none before the first). */
  private lastRunning: number | undefined;

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
    const due = this.due(state, nowMs);
    const filling =
      this.lastRunning !== undefined &&
      due.jobsRunning > this.lastRunning &&
      nowMs - due.newestQueued <= STARTING_SECONDS * 1000;
    this.widest = Math.max(this.widest, due.jobsRunning);
    this.lastRunning = due.jobsRunning;
    // Jobs are still starting: the places they take are not all seen yet, and the queued jobs'
    // waves are counted in them, so the next pass comes soon and sees them.
    if (filling) return min;
    let wait = max;
    for (const at of due.times) {
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
    const first = this.due(state, nowMs).times.reduce((a, b) => Math.min(a, b), Infinity);
    return Math.max(0, (first - nowMs) / 1000);
  }

  private due(state: CampaignState, nowMs: number): Due {
    const learned = this.learned.forState(state, indexOf(state.tasks).ids('completed'));
    return dueTimes(state, this.plan, (id) => this.expected.get(id) ?? learned(id), nowMs, this.widest);
  }
}

/** When answers are due, and the jobs (tasks of their own, or packed elements) that are out. */
interface Due {
  /** The times (epoch ms) at which an answer from the scheduler is due. */
  times: number[];
  /** Jobs with a task running. */
  jobsRunning: number;
  /** When the newest job with no task started was sent (epoch ms; -Infinity: none is queued). */
  newestQueued: number;
}

/**
 * A packed element as the pacer follows it: its tasks run in turn (`parallel` at a time), and
 * its place frees when the last of them ends.
 */
interface ElementPace {
  parallel: number;
  /** Its tasks running, and the latest of their expected ends (epoch ms). */
  running: number;
  end: number;
  /**
   * Its tasks still to start, the longest of their expected seconds (Infinity: one has none),
   * and when they were sent (epoch ms).
   */
  queued: number;
  longest: number;
  sent: number;
}

function dueTimes(
  state: CampaignState,
  plan: Plan,
  expected: (id: string) => number | undefined,
  nowMs: number,
  widest: number,
): Due {
  const due: number[] = [];
  const ends: number[] = [];
  const index = indexOf(state.tasks);
  const running = index.ids('running').size;
  /** The packed elements of the active tasks, by handle. */
  const elements = new Map<string, ElementPace>();
  const elementOf = (id: string): ElementPace | undefined => {
    const packed = packedElement(plan, state.tasks[id]!, id);
    if (packed === undefined) return undefined;
    let element = elements.get(packed.handle);
    if (element === undefined)
      elements.set(
        packed.handle,
        (element = {
          parallel: packed.packing.parallel,
          running: 0,
          end: -Infinity,
          queued: 0,
          longest: 0,
          sent: -Infinity,
        }),
      );
    return element;
  };
  /**
   * The jobs of their own (tasks not packed) queued and running; of the queued jobs, packed or
   * not, the longest expected time and when the newest was sent.
   */
  let soleQueued = 0;
  let soleRunning = 0;
  let longestQueued = 0;
  let newestQueued = -Infinity;
  /** The shortest expected time of a queued task (Infinity: none has one). */
  let soonestQueued = Infinity;
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
    const submitted = state.tasks[id]!.attempts.at(-1)?.submittedAt;
    const sent = submitted === undefined ? -Infinity : Date.parse(submitted);
    const element = elementOf(id);
    if (element === undefined) {
      soleQueued++;
      longestQueued = Math.max(longestQueued, seconds ?? Infinity);
      newestQueued = Math.max(newestQueued, sent);
    } else {
      element.queued++;
      element.longest = Math.max(element.longest, seconds ?? Infinity);
      element.sent = Math.max(element.sent, sent);
    }
    // Nothing known of its run time: it may start and end at once, so it is looked at as one
    // past its end since it was submitted.
    if (seconds === undefined && submitted) due.push(sent);
  }
  for (const id of index.ids('running')) {
    const element = elementOf(id);
    if (element === undefined) soleRunning++;
    else element.running++;
    const started = state.tasks[id]!.attempts.at(-1)?.startedAt;
    if (!started) continue;
    const seconds = expected(id);
    if (seconds !== undefined) {
      const end = Date.parse(started) + seconds * 1000;
      ends.push(end);
      if (element !== undefined) element.end = Math.max(element.end, end);
    }
    // Nothing known of its run time: looked at as one past its end since it started.
    else due.push(Date.parse(started));
  }
  // A job ends when its last task does: a packed element's tasks still to start run in turn
  // after its running ones (and an element none of whose tasks started is a queued job).
  let jobsRunning = soleRunning;
  let jobsQueued = soleQueued;
  let lastEnd = ends.reduce((a, b) => Math.max(a, b), nowMs);
  for (const element of elements.values()) {
    const rest = element.queued === 0 ? 0 : Math.ceil(element.queued / element.parallel) * element.longest * 1000;
    if (element.running > 0) {
      jobsRunning++;
      lastEnd = Math.max(lastEnd, element.queued === 0 ? element.end : Math.max(element.end, nowMs) + rest);
    } else {
      jobsQueued++;
      longestQueued = Math.max(longestQueued, rest / 1000);
      newestQueued = Math.max(newestQueued, element.sent);
    }
  }
  const jobs = { jobsRunning, newestQueued };
  // Nothing running: the first queued task to start cannot end before its expected time from now.
  if (running === 0 && soonestQueued < Infinity) due.push(nowMs + soonestQueued * 1000);
  // Room for waiting tasks comes with any end.
  if (waiting) return { times: due.concat(ends), ...jobs };
  if (ends.length < running || lastEnd === Infinity) return { times: due, ...jobs };
  // The last rounds, the queued jobs taking the running ones' places in waves: the campaign ends
  // when the last wave does (far off while many waves are left, so no look is spent). A pass
  // between two waves sees few running: the places are as many as were ever seen taken.
  if (jobsQueued === 0) due.push(lastEnd);
  else if (jobsRunning > 0 && longestQueued < Infinity)
    due.push(lastEnd + Math.ceil(jobsQueued / Math.max(jobsRunning, widest)) * longestQueued * 1000);
  return { times: due, ...jobs };
}

/** The limits for an executor kind (its traits); `maxSeconds` overrides the longest wait. */
export function pollLimits(executor: ExecutorKind, maxSeconds?: number): PollLimits {
  const { pollSeconds, costlyPolls } = EXECUTOR_KINDS[executor];
  const longest = maxSeconds ?? pollSeconds[1];
  return { costly: costlyPolls, minSeconds: Math.min(pollSeconds[0], longest), maxSeconds: longest };
}
