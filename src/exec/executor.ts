/** What every executor (local, slurm, ssh-gpu) offers the controller. */
import type { TaskSpec } from '../manifest/expand.js';
import type { OutputFacts } from '../judge/checklist.js';
import type { Submission, TaskEvent } from '../state/events.js';
import type { Attempt } from '../state/state.js';
import type { SetAsideResult } from '../render/set-aside.js';
import type { TakeFile } from '../report/results/gathering.js';
import type { CodeSnapshot } from './code-ship.js';
import type { CampaignGeneration } from './generation.js';

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
  /** The task's output as this attempt left it (fresh = written after the attempt began, by the executor's clock). */
  outputFacts(task: TaskSpec, attempt: Attempt, withText: boolean): Promise<OutputFacts>;
  /** Runs a check command for a task in the workdir; its exit status and the end of its output. */
  runCheck(task: TaskSpec, command: string): Promise<{ exitCode: number; tail: string }>;
  /** Which of these workdir-relative paths do not exist. */
  missing(paths: readonly string[]): Promise<string[]>;
  /**
   * Writes these small files (workdir-relative paths), each whole or not at all (by rename), in
   * one operation; returns the paths it could not write.
   */
  writeFiles(files: readonly { path: string; text: string }[]): Promise<string[]>;
  /** A workdir-relative file's text; undefined when it does not exist. */
  readFile(path: string): Promise<string | undefined>;
  /**
   * Reads workdir-relative files in as few transfers as the link allows, passing each one found
   * to `take`: its stamp, and its text unless `known` (path → stamp) holds that stamp already.
   * `endsSuffice`: a large file's head and tail are enough (report/results/gathering.ts).
   */
  gather(
    paths: readonly string[],
    known: ReadonlyMap<string, string>,
    endsSuffice: boolean,
    take: TakeFile,
  ): Promise<void>;
  /** The campaign's generation as the workdir records it (exec/generation.ts). */
  readonly generation: CampaignGeneration;
  /**
   * Moves the campaign's attempts and claimed outputs to `dest` (workdir-relative), for a
   * campaign started over (render/set-aside.ts); throws a UserError when it cannot.
   */
  setAside(dest: string): Promise<SetAsideResult>;
  /**
   * Ships a code snapshot to `<workdir>/.campaign/code/<id>/` (exec/code-ship.ts) unless it is
   * there already; called before the first submission that runs it.
   */
  shipCode(snapshot: CodeSnapshot): Promise<void>;
  /** Removes the code snapshots in the workdir that `keep` does not name (`campaign gc`); returns their ids. */
  removeCode(keep: ReadonlySet<string>): Promise<string[]>;
  close(): Promise<void>;
}
