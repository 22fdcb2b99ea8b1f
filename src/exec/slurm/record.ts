/**
 * The record of what the campaign has sent: the attempts the cluster has a job for (from the
 * task tables of the campaign's jobs, and from the ledger of submissions other controllers
 * wrote), and the campaign's jobs by name. It makes submission idempotent: an attempt on record
 * is reported and never sent a second time, however the attempts are grouped now, and a job
 * found by its name is not submitted again. The command strategies (commands.ts) read the
 * cluster; this builds and keeps what they found.
 */
import { elementOf, parseElementLine } from '../../render/pack-driver.js';
import { rowAttempt } from '../../render/sbatch.js';
import type { LedgerRow } from '../../render/submit-once.js';
import type { Submission, TaskEvent } from '../../state/events.js';
import type { JobRecord } from './accounting.js';

/** Where an attempt went: its array task's handle and its log. */
export interface Placement {
  handle: string;
  log: string;
}

/** One submission's task table (or the script that carries it), line by line. */
export interface TableSection {
  key: string;
  lines: string[];
}

/** What a read of the cluster found of the campaign's earlier submissions. */
export interface RecordRead {
  /** Submission key → array job id, for every job the scheduler knows. */
  jobs: Map<string, string>;
  sections: TableSection[];
  /** The ledger's size when it was read: a later submission reads past it (with a shell). */
  ledgerFrom?: number;
  /** The oldest submission's time, epoch seconds (where accounting said). */
  earliest?: number;
}

/**
 * An attempt on record: its task, number and definition. An attempt of the same number under
 * another definition (a state lost before the manifest changed) is another attempt.
 */
const attemptKey = (s: { task: { id: string; definition?: string | undefined }; attempt: number }): string =>
  `${s.task.id}\u0000${s.attempt}\u0000${s.task.definition ?? ''}`;

export class SubmissionRecord {
  /**
   * Every attempt the cluster has a job for (task and attempt → where it went), read before the
   * first submission: a state rebuilt from nothing, or older than the cluster, then never
   * sends an attempt a second time.
   */
  private attempts: Map<string, Placement> | undefined;
  /** The campaign's jobs as last seen: name → array job id (to find a submission again). */
  private jobs: Map<string, string> | undefined;
  /** How far this controller has read the ledger of submissions (render/submit-once.ts), in bytes. */
  ledgerFrom = 0;
  /** The oldest submission on record (epoch seconds): accounting looks back at least that far. */
  earliest = Infinity;

  constructor(private readonly prefix: string) {}

  /** Whether the attempts on record have been read since the last submission whose answer was lost. */
  get attemptsRead(): boolean {
    return this.attempts !== undefined;
  }

  /** Whether the campaign's jobs by name are known (from the record, or from the queue). */
  get jobsKnown(): boolean {
    return this.jobs !== undefined;
  }

  /**
   * On record: the attempts of the task tables `read` found under `root`, with the jobs they
   * went to. Where it could not be read (undefined), no attempt is on record, and the jobs by
   * name are left to the queue.
   */
  fill(root: string, read: RecordRead | undefined): void {
    this.attempts = new Map();
    if (read === undefined) return;
    if (read.ledgerFrom !== undefined) this.ledgerFrom = read.ledgerFrom;
    if (read.earliest !== undefined) this.earliest = Math.min(this.earliest, read.earliest);
    // Every job sbatch was given has its table: the jobs found are all the campaign sent.
    this.jobs = new Map([...read.jobs].map(([key, id]) => [`${this.prefix}${key}`, id]));
    for (const { key, lines } of read.sections) {
      const elements = new Map<number, number>();
      for (const line of lines)
        if (!readElement(elements, line)) this.putRow(root, key, read.jobs.get(key), line, elements);
    }
  }

  /** Starts the jobs by name afresh, for the queue to fill (the record could not be read). */
  knowNoJobs(): void {
    this.jobs = new Map();
  }

  /** The job of the submission named `name`, where one is known. */
  jobNamed(name: string): string | undefined {
    return this.jobs?.get(name);
  }

  /** Where the attempt went, where it is on record. */
  find(s: Submission): Placement | undefined {
    return this.attempts?.get(attemptKey(s));
  }

  /** Whether any of these attempts is on record. */
  holdsAny(group: readonly Submission[]): boolean {
    return group.some((s) => this.attempts?.has(attemptKey(s)));
  }

  /** The attempts of `group` as sent in array job `jobId`, their events (submission `dir`). */
  sent(group: readonly Submission[], name: string, jobId: string, dir: string, at: string): TaskEvent[] {
    this.jobs?.set(name, jobId);
    const packing = group[0]!.array.packing;
    return group.map((s, i) => {
      // A packed attempt's handle is its element's: what sacct, squeue and scancel know.
      const slot = packing ? elementOf(i, packing.tasks) : s.index;
      const where = { handle: `${jobId}_${slot}`, log: `${dir}/logs/${s.index}.log` };
      this.attempts?.set(attemptKey(s), where);
      return submittedEvent(s, at, where);
    });
  }

  /** Attempts another controller sent, read from the ledger: on record, as a rebuilt state finds them. */
  adopt(rows: readonly LedgerRow[], root: string): void {
    for (const row of rows) {
      this.attempts?.set(attemptKey({ task: { id: row.task, definition: row.definition }, attempt: row.attempt }), {
        handle: `${row.jobId}_${row.element ?? row.index}`,
        log: `${root}/${row.key}/logs/${row.index}.log`,
      });
      this.jobs?.set(`${this.prefix}${row.key}`, row.jobId);
    }
  }

  /** Jobs the queue showed, kept by name (to find a submission again). */
  remember(queued: readonly JobRecord[]): void {
    for (const q of queued) this.jobs?.set(q.name, q.handle.split('_')[0]!);
  }

  /** The job may be queued without our having heard its id: both are read again before anything more is sent. */
  forget(): void {
    this.jobs = undefined;
    this.attempts = undefined;
  }

  /** The attempt a row of submission `key`'s task table runs, on record with the job it went to (if it went to one). */
  private putRow(
    root: string,
    key: string,
    jobId: string | undefined,
    line: string,
    elements: ReadonlyMap<number, number>,
  ): void {
    const row = jobId === undefined ? undefined : rowAttempt(line);
    if (!row) return;
    this.attempts?.set(attemptKey({ task: { id: row.task, definition: row.definition }, attempt: row.attempt }), {
      handle: `${jobId}_${elements.get(row.index) ?? row.index}`,
      log: `${root}/${key}/logs/${row.index}.log`,
    });
  }
}

/** The `submitted` event of an attempt that went to `where`. */
export function submittedEvent(s: Submission, at: string, where: Placement): TaskEvent {
  return {
    type: 'submitted',
    task: s.task.id,
    attempt: s.attempt,
    at,
    handle: where.handle,
    log: where.log,
    ...(s.memBytes === undefined ? {} : { memBytes: s.memBytes }),
  };
}

/** Where `line` is a task table's element line, its rows put in `elements` (row → element); false otherwise. */
function readElement(elements: Map<number, number>, line: string): boolean {
  const e = parseElementLine(line);
  if (!e) return false;
  for (const row of e.rows) elements.set(row, e.element);
  return true;
}
