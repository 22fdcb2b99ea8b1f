/**
 * How the Slurm executor judges one attempt once a pass has decided by what (ask-plan.ts): by
 * the scheduler's record with what its markers add, by its markers and log where the scheduler
 * no longer knows it, or as absent from both. What it keeps from pass to pass (what each queued
 * task waits for, since when a handle is missing, which ends wait for their marker) is kept here.
 */
import type { TaskSpec } from '../../manifest/expand.js';
import { judgeShortfalls } from '../../judge/shortfall.js';
import type { TaskEvent } from '../../state/events.js';
import type { Attempt } from '../../state/state.js';
import type { ActiveAttempt } from '../executor.js';
import { classify, explainReason, neverStarts, shortfalls, type JobRecord } from './accounting.js';
import { VANISH_GRACE_MS } from './ask-plan.js';
import type { SlurmCommands } from './commands.js';
import { classifyByMarkers } from './marker-class.js';
import type { TaskMarkers } from './markers.js';
import type { Verification } from './verify.js';

/** An index pending with a reason Slurm never lifts, and the end it is given once taken out of the queue. */
export interface Unschedulable {
  active: ActiveAttempt;
  event: TaskEvent;
}

export class AttemptJudge {
  private readonly lastWaiting = new Map<string, string>();
  /** Handles missing from the queries, with when they were first missed. */
  private readonly missingSince = new Map<string, number>();
  /** Handles that ended in the queue before their end marker could be read: given one pass for it. */
  private readonly awaitingMarker = new Set<string>();

  constructor(
    private readonly opts: {
      commands: SlurmCommands;
      verification: Verification;
      /** The phases whose tasks run packed in array elements (plan/pack.ts). */
      packedPhases: ReadonlySet<string>;
    },
  ) {}

  /** Whether the attempt's phase packs its tasks: its handle is its element's, its markers its row's. */
  private packed(a: ActiveAttempt): boolean {
    return this.opts.packedPhases.has(a.task.phase);
  }

  /**
   * An attempt the scheduler has a record of: what that record, as the task's own (taskRecord)
   * and with what its markers add, says. An index Slurm will never start goes to `unschedulable`.
   */
  byRecord(
    active: ActiveAttempt,
    record: JobRecord,
    markers: TaskMarkers | undefined,
    now: string,
    unschedulable: Unschedulable[],
  ): Promise<TaskEvent[]> {
    const own = this.taskRecord(active, record);
    return this.judge(active, markers ? withMarker(own, markers) : own, now, unschedulable, markers?.warnedAt);
  }

  /**
   * The element's record as a packed task's: its start is the task's own (its start marker's),
   * not the element's; its end, state and exit are the element's, which the task shares only
   * where it was running when the element ended (a time limit, a node lost).
   */
  private taskRecord(a: ActiveAttempt, record: JobRecord): JobRecord {
    if (!this.packed(a)) return record;
    const own = { ...record };
    delete own.start;
    return own;
  }

  /** What the scheduler's record, made the task's own and with its markers' additions, says. */
  private async judge(
    active: ActiveAttempt,
    record: JobRecord,
    now: string,
    unschedulable: Unschedulable[],
    warnedAt?: string,
  ): Promise<TaskEvent[]> {
    const { verification } = this.opts;
    const { task, attempt, walltimeSeconds, partition, gpus } = active;
    const base = { task: task.id, attempt: attempt.n };
    const events: TaskEvent[] = [];
    this.missingSince.delete(attempt.handle!);
    const classified = classify(record);
    const startedAt = record.start ? new Date(record.start * 1000).toISOString() : now;
    // A packed task starts when its start marker says, not when its element does.
    if (!attempt.startedAt && (classified.active ? classified.running && !this.packed(active) : true)) {
      events.push({ type: 'started', ...base, at: startedAt, ...(record.node ? { node: record.node } : {}) });
    }
    if (
      !classified.active &&
      this.opts.commands.witness.exitFromMarker &&
      record.exitCode === undefined &&
      !this.awaitingMarker.has(record.handle)
    ) {
      this.awaitingMarker.add(record.handle);
      return events;
    }
    this.awaitingMarker.delete(record.handle);
    if (classified.active && !classified.running && neverStarts(record.reason)) {
      const reason = `Slurm will never start it: ${explainReason(record.reason)} (${record.reason}); cancelled`;
      unschedulable.push({ active, event: { type: 'finished', ...base, at: now, class: 'unschedulable', reason } });
      return events;
    }
    if (classified.active) {
      const waiting = classified.running ? undefined : explainReason(record.reason);
      if (waiting && this.lastWaiting.get(task.id) !== waiting)
        events.push({ type: 'queued', ...base, at: now, waiting });
      if (waiting) this.lastWaiting.set(task.id, waiting);
      return events;
    }
    this.lastWaiting.delete(task.id);
    const at = record.end ? new Date(record.end * 1000).toISOString() : now;
    const started = { ...attempt, startedAt: record.start ? startedAt : (attempt.startedAt ?? startedAt) };
    const verdict = await verification.verify(task, started, classified.cls, classified.reason, record.exitCode);
    const { cls, reason } = await verification.warned(task, started, warnedAt, at, record.exitCode, verdict);
    // Less than asked of a part of the definition aborts the attempt; of its cost only, is adapted to.
    const { end, adapted } = judgeShortfalls(
      { cls, ...(reason ? { reason } : {}) },
      shortfalls(record, {
        seconds: walltimeSeconds,
        ...(partition === undefined ? {} : { partition }),
        ...(gpus === undefined ? {} : { gpus }),
      }),
    );
    events.push({
      type: 'finished',
      ...base,
      at,
      class: end.cls,
      ...(record.exitCode === undefined ? {} : { exitCode: record.exitCode }),
      ...(end.reason ? { reason: end.reason } : {}),
      ...(record.node ? { node: record.node } : {}),
      ...(adapted.length > 0 ? { adapted } : {}),
      // Seen running first in the queue (which gives no start), its start was the time of that pass.
      ...(record.start ? { startedAt } : {}),
    });
    return events;
  }

