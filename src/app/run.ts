/**
 * Running a campaign, for both front ends (`campaign run` and the Action's `advance`): prepare
 * (the lock, the stored state, the executor, the controller, reconciliation, the changed
 * definitions said, the run started), drive (app/drive.ts) and finish (parking, then the front
 * end's own end with the executor still open). What differs between them is an option: the
 * clock and deadline, a job's scopes and parking, how the run is reported.
 */
import { join } from 'node:path';
import { UserError } from '../errors.js';
import { CampaignController, loadState } from '../exec/controller.js';
import type { Executor } from '../exec/executor.js';
import { FileStateStore } from '../exec/store/file-store.js';
import type { StateLock } from '../exec/store/lock.js';
import { definitionChangeLine, definitionChanges, keptTasks } from '../decide/definition-changes.js';
import { parkedAfter } from '../decide/park.js';
import { PollPacer, pollLimits } from '../decide/poll.js';
import { scopeAtRest, startScopedRun, type Scope } from '../decide/scope.js';
import { startRun } from '../decide/start.js';
import { diskFullTasks } from '../decide/step.js';
import type { Plan } from '../plan/plan.js';
import { asideDir } from '../render/set-aside.js';
import { emptyState, type CampaignState } from '../state/state.js';
import { driveCampaign, type Clock, type DriveParts, type Driven } from './drive.js';
import { openExecutor, type OpenOptions } from './executors.js';
import type { Campaign } from './load.js';
import type { SshSecrets } from './transport-for.js';

/**
 * One job of a generated workflow: the scopes it drives (a resume drives those that parked),
 * and, with `park`, the seconds with nothing due after which it ends before its scopes come to
 * rest, leaving them parked for a scheduled resume.
 */
export interface RunJob {
  scopes: Scope[];
  resume: boolean;
  park?: number;
}

export interface RunOptions {
  /** The command holding the campaign's lock, as a command it refuses is told. */
  holder: string;
  ssh: SshSecrets;
  clock: Clock;
  /** No pass starts after this moment on the clock (the Action's budget); none when absent. */
  deadline?: number;
  /** When aborted, the run stops after the pass under way and finishes. */
  signal?: AbortSignal;
  /** The longest wait between passes, in seconds, below the executor's own. */
  maxPoll?: number;
  /** The git commit of the manifest: recorded with each attempt sent. */
  commit?: string;
  retryFailed: boolean;
  keepChanged: boolean;
  /** Start over: the earlier state, attempts and outputs moved aside (startFresh). */
  fresh?: boolean;
  /** A job of a generated workflow; the whole campaign when absent. */
  job?: RunJob;
  /** How a failure that blocks the campaign is told to run it again (reconcile's fix). */
  retryFix: string;
  /** What the run tells before it submits (which tasks a changed definition runs again). */
  note(message: string): void;
  warn(message: string): void;
  /** Given the lock once it is held: a front end that leaves at once releases it first. */
  onLock?(lock: StateLock): void;
  /** Once the run is started, before its first pass: the plan fitted to the cluster, and the state. */
  onStart?(plan: Plan, state: CampaignState): void;
  onPass?(state: CampaignState): void;
  /** Opens the executor and fits the plan to its cluster; that of the manifest's kind (openExecutor) when absent. */
  open?: (c: Campaign, opts: OpenOptions) => Promise<{ executor: Executor; plan: Plan }>;
}

/** How a run ended, for its front end to finish with: the lock is still held, the executor still open. */
export interface RunEnd {
  plan: Plan;
  /** The state as saved, parked scopes included. */
  state: CampaignState;
  driven: Driven;
  /** A resumed job's scopes came to rest: the workflow runs again for the next stage (decide/park.ts). */
  continues: boolean;
  /** The tasks that found the disk full, which hold back every submission until there is room. */
  diskFull: string[];
  executor: Executor;
}

/**
 * Runs the campaign `c` until it is at rest, the deadline passes, the signal stops it or its job
 * parks, then returns what `finish` makes of the end, before the executor is closed and the
 * lock released.
 */
export async function runCampaign<T>(c: Campaign, o: RunOptions, finish: (end: RunEnd) => Promise<T>): Promise<T> {
  const store = new FileStateStore(c.stateDir, { onWarning: o.warn });
  const lock = await store.acquire(o.holder);
  o.onLock?.(lock);
  let executor: Executor | undefined;
  try {
    const loaded = await loadState(store, c.manifest.campaign, new Date().toISOString());
    const open = o.open ?? openExecutor;
    const opened = await open(c, { ssh: o.ssh, since: () => loaded.created, warn: o.warn, checkCluster: true });
    executor = opened.executor;
    const { plan } = opened;
    const run = await prepare(c, o, store, executor, plan, loaded);
    const driven = await drive(c, o, store, plan, run);
    let ended = driven.state;
    let continues = false;
    if (o.job !== undefined) {
      ({ state: ended, continues } = parkedAfter(plan, driven, o.job.scopes, o.job.resume));
      if (ended !== driven.state) await store.save(ended);
    }
    return await finish({ plan, state: ended, driven, continues, diskFull: diskFullTasks(ended), executor });
  } finally {
    await lock.release();
    await executor?.close();
  }
}

