/**
 * The Slurm executor's passes over its active attempts, markers first: the markers of the
 * submissions a pass still waits on, read in one command, then the scheduler for what they
 * cannot say, as the plan of the pass decides (ask-plan.ts), and each attempt judged by what
 * came back (judge.ts). What a pass keeps for the next (when the queue was last asked, which
 * ends accounting has yet to record) is kept here; withdrawing queued attempts, which reads the
 * queue and the markers the same way, is here too.
 */
import type { TaskEvent } from '../../state/events.js';
import type { ActiveAttempt } from '../executor.js';
import type { TransportWorkdir } from '../transport-workdir.js';
import { LinkError, type Transport } from '../transport/transport.js';
import { classify, mergeRecords, withQueueEnds, type JobRecord } from './accounting.js';
import { firstAsks, laggingEnds, verdictOf, type PassSeen, type SeenAttempt } from './ask-plan.js';
import type { SlurmCommands } from './commands.js';
import { arrayHandle, arrayJob, markerKey, submissionsOf } from './handles.js';
import { AttemptJudge, type Unschedulable } from './judge.js';
import type { TaskMarkers } from './markers.js';
import type { Verification } from './verify.js';

export interface ObservationOptions {
  commands: SlurmCommands;
  transport: Transport;
  workdir: TransportWorkdir;
  verification: Verification;
  /** The phases whose tasks run packed in array elements (plan/pack.ts). */
  packedPhases: ReadonlySet<string>;
  /** Where the campaign's job directories are. */
  root: () => Promise<string>;
  now: () => string;
  warn: (message: string) => void;
}

export class Observation {
  /** When the queue was last asked (epoch ms); a first pass counts as having asked. */
  private queueAskedAt: number | undefined;
  /** Ended tasks whose end accounting had not recorded when asked: asked again next pass. */
  private acctPending = new Set<string>();
  /** Tasks whose attempts the last pass found ended by their markers and left for accounting to judge. */
  private endedUnjudged = new Set<string>();

  private readonly judgement: AttemptJudge;

  constructor(private readonly opts: ObservationOptions) {
    this.judgement = new AttemptJudge(opts);
  }

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
      this.opts.workdir.forget();
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
    this.opts.workdir.lookOutputs(all.filter((a) => markerOf(a)?.end).map((a) => a.task));
    // A packed task that ended on its own (no SIGTERM) is judged by its end marker as it ends:
    // its element, still running or ended COMPLETED, says nothing of it.
    const ownEnd = (a: ActiveAttempt): boolean => {
      const end = this.packed(a) ? markerOf(a)?.end : undefined;
      return end !== undefined && end.signal !== 'TERM';
    };
    const byMarkers: TaskEvent[] = [];
    for (const a of all.filter(ownEnd))
      byMarkers.push(...(await this.judgement.byMarkers(a.task, a.attempt, markerOf(a)!, a.walltimeSeconds, now)));
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
        events.push(...(await this.judgement.byRecord(a, record!, m, now, unschedulable)));
      } else if (verdict.by === 'markers')
        events.push(...(await this.judgement.byMarkers(task, attempt, m!, walltimeSeconds, now)));
      else if (verdict.by === 'absent') events.push(...(await this.judgement.absent(task, attempt, now)));
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
   * Takes indices that would wait for ever out of the queue and ends their attempts: those
   * withdrawn (see `withdraw`), so that one whose limit was lifted as it was judged, and which
   * started, runs on; where the cancel failed, they are looked at again next pass.
   */
  private async cancelPending(found: readonly Unschedulable[]): Promise<TaskEvent[]> {
    if (found.length === 0) return [];
    const withdrawn = new Set(await this.withdraw(found.map((f) => f.active)));
    return found.filter((f) => withdrawn.has(f.active)).map((f) => f.event);
  }
}

/** A task's start as its start marker tells it, where the state has none yet. */
function startedByMarker({ task, attempt }: ActiveAttempt, m: TaskMarkers | undefined): TaskEvent[] {
  if (attempt.startedAt || !m?.startedAt) return [];
  return [{ type: 'started', task: task.id, attempt: attempt.n, at: m.startedAt, ...(m.node ? { node: m.node } : {}) }];
}
