/**
 * What every executor (local, slurm, ssh-gpu) offers the controller: what its kind schedules
 * (capacity, submission, observation, cancel, withdrawal, logs), and beside it the campaign's
 * workdir, which every kind shares (exec/workdir.ts).
 */
import type { TaskSpec } from '../manifest/expand.js';
import type { Submission, TaskEvent } from '../state/events.js';
import type { Attempt } from '../state/state.js';
import { UserError } from '../errors.js';
import type { Workdir } from './workdir.js';

export interface ActiveAttempt {
  task: TaskSpec;
  attempt: Attempt;
  /** The walltime the attempt runs under, in seconds. */
  walltimeSeconds: number;
  /** The partition it was submitted to, where the plan chose one (to tell when it ran elsewhere). */
  partition?: string;
  /** The GPUs it asked for (the plan's count): granted fewer, it is not the task's run (plan/definition.ts). */
  gpus?: number;
}

export interface Executor {
  /** How many more jobs (a task each, or a packed array element) may start now, given how many are active. */
  capacity(active: number): number;
  /**
   * Tasks the last observation found ended but left to be judged later (a scheduler's
   * accounting lags): they count as active, yet their places are free. Absent where every end
   * is judged when it is seen.
   */
  ended?(): ReadonlySet<string>;
  /**
   * Starts the attempts. Idempotent: an attempt already launched (by a pass that crashed
   * before saving) is found and reported, never launched twice.
   */
  submit(submissions: readonly Submission[]): Promise<TaskEvent[]>;
  /** Reports starts and ends of active attempts, with the class of each end. */
  observe(active: readonly ActiveAttempt[]): Promise<TaskEvent[]>;
  /**
   * Stops the attempts, each one's whole process group (SIGTERM, then SIGKILL); their ends, as
   * `cancelled`, come from later observations. Absent where the executor cannot cancel.
   */
  cancel?(active: readonly ActiveAttempt[]): Promise<void>;
  /**
   * Takes attempts still waiting in a scheduler's queue out of it, leaving alone any that
   * started meanwhile (they go on, observed as usual), and returns those it took out: they
   * never started, and their ends are the caller's to record. Absent where nothing waits in a
   * queue of the executor's.
   */
  withdraw?(queued: readonly ActiveAttempt[]): Promise<ActiveAttempt[]>;
  readLog(task: TaskSpec, attempt: Attempt): Promise<string>;
  /** Where the attempt's log is (on the machine it ran on), for messages; undefined where it has none yet. */
  logPath(task: TaskSpec, attempt: Attempt): Promise<string | undefined>;
  /** The campaign's workdir, the same implementation for every kind over its transport (exec/workdir.ts). */
  readonly workdir: Workdir;
  close(): Promise<void>;
}

/** The error of a cancel script that failed: the tasks may still run, and the user can stop them. */
export function cancelFailed(code: number, stderr: string): UserError {
  return new UserError({
    message: `cancelling failed (exit ${code}): ${stderr.trim()}`,
    fix: "stop the tasks by hand: each attempt's directory holds its process group in pgid (kill -- -PGID)",
  });
}