/** A run prepared: its controller, the state its first pass starts from, and the state as loaded. */
interface Prepared {
  controller: CampaignController;
  state: CampaignState;
  loaded: CampaignState;
}

/**
 * The run started from the stored state: set aside first for a fresh start, reconciled with what
 * the cluster holds, its changed definitions said, its failed tasks retried where asked, and the
 * provenance of the results kept by choice recorded.
 */
async function prepare(
  c: Campaign,
  o: RunOptions,
  store: FileStateStore,
  executor: Executor,
  plan: Plan,
  stored: CampaignState,
): Promise<Prepared> {
  const loaded = o.fresh ? await startFresh(c, store, executor, stored, o.note) : stored;
  const scopes = o.job?.scopes;
  const controller = new CampaignController({
    manifest: c.manifest,
    plan,
    executor,
    store,
    warn: o.warn,
    ...(scopes === undefined ? {} : { scope: scopes }),
    ...(o.commit === undefined ? {} : { commit: o.commit }),
    ...(c.code === undefined ? {} : { code: c.code }),
  });
  const reconciled = await controller.reconcile(loaded, o.retryFix);
  reconciled.warnings.forEach(o.warn);
  // Said before anything is submitted: which tasks a changed definition runs again (or keeps).
  const changes = definitionChanges(reconciled.state, plan);
  for (const change of changes) o.note(definitionChangeLine(change, o.keepChanged));
  const start = { retryFailed: o.retryFailed, keepChanged: o.keepChanged, now: new Date(o.clock.now()).toISOString() };
  const state =
    scopes === undefined
      ? startRun(reconciled.state, plan, start)
      : startScopedRun(reconciled.state, plan, scopes, start);
  if (o.keepChanged) await controller.recordProvenance(state, keptTasks(changes));
  o.onStart?.(plan, state);
  return { controller, state, loaded };
}

/** The passes, paced by the executor's limits, until the run is at rest, stopped or parked. */
async function drive(c: Campaign, o: RunOptions, store: FileStateStore, plan: Plan, run: Prepared): Promise<Driven> {
  const pacer = new PollPacer(plan, pollLimits(c.manifest.cluster.executor, o.maxPoll));
  const job = o.job;
  return driveCampaign(run.state, {
    controller: run.controller,
    store,
    pacer,
    clock: o.clock,
    ...(o.deadline === undefined ? {} : { deadline: o.deadline }),
    ...(o.signal === undefined ? {} : { signal: o.signal }),
    ...(o.onPass === undefined ? {} : { onPass: o.onPass }),
    ...(job?.park === undefined ? {} : { park: parking(job, job.park, plan, pacer, run.loaded, o.clock) }),
  });
}

/**
 * When `job` may park: once nothing is due for `seconds` (or nothing changed for that long,
 * counted for a resume from when its scopes parked), while tasks of its scopes are still out.
 */
function parking(
  job: RunJob,
  seconds: number,
  plan: Plan,
  pacer: PollPacer,
  loaded: CampaignState,
  clock: Clock,
): NonNullable<DriveParts['park']> {
  return {
    seconds,
    since: job.resume && loaded.parked ? Date.parse(loaded.parked.since) : clock.now(),
    quiet: (state, now) => pacer.quietSeconds(state, now),
    out: (state) => !scopeAtRest(plan, state, [], job.scopes),
  };
}

/**
 * `run --fresh`: the campaign's earlier generation moved aside (its state in the state
 * directory's `previous/`, its attempts and claimed outputs in the workdir's
 * `.campaign/aside/`), never deleted, and a new state in its place. Refused while tasks run.
 */
async function startFresh(
  c: Campaign,
  store: FileStateStore,
  executor: Executor,
  loaded: CampaignState,
  note: (message: string) => void,
): Promise<CampaignState> {
  const running = Object.entries(loaded.tasks).filter(([, t]) => t.status === 'submitted' || t.status === 'running');
  if (running.length > 0) {
    throw new UserError({
      message: `${running.length} task${running.length === 1 ? ' is' : 's are'} still running (${running[0]![0]}${running.length > 1 ? ', …' : ''}): a fresh start would leave them unwatched`,
      fix: `stop them with \`campaign cancel ${c.file}\`, or let them end, then run --fresh again`,
    });
  }
  const now = new Date().toISOString();
  const stamp = now.replace(/[:.]/g, '-');
  const aside = await executor.workdir.setAside(asideDir(c.manifest.campaign, stamp));
  const moved = await store.setAside(join(c.stateDir, 'previous', stamp));
  const parts = [
    moved.length > 0 ? `the earlier state is in ${join(c.stateDir, 'previous', stamp)}` : 'there was no earlier state',
    `${aside.outputs} output${aside.outputs === 1 ? '' : 's'}${aside.attempts ? ' and the attempts' : ''} moved to ${aside.dest} in the workdir`,
  ];
  // The new generation is recorded for every controller: one on the old one stops, with the reason.
  await executor.workdir.generation.replace(now);
  note(`started afresh: ${parts.join('; ')}; nothing was deleted, and nothing earlier counts for this run`);
  return { ...emptyState(c.manifest.campaign, now), generation: now };
}
