/**
 * The Slurm executor's passes over its active attempts, markers first: the markers of the
 * submissions a pass still waits on, read in one command, then the scheduler for what they
 * cannot say, as the plan of the pass decides (ask-plan.ts), and each attempt judged by what
 * came back. What a pass keeps for the next (when the queue was last asked, which ends
 * accounting has yet to record, what each queued task waits for) is kept here; withdrawing
 * queued attempts, which reads the queue and the markers the same way, is here too.
 */
import type { TaskSpec } from '../../manifest/expand.js';
import { judgeShortfalls } from '../../judge/shortfall.js';
import type { TaskEvent } from '../../state/events.js';
import type { Attempt } from '../../state/state.js';
import type { ActiveAttempt } from '../executor.js';
import type { RemoteWorkdir } from '../remote-workdir.js';
import { LinkError, type Transport } from '../transport/transport.js';
import {
  classify,
  explainReason,
  mergeRecords,
  neverStarts,
  shortfalls,
  withQueueEnds,
  type JobRecord,
} from './accounting.js';
import { firstAsks, laggingEnds, verdictOf, VANISH_GRACE_MS, type PassSeen, type SeenAttempt } from './ask-plan.js';
import type { SlurmCommands } from './commands.js';
import { arrayHandle, arrayJob, markerKey, submissionsOf } from './handles.js';
import { classifyByMarkers } from './marker-class.js';
import type { TaskMarkers } from './markers.js';
import type { Verification } from './verify.js';

/** An index pending with a reason Slurm never lifts, and the end it is given once taken out of the queue. */
interface Unschedulable {
  active: ActiveAttempt;
  event: TaskEvent;
}

export interface ObservationOptions {
  commands: SlurmCommands;
  transport: Transport;
  remote: RemoteWorkdir;
  verification: Verification;
  /** The phases whose tasks run packed in array elements (plan/pack.ts). */
  packedPhases: ReadonlySet<string>;
  /** Where the campaign's job directories are. */
  root: () => Promise<string>;
  now: () => string;
  warn: (message: string) => void;
}

export class Observation {
  private readonly lastWaiting = new Map<string, string>();
  /** Handles missing from the queries, with when they were first missed. */
  private readonly missingSince = new Map<string, number>();
  /** When the queue was last asked (epoch ms); a first pass counts as having asked. */
  private queueAskedAt: number | undefined;
  /** Ended tasks whose end accounting had not recorded when asked: asked again next pass. */
  private acctPending = new Set<string>();
  /** Handles that ended in the queue before their end marker could be read: given one pass for it. */
  private readonly awaitingMarker = new Set<string>();
  /** Tasks whose attempts the last pass found ended by their markers and left for accounting to judge. */
  private endedUnjudged = new Set<string>();

  constructor(private readonly opts: ObservationOptions) {}

  /** Tasks that have left their node and wait for accounting's word on how: their places are free. */
  get ended(): ReadonlySet<string> {
    return this.endedUnjudged;
  }

  /** Markers first: the markers of the submissions of `all`, then the scheduler for what they cannot say. */
  async observe(all: readonly ActiveAttempt[]): Promise<TaskEvent[]> {
    this.endedUnjudged = new Set();
    if (all.length === 0) return [];
    const root = await this.opts.root();
    const markers = await this.opts.commands.readMarkers(root, submissionsOf(root, all));
    try {
      return await this.pass(root, all, markers);
    } finally {
      this.opts.remote.forget();
    }
  }

