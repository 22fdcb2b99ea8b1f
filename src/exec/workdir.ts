/**
 * A campaign's workdir as every executor offers it to the controller: the tasks' outputs, check
 * commands run there, files written and read, results gathered, the campaign's generation, a
 * fresh start's set-aside and code snapshots. One implementation serves every kind, over the
 * kind's transport (exec/transport-workdir.ts); what a kind schedules is its `Executor`'s.
 */
import type { TaskSpec } from '../manifest/expand.js';
import type { OutputFacts } from '../judge/checklist.js';
import type { Attempt } from '../state/state.js';
import type { SetAsideResult } from '../render/set-aside.js';
import type { TakeFile } from '../report/results/gathering.js';
import type { CodeSnapshot } from './code-ship.js';
import type { CampaignGeneration } from './generation.js';

export interface Workdir {
  /** The workdir's absolute path (`~` is the home of the user the tasks run as). */
  path(): Promise<string>;
  /**
   * The task's output as this attempt left it (fresh = written after the attempt began, by the
   * clock of the machine it is on, from the time the kind counts from: exec/transport-workdir.ts).
   */
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
}

/**
 * The workdir as `pick` gives it at each use: for machines that share one workdir, each reaching
 * it through its own transport (a pool of ssh-gpu servers), the one that answers now.
 */
export function workdirThrough(pick: () => Workdir): Workdir {
  return {
    path: () => pick().path(),
    outputFacts: (task, attempt, withText) => pick().outputFacts(task, attempt, withText),
    runCheck: (task, command) => pick().runCheck(task, command),
    missing: (paths) => pick().missing(paths),
    writeFiles: (files) => pick().writeFiles(files),
    readFile: (path) => pick().readFile(path),
    gather: (paths, known, endsSuffice, take) => pick().gather(paths, known, endsSuffice, take),
    get generation() {
      return pick().generation;
    },
    setAside: (dest) => pick().setAside(dest),
    shipCode: (snapshot) => pick().shipCode(snapshot),
    removeCode: (keep) => pick().removeCode(keep),
  };
}