  /**
   * A task that started (its start marker says so) and that the queue no longer lists: it
   * ended more than MinJobAge before this pass, and its markers and log say how.
   */
  async byMarkers(
    task: TaskSpec,
    attempt: Attempt,
    m: TaskMarkers,
    walltimeSeconds: number,
    now: string,
  ): Promise<TaskEvent[]> {
    const { verification } = this.opts;
    const base = { task: task.id, attempt: attempt.n };
    const startedAt = attempt.startedAt ?? m.startedAt!;
    const node = m.node ? { node: m.node } : {};
    const events: TaskEvent[] = [];
    if (!attempt.startedAt) events.push({ type: 'started', ...base, at: startedAt, ...node });
    // slurmstepd's out-of-memory line goes to a packed element's own log, not its tasks': a
    // packed task that ended well has nothing in its log to read.
    const wellPacked = this.opts.packedPhases.has(task.phase) && m.end?.code === 0 && m.end.signal === undefined;
    const v = classifyByMarkers(m, walltimeSeconds, now, wellPacked ? '' : await verification.readLog(task, attempt));
    const verdict = await verification.verify(task, { ...attempt, startedAt }, v.cls, v.reason, v.exitCode);
    const { cls, reason } = await verification.warned(
      task,
      { ...attempt, startedAt },
      m.warnedAt,
      v.at ?? now,
      v.exitCode,
      verdict,
    );
    events.push({
      type: 'finished',
      ...base,
      at: v.at ?? now,
      class: cls,
      ...(v.exitCode === undefined ? {} : { exitCode: v.exitCode }),
      ...(reason ? { reason } : {}),
      ...node,
      startedAt,
    });
    return events;
  }

  /** A task Slurm has no record of: still in accounting's delay, ended (queue-only), or vanished. */
  async absent(task: TaskSpec, attempt: Attempt, now: string): Promise<TaskEvent[]> {
    const base = { task: task.id, attempt: attempt.n };
    const handle = attempt.handle ?? task.id;
    const since = this.missingSince.get(handle) ?? Date.parse(now);
    this.missingSince.set(handle, since);
    if (Date.parse(now) - since < VANISH_GRACE_MS) return [];
    this.missingSince.delete(handle);
    if (!this.opts.commands.accountingOk && attempt.startedAt) {
      const out = await this.opts.verification.freshness(task, attempt);
      const ok = task.output === undefined || (out.exists && out.fresh);
      return [
        {
          type: 'finished',
          ...base,
          at: now,
          class: ok ? 'completed' : 'lost',
          ...(ok ? {} : { reason: 'left the queue without a fresh output (no accounting to say why)' }),
        },
      ];
    }
    return [
      { type: 'finished', ...base, at: now, class: 'lost', reason: 'vanished from Slurm (cancelled while pending?)' },
    ];
  }
}

/** The queue's record with what the task's markers add: its start, and its exit status once it ended. */
function withMarker(record: JobRecord, m: TaskMarkers): JobRecord {
  const epoch = (iso: string | undefined) => (iso === undefined ? undefined : Math.floor(Date.parse(iso) / 1000));
  const start = record.start ?? epoch(m.startedAt);
  const end = record.end ?? epoch(m.end?.at);
  return {
    ...record,
    ...(start === undefined ? {} : { start }),
    ...(end === undefined ? {} : { end }),
    ...(record.exitCode === undefined && m.end ? { exitCode: m.end.code } : {}),
    ...(record.node === undefined && m.node ? { node: m.node } : {}),
  };
}