  private async pass(
    root: string,
    all: readonly ActiveAttempt[],
    markers: ReadonlyMap<string, TaskMarkers>,
  ): Promise<TaskEvent[]> {
    const { commands } = this.opts;
    const now = this.opts.now();
    const nowMs = Date.parse(now);
    const markerOf = (a: ActiveAttempt): TaskMarkers | undefined => {
      const key = markerKey(a, this.packed(a));
      return key === undefined ? undefined : markers.get(key);
    };
    // The outputs of the attempts whose end markers are there, looked at together at the first
    // end this pass judges by its output.
    this.opts.remote.lookOutputs(all.filter((a) => markerOf(a)?.end).map((a) => a.task));
    // A packed task that ended on its own (no SIGTERM) is judged by its end marker as it ends:
    // its element, still running or ended COMPLETED, says nothing of it.
    const ownEnd = (a: ActiveAttempt): boolean => {
      const end = this.packed(a) ? markerOf(a)?.end : undefined;
      return end !== undefined && end.signal !== 'TERM';
    };
    const byMarkers: TaskEvent[] = [];
    for (const a of all.filter(ownEnd))
      byMarkers.push(...(await this.endedByMarkers(a.task, a.attempt, markerOf(a)!, a.walltimeSeconds, now)));
    const active = all.filter((a) => !ownEnd(a));
    if (active.length === 0) return byMarkers;
    const seen = (a: ActiveAttempt): SeenAttempt => ({
      handle: a.attempt.handle,
      job: arrayJob(a),
      startedAt: a.attempt.startedAt ?? markerOf(a)?.startedAt,
      walltimeSeconds: a.walltimeSeconds,
      end: markerOf(a)?.end,
    });
    const pass: PassSeen = {
      open: active.filter((a) => !markerOf(a)?.end).map(seen),
      ended: active.filter((a) => markerOf(a)?.end).map(seen),
      pending: this.acctPending,
      nowMs,
      queueAskedAt: (this.queueAskedAt ??= nowMs),
    };
    const witness = commands.witness;
    const asks = firstAsks(witness, pass);
    let records = new Map<string, JobRecord>();
    let acctOk = true;
    if (asks.queue || asks.jobs.size > 0) ({ records, acctOk } = await commands.ask(asks.queue, asks.jobs));
    if (asks.queue) this.queueAskedAt = nowMs;
    const lagging = laggingEnds(pass, records, asks, acctOk);
    if (lagging.size > 0) {
      try {
        const queued = (await commands.ask(true, new Set())).records.values();
        records = withQueueEnds(
          records,
          [...queued].filter((q) => lagging.has(q.handle)),
        );
      } catch (e) {
        // A queue that does not answer only leaves them to accounting, a pass later.
        if (!(e instanceof LinkError)) throw e;
      }
    }
    if (asks.queue) {
      const more = witness.afterQueue(pass.open, records, asks.jobs);
      if (more.size > 0) {
        const second = await commands.ask(false, more);
        records = mergeRecords([...second.records.values()], [...records.values()]);
        acctOk &&= second.acctOk;
        for (const job of more) asks.jobs.add(job);
      }
    }

    // A packed task with no end marker whose element the scheduler shows ended: its markers were
    // read before the scheduler was asked, and the element may have run it, and ended, in
    // between. Read again now, after its element's end, they are final: a task is never taken
    // for one its element did not start, nor judged by its element's end, on stale markers.
    const recheck = active.filter((a) => {
      const r = this.packed(a) && !markerOf(a)?.end && a.attempt.handle ? records.get(a.attempt.handle) : undefined;
      return r !== undefined && !classify(r).active;
    });
    const reread =
      recheck.length === 0
        ? new Map<string, TaskMarkers>()
        : await commands.readMarkers(root, submissionsOf(root, recheck));
    const rechecked = new Set(recheck);

    const events: TaskEvent[] = byMarkers;
    const unschedulable: Unschedulable[] = [];
    const pending = new Set<string>();
    for (const a of active) {
      const { task, attempt, walltimeSeconds } = a;
      const m = rechecked.has(a) ? reread.get(markerKey(a, this.packed(a))!) : markerOf(a);
      const handle = attempt.handle;
      const record = handle ? records.get(handle) : undefined;
      const answered = { markers: m, record, job: arrayJob(a), packed: this.packed(a), reread: rechecked.has(a) };
      const verdict = verdictOf(witness, answered, asks, acctOk, nowMs);
      if (verdict.by === 'record') {
        const own = this.taskRecord(a, record!);
        events.push(...(await this.judge(a, m ? withMarker(own, m) : own, now, unschedulable, m?.warnedAt)));
      } else if (verdict.by === 'markers')
        events.push(...(await this.endedByMarkers(task, attempt, m!, walltimeSeconds, now)));
      else if (verdict.by === 'absent') events.push(...(await this.absent(task, attempt, now)));
      else if (verdict.by === 'unstarted')
        events.push({
          type: 'unstarted',
          task: task.id,
          attempt: attempt.n,
          at: now,
          reason: `its element ${handle} ended ${record!.state} before this task's turn`,
        });
      else {
        if (verdict.askAgain) pending.add(handle!);
        // A packed task's place is its element's, which its other tasks may hold still.
        if (verdict.placeFree) this.endedUnjudged.add(task.id);
        events.push(...startedByMarker(a, m));
      }
    }
    this.acctPending = pending;
    return events.concat(await this.cancelPending(unschedulable));
  }

