/**
 * What a pass of the Slurm executor asks the scheduler, and how it judges each attempt by the
 * answers: decided from the markers and the answers alone, without I/O (observe.ts asks and
 * carries the verdicts out).
 *
 * Markers first: every batch script records its start and its end (exit status, SIGTERM) in
 * files a pass reads in one command for the whole campaign, which costs the scheduler nothing.
 * The scheduler is asked only what the markers cannot say: the queue for the tasks with no end
 * marker (why they wait, whether one died without writing its end) every {@link
 * SCHEDULER_EVERY_MS} or as soon as one is past its walltime, and, for the ended ones, its
 * witness's word (an {@link EndWitness}): accounting where there is a shell, the queue on an
 * automation node.
 */
import type { TaskMarkers } from './markers.js';
import { classify, type JobRecord } from './accounting.js';

/**
 * How long a task must have been absent from every query before it counts as vanished: a task
 * can fall between the queue and accounting's first record for a few seconds.
 */
export const VANISH_GRACE_MS = 60_000;
/**
 * How often the scheduler is asked about what the markers cannot explain (the longest poll):
 * queued tasks, and running ones that may have died without an end marker.
 */
export const SCHEDULER_EVERY_MS = 30_000;

type MarkerEnd = NonNullable<TaskMarkers['end']>;

/** An active attempt as a pass's plan sees it. */
export interface SeenAttempt {
  /** Its array task's handle, and that task's array job, where it has them. */
  handle: string | undefined;
  job: string | undefined;
  /** When it started, by the state or by its start marker. */
  startedAt: string | undefined;
  walltimeSeconds: number;
  /** Its end marker, where there is one. */
  end: MarkerEnd | undefined;
}

/** What a pass sees before it asks anything. */
export interface PassSeen {
  /** Attempts with no end marker. */
  open: readonly SeenAttempt[];
  /** Attempts whose end marker is there, left to the scheduler's word. */
  ended: readonly SeenAttempt[];
  /** Handles whose end accounting had not recorded when last asked. */
  pending: ReadonlySet<string>;
  nowMs: number;
  /** When the queue was last asked (epoch ms). */
  queueAskedAt: number;
}

/** What a pass asks: the campaign's jobs in the queue (every state), and accounting's records of these array jobs. */
export interface Asks {
  queue: boolean;
  jobs: Set<string>;
}

/** What the answers say of one attempt. */
export interface Answered {
  /** Its markers, as last read. */
  markers: TaskMarkers | undefined;
  /** The scheduler's record of it, where it has one. */
  record: JobRecord | undefined;
  job: string | undefined;
  /** Its phase packs its tasks: its record is its element's. */
  packed: boolean;
  /** Its markers were read again after the scheduler showed its element ended. */
  reread: boolean;
}

/** How an attempt is judged this pass. */
export type Verdict =
  /** By the scheduler's record, with what its markers add. */
  | { by: 'record' }
  /** By its markers and its log: the scheduler no longer knows it. */
  | { by: 'markers' }
  /** Neither the scheduler nor a start marker knows it. */
  | { by: 'absent' }
  /** Its element ended before its turn (packed). */
  | { by: 'unstarted' }
  /**
   * Not yet: its start alone is reported (by its marker). `askAgain`: accounting is asked of it
   * next pass; `placeFree`: it has left its node, though it counts as active until judged.
   */
  | { by: 'later'; askAgain: boolean; placeFree: boolean };

/**
 * Whose word settles an ended task, and what follows from it: the one part of a pass that
 * differs between a login with a shell and an automation node (commands.ts).
 */
export interface EndWitness {
  /** What the pass asks of the scheduler for the attempts whose end marker is there. */
  asksOfEnded(pass: PassSeen): Asks;
  /** The jobs of open attempts the queue did not show active, for accounting to say how they ended. */
  afterQueue(
    open: readonly SeenAttempt[],
    records: ReadonlyMap<string, JobRecord>,
    asked: ReadonlySet<string>,
  ): Set<string>;
  /** How an attempt whose end marker is there is judged by the answers. */
  ended(a: Answered & { end: MarkerEnd }, asks: Asks, acctOk: boolean, nowMs: number): Verdict;
  /** Whether an ended record without an exit code waits a pass for the end marker that gives it. */
  readonly exitFromMarker: boolean;
}

/**
 * Accounting (sacct), with a shell: asked of the ended tasks' jobs at once for a failure or a
 * SIGTERM (a time limit, a preemption, a cancel: the scheduler's word, and accounting's exit
 * code), and for those that ended well in one batch when nothing else is left to wait for or
 * the oldest of them has waited {@link SCHEDULER_EVERY_MS} (accounting's record says what they
 * ran with, DESIGN rule 9).
 */
export const ACCOUNTING: EndWitness = {
  asksOfEnded({ open, ended, pending, nowMs }) {
    const again = [...open, ...ended].filter((a) => pending.has(a.handle ?? ''));
    const jobs = new Set(again.flatMap((a) => a.job ?? []));
    const oldest = Math.min(...ended.map((a) => Date.parse(a.end!.at)));
    const wantsWord = (end: MarkerEnd): boolean => end.signal === 'TERM' || end.code !== 0;
    if (
      ended.length > 0 &&
      (open.length === 0 ||
        again.length > 0 ||
        ended.some((a) => wantsWord(a.end!)) ||
        nowMs - oldest >= SCHEDULER_EVERY_MS)
    )
      for (const a of ended) if (a.job !== undefined) jobs.add(a.job);
    return { queue: false, jobs };
  },
  afterQueue(open, records, asked) {
    // Ended in the queue, or gone from it, without an end marker: accounting says how.
    const more = new Set<string>();
    for (const a of open) {
      const r = records.get(a.handle ?? '');
      if (a.job !== undefined && !asked.has(a.job) && (!r || !classify(r).active)) more.add(a.job);
    }
    return more;
  },
  ended({ record, job, packed, end }, asks, acctOk, nowMs) {
    const asked = job !== undefined && asks.jobs.has(job);
    // The queue's word alone is not accounting's: it waits for accounting's record.
    const settled = record !== undefined && !classify(record).active && !record.queueOnly;
    if (asked && settled) return { by: 'record' };
    if (!acctOk || nowMs - Date.parse(end.at) >= VANISH_GRACE_MS) return { by: 'markers' };
    // Ended well and held for the next batch of accounting, or not in accounting yet.
    return { by: 'later', askAgain: asked, placeFree: !packed };
  },
  exitFromMarker: false,
};

/**
 * The queue (`squeue -t all`, which keeps an ended job for MinJobAge), on an automation node
 * with no sacct: asked where the markers cannot tell how a task ended (a SIGTERM, a signal's
 * exit status); an ended task the queue has forgotten, or that needs no word, is judged by its
 * markers (marker-class.ts), so a task that left the queue before a pass saw it is never lost.
 */
export const QUEUE: EndWitness = {
  asksOfEnded({ ended }) {
    return { queue: ended.some((a) => a.end!.signal === 'TERM' || a.end!.code >= 128), jobs: new Set() };
  },
  afterQueue() {
    return new Set();
  },
  ended({ record, packed }, asks) {
    const settled = record !== undefined && !classify(record).active;
    if (asks.queue && settled) return { by: 'record' };
    if (!asks.queue || !record) return { by: 'markers' };
    // Seen still running or completing: the queue's word comes with the next pass that asks it.
    return { by: 'later', askAgain: false, placeFree: !packed };
  },
  // The exit code is the end marker's (none yet: no exit code), which a shared filesystem may show a moment late.
  exitFromMarker: true,
};

/** What a pass asks first: the queue when an open attempt is due, and what the witness wants of the ended ones. */
export function firstAsks(witness: EndWitness, pass: PassSeen): Asks {
  const { open, nowMs, queueAskedAt } = pass;
  const overdue = (a: SeenAttempt): boolean => {
    const limit = a.startedAt === undefined ? Infinity : Date.parse(a.startedAt) + a.walltimeSeconds * 1000;
    return limit <= nowMs && queueAskedAt < limit;
  };
  const due = open.length > 0 && (nowMs - queueAskedAt >= SCHEDULER_EVERY_MS || open.some(overdue));
  const ofEnded = witness.asksOfEnded(pass);
  return { queue: due || ofEnded.queue, jobs: ofEnded.jobs };
}

/**
 * Every task has ended by its markers, but slurmdbd has not recorded the last ends yet (it lags
 * slurmctld by one to a few seconds): the handles to settle by the queue's word on those ends,
 * with what accounting has of their runs, rather than a pass later, so that the campaign's end
 * is not put off. None where accounting was not asked of them all (never, without accounting).
 */
export function laggingEnds(
  pass: PassSeen,
  records: ReadonlyMap<string, JobRecord>,
  asks: Asks,
  acctOk: boolean,
): Set<string> {
  const unsettled = (a: SeenAttempt): boolean => {
    const r = records.get(a.handle ?? '');
    return !r || classify(r).active || r.queueOnly === true;
  };
  const lagging = pass.open.length === 0 && acctOk ? pass.ended.filter(unsettled) : [];
  if (lagging.length === 0 || !lagging.every((a) => a.job !== undefined && asks.jobs.has(a.job))) return new Set();
  return new Set(lagging.flatMap((a) => a.handle ?? []));
}

/** How an attempt (not a packed task that ended on its own) is judged by the answers of the pass. */
export function verdictOf(witness: EndWitness, a: Answered, asks: Asks, acctOk: boolean, nowMs: number): Verdict {
  const { markers: m, record, job } = a;
  if (a.reread && m?.end)
    // It ended after its markers were first read: by its end marker, as a packed task that
    // ends on its own is judged; one SIGTERM ended waits for the next pass, which asks the scheduler.
    return m.end.signal !== 'TERM' ? { by: 'markers' } : { by: 'later', askAgain: false, placeFree: false };
  if (m?.end) return witness.ended({ ...a, end: m.end }, asks, acctOk, nowMs);
  const asked = asks.queue || (job !== undefined && asks.jobs.has(job));
  const over = record !== undefined && !classify(record).active;
  if (!asked || (!asks.queue && !over)) return { by: 'later', askAgain: asked, placeFree: false };
  // Its element ended (a time limit, a cancel, a node lost) before its turn: it never ran.
  if (a.packed && !m?.startedAt && over) return { by: 'unstarted' };
  if (!record) return m?.startedAt ? { by: 'markers' } : { by: 'absent' };
  // Ended in the queue but not yet in accounting: accounting is asked again next pass (never
  // without accounting, whose answers say it did not answer).
  if (over && record.queueOnly && acctOk) return { by: 'later', askAgain: true, placeFree: false };
  return { by: 'record' };
}