  /**
   * Held first (`scontrol hold`: slurmctld holds each index it finds still pending, and one
   * already running goes on unharmed), so none can start while the queue (`squeue -r -t all`)
   * and the start markers are read; then the indices seen pending are cancelled. `scancel
   * --state=PENDING` alone would not do: scancel filters by state on its own side, so an index
   * that starts in between is killed, and pending indices cancelled together leave the queue's
   * view as one record of the array job, without their indices.
   */
  async withdraw(queued: readonly ActiveAttempt[]): Promise<ActiveAttempt[]> {
    const { commands, transport } = this.opts;
    const handled = queued.filter((a) => arrayHandle(a) !== undefined);
    if (handled.length === 0) return [];
    // It fails for an index that has ended meanwhile; what the queue says next is what counts.
    await transport.run(['scontrol', 'hold', ...handled.map((a) => a.attempt.handle!)]);
    const { records } = await commands.ask(true, new Set());
    const root = await this.opts.root();
    const markers = await commands.readMarkers(root, submissionsOf(root, handled));
    const held = handled.filter(
      (a) =>
        records.get(a.attempt.handle!)?.state === 'PENDING' && !markers.get(markerKey(a, this.packed(a))!)?.startedAt,
    );
    if (held.length === 0) return [];
    const handles = held.map((a) => a.attempt.handle!);
    const r = await transport.run(['scancel', ...handles]);
    if (r.code === 0) return held;
    // Released again, so that nothing stays held for ever; the next pass decides anew.
    await transport.run(['scontrol', 'release', ...handles]);
    this.opts.warn(`scancel failed (${(r.stderr || r.stdout).trim().split('\n')[0]}); trying again next pass`);
    return [];
  }

  /** Whether the attempt's phase packs its tasks: its handle is its element's, its markers its row's. */
  private packed(a: ActiveAttempt): boolean {
    return this.opts.packedPhases.has(a.task.phase);
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

  /** An attempt the scheduler has a record of: what that record (with the task's markers) says. */
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
    const c = classify(record);
    const startedAt = record.start ? new Date(record.start * 1000).toISOString() : now;
    // A packed task starts when its start marker says, not when its element does.
    if (!attempt.startedAt && (c.active ? c.running && !this.packed(active) : true)) {
      events.push({ type: 'started', ...base, at: startedAt, ...(record.node ? { node: record.node } : {}) });
    }
    if (
      !c.active &&
      this.opts.commands.witness.exitFromMarker &&
      record.exitCode === undefined &&
      !this.awaitingMarker.has(record.handle)
    ) {
      this.awaitingMarker.add(record.handle);
      return events;
    }
    this.awaitingMarker.delete(record.handle);
    if (c.active && !c.running && neverStarts(record.reason)) {
      const reason = `Slurm will never start it: ${explainReason(record.reason)} (${record.reason}); cancelled`;
      unschedulable.push({ active, event: { type: 'finished', ...base, at: now, class: 'unschedulable', reason } });
      return events;
    }
    if (c.active) {
      const waiting = c.running ? undefined : explainReason(record.reason);
      if (waiting && this.lastWaiting.get(task.id) !== waiting)
        events.push({ type: 'queued', ...base, at: now, waiting });
      if (waiting) this.lastWaiting.set(task.id, waiting);
      return events;
    }
    this.lastWaiting.delete(task.id);
    const at = record.end ? new Date(record.end * 1000).toISOString() : now;
    const started = { ...attempt, startedAt: record.start ? startedAt : (attempt.startedAt ?? startedAt) };
    const verdict = await verification.verify(task, started, c.cls, c.reason, record.exitCode);
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
   * Takes indices that would wait for ever out of the queue and ends their attempts: those
   * withdrawn (see `withdraw`), so that one whose limit was lifted as it was judged, and which
   * started, runs on; where the cancel failed, they are looked at again next pass.
   */
  private async cancelPending(found: readonly Unschedulable[]): Promise<TaskEvent[]> {
    if (found.length === 0) return [];
    const withdrawn = new Set(await this.withdraw(found.map((f) => f.active)));
    return found.filter((f) => withdrawn.has(f.active)).map((f) => f.event);
  }

  /**
   * A task that started (its start marker says so) and that the queue no longer lists: it
   * ended more than MinJobAge before this pass, and its markers and log say how.
   */
  private async endedByMarkers(
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
  private async absent(task: TaskSpec, attempt: Attempt, now: string): Promise<TaskEvent[]> {
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

/** A task's start as its start marker tells it, where the state has none yet. */
function startedByMarker({ task, attempt }: ActiveAttempt, m: TaskMarkers | undefined): TaskEvent[] {
  if (attempt.startedAt || !m?.startedAt) return [];
  return [{ type: 'started', task: task.id, attempt: attempt.n, at: m.startedAt, ...(m.node ? { node: m.node } : {}) }];
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
