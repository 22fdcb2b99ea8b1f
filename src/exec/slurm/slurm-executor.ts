/**
 * The `slurm` executor: one `sbatch` per array chunk, over a transport (SSH to a login node,
 * or this machine). Jobs are named `<campaign>~<key>`, the key derived from what is submitted,
 * so a pass that crashed after `sbatch` finds its job on the next pass instead of submitting
 * again.
 *
 * Markers first: every batch script records its start and its end (exit status, SIGTERM) in
 * files a pass reads in one command for the whole campaign, which costs the scheduler nothing.
 * The scheduler is asked only what the markers cannot say: `squeue` for the tasks with no end
 * marker (why they wait, whether one died without writing its end) every {@link
 * SCHEDULER_EVERY_MS} or as soon as one is past its walltime, and `sacct -j` for the ended
 * ones, at once for a failure or a SIGTERM (a time limit, a preemption, a cancel: the
 * scheduler's word), for those that ended well in one batch when nothing else is left to wait
 * for or the oldest of them has waited that long (accounting's record says what they ran with,
 * DESIGN rule 9). When nothing else is left and accounting has not recorded the last ends yet,
 * one `squeue` (slurmctld knows an end at once) settles them with accounting's record of their
 * runs.
 *
 * Restricted (`cluster.restricted`, an automation node): every command is one allowed command
 * of plain words (scontrol, squeue, sbatch, scancel, cat, id) and files go by SFTP. There is
 * no sacct: an ended task is judged by its markers (marker-class.ts), and by the queue
 * (`squeue -t all`, which keeps an ended job for MinJobAge) where they cannot tell (a SIGTERM,
 * a signal's exit status, no end marker), so a task that left the queue before a pass saw it
 * is never lost.
 */
import { UserError } from '../../errors.js';
import type { TaskSpec } from '../../manifest/expand.js';
import { restriction, type Manifest } from '../../manifest/schema.js';
import { formatDuration, parseDuration } from '../../manifest/units.js';
import { EXECUTOR_KINDS } from '../../plan/executor-kinds.js';
import type { Plan } from '../../plan/plan.js';
import { elementsOf } from '../../plan/pack.js';
import type { OutputFacts } from '../../judge/checklist.js';
import { submissionGroup, type Submission, type TaskEvent } from '../../state/events.js';
import type { Attempt, FailureClass } from '../../state/state.js';
import type { CodeSnapshot } from '../code-ship.js';
import { elementOf, parseElementLine } from '../../render/pack-driver.js';
import {
  rowAttempt,
  slurmRoot,
  submissionFiles,
  submissionKey,
  TABLE_HEADER,
  type SbatchFiles,
} from '../../render/sbatch.js';
import { shellQuote } from '../../render/shell.js';
import { GATE_EXIT, GATE_LINE } from '../../render/task-script.js';
import { afterWarning, diskFull, recordsVerdict } from '../../judge/attempt-end.js';
import { gateShortfall, judgeShortfalls } from '../../judge/shortfall.js';
import type { SetAsideResult } from '../../render/set-aside.js';
import type { ActiveAttempt, Executor } from '../executor.js';
import { RemoteWorkdir, type OutputFreshness } from '../remote-workdir.js';
import { GenerationRecord } from '../generation.js';
import { generationPath } from '../../decide/generation.js';
import { attemptLines, LEDGER, parseSubmitOnce, renderSubmitOnce, type LedgerRow } from '../../render/submit-once.js';
import {
  parseTestOnly,
  QUEUE_LIMIT_OPTION,
  renderTestOnly,
  testedIndices,
  testOnlyRefusals,
  type Refusal,
  type TestedArray,
} from './test-only.js';
import { LinkError, type Transport } from '../transport/transport.js';
import { classifyByMarkers, killedForMemory } from './marker-class.js';
import {
  effectiveLimit,
  isSubmitLimit,
  othersQueued,
  queueCount,
  queueLines,
  roomUnder,
  siteLimit,
  SUBMIT_LIMIT_COMMAND,
  type Charge,
  type SubmitLimit,
} from './submit-limit.js';
import { markersGlob, parseMarkers, type TaskMarkers } from './markers.js';
import type { TakeFile } from '../../report/results/gathering.js';
import {
  classify,
  explainReason,
  mergeRecords,
  neverStarts,
  parseSacct,
  parseSqueue,
  SACCT_FIELDS,
  SQUEUE_FORMAT,
  shortfalls,
  withQueueEnds,
  type JobRecord,
} from './accounting.js';

/**
 * How long a task must have been absent from every query before it counts as vanished: a task
 * can fall between the queue and accounting's first record for a few seconds.
 */
const VANISH_GRACE_MS = 60_000;
/**
 * How often the scheduler is asked about what the markers cannot explain (the longest poll):
 * queued tasks, and running ones that may have died without an end marker.
 */
const SCHEDULER_EVERY_MS = 30_000;
/** Submissions whose markers one `cat` reads: each is a pattern the node expands into up to 2 × MaxArraySize paths. */
const MARKER_GLOBS_PER_COMMAND = 16;
const LOG_LIMIT = 16 * 1024 * 1024;
const SEPARATOR = '--campaign-sacct--';
/**
 * How far back the record of earlier submissions reaches: past any workflow run (35 days) and
 * the default life of a state artifact (90 days), so a state rebuilt from nothing finds them.
 */
const RECORD_LOOKBACK = 'now-100days';

type EndClass = 'completed' | FailureClass;

/** An index pending with a reason Slurm never lifts, and the end it is given once taken out of the queue. */
interface Unschedulable {
  active: ActiveAttempt;
  event: TaskEvent;
}

export interface SlurmExecutorOptions {
  manifest: Manifest;
  transport: Transport;
  /** When the campaign began: the accounting query looks back to it. */
  since: string;
  warn?: (message: string) => void;
  now?: () => string;
}

/** What the cluster allows, read before anything is submitted. */
export interface ClusterLimits {
  /** Undefined until read: the test of each array (its size) says when it matters. */
  maxArraySize?: number;
  /** Partition name → MaxTime in seconds (undefined: unlimited). */
  partitions: Map<string, number | undefined>;
  /** Where a job that names no partition goes. */
  defaultPartition?: string;
  /** The jobs and array tasks the user may have queued (max_jobs), where one applies. */
  maxJobs?: SubmitLimit;
  /** Whether sacctmgr answered (restricted: not asked). */
  accountingRead: boolean;
  /** The user's jobs and array tasks in the queue that are not the campaign's, when read. */
  othersQueued: number;
}

export class SlurmExecutor implements Executor {
  private readonly remote: RemoteWorkdir;
  private readonly now: () => string;
  private readonly warn: (message: string) => void;
  private readonly prefix: string;
  /** The campaign's jobs as last seen: name → array job id (to find a submission again). */
  private known: Map<string, string> | undefined;
  private lastWaiting = new Map<string, string>();
  /** Handles missing from the queries, with when they were first missed. */
  private missingSince = new Map<string, number>();
  private accountingOk = true;
  private accountingWarned = false;
  /** Node sets sbatch refused to exclude (no other node can take the job): not asked again, nor warned of, this run. */
  private readonly unavoidable = new Set<string>();
  /**
   * Every attempt the cluster has a job for (task and attempt → where it went), from the task
   * tables of the campaign's jobs, read before the first submission: a state rebuilt from
   * nothing, or older than the cluster, then never sends an attempt a second time, however
   * the attempts are grouped now.
   */
  private onRecord: Map<string, { handle: string; log: string }> | undefined;
  /** The campaign's generation, as the workdir records it: submissions are keyed by it. */
  readonly generation: GenerationRecord;
  /** How far this controller has read the ledger of submissions (render/submit-once.ts), in bytes. */
  private ledgerFrom = 0;
  /** The oldest submission on record (epoch seconds): the query looks back at least that far. */
  private earliest = Infinity;
  /** Plain commands and SFTP only: an automation node. */
  private readonly restricted: boolean;
  /** The login's user name (restricted: no `$(id -un)` in a command), asked once. */
  private user: Promise<string> | undefined;
  /** When the queue was last asked (epoch ms); a first pass counts as having asked. */
  private queueAskedAt: number | undefined;
  /** Ended tasks whose end accounting had not recorded when asked: asked again next pass. */
  private acctPending = new Set<string>();
  /** The login allows no file transfer (restricted: slurm): scripts go to sbatch on its standard input. */
  private readonly noTransfer: boolean;
  /** Handles that ended in the queue before their end marker could be read: given one pass for it. */
  private awaitingMarker = new Set<string>();
  /** Tasks whose attempts the last pass found ended by their markers and left for accounting to judge. */
  private endedUnjudged = new Set<string>();
  /** The site's limit on jobs queued (cluster.max_jobs, or sacctmgr's where smaller), lowered where sbatch says so. */
  private submitLimit: SubmitLimit | undefined;
  /** The user's jobs in the queue that are not the campaign's, as the queue last said. */
  private others = 0;
  /** The campaign's jobs in the queue when the limit was read (a run resumed). */
  private ownQueued = 0;
  /** A refusal for the submit limit has been warned of this run. */
  private limitWarned = false;
  /** The phases whose tasks run packed in array elements (plan/pack.ts). */
  private readonly packedPhases: ReadonlySet<string>;

  constructor(private readonly opts: SlurmExecutorOptions) {
    this.now = opts.now ?? (() => new Date().toISOString());
    this.warn = opts.warn ?? (() => {});
    this.prefix = `${opts.manifest.campaign}~`;
    const cluster = opts.manifest.cluster;
    this.restricted = restriction(cluster) !== undefined;
    this.noTransfer = restriction(cluster) === 'slurm';
    this.remote = new RemoteWorkdir(opts.transport, opts.manifest);
    this.generation = new GenerationRecord(this.remote, generationPath('slurm', opts.manifest.campaign));
    // Restricted, there is no accounting to wait for: an ended task is judged by the queue and its markers.
    this.accountingOk = !this.restricted;
    this.submitLimit = effectiveLimit(undefined, cluster.executor === 'slurm' ? cluster.max_jobs : undefined);
    this.packedPhases = new Set(opts.manifest.phases.filter((p) => p.pack !== undefined).map((p) => p.name));
  }

  /**
   * The campaign's max_parallel less the attempts in the queue, however they are grouped in
   * arrays (each array is throttled to its share besides: render/sbatch.ts), and the room the
   * submit limit leaves, which the user's other jobs in the queue take too (submit-limit.ts).
   * An attempt whose end marker is there has left the node, though it counts as active until
   * accounting judges it: its place is free.
   */
  capacity(active: number): number {
    const cap = this.opts.manifest.cluster.max_parallel;
    const left = active - this.endedUnjudged.size;
    const parallel = cap === undefined ? Number.MAX_SAFE_INTEGER : Math.max(0, cap - left);
    const limit = this.submitLimit?.limit;
    return limit === undefined ? parallel : Math.min(parallel, roomUnder(limit, left + this.others, left));
  }

  /** Tasks that have left their node and wait for accounting's word on how: their places are free. */
  ended(): ReadonlySet<string> {
    return this.endedUnjudged;
  }

  private workdir(): Promise<string> {
    return this.remote.path();
  }

  /**
   * The cluster's partition caps (`scontrol`), read once before submitting; restricted, its
   * MaxArraySize too, from the configuration read there anyway. With a shell, the submit limit
   * of the accounts and QOS `charges` name (sacctmgr) and the user's jobs in the queue too;
   * restricted, cluster.max_jobs alone.
   */
  async limits(
    charges: readonly Charge[] = [{ ...(this.account === undefined ? {} : { account: this.account }) }],
  ): Promise<ClusterLimits> {
    const [config, parts] = this.restricted
      ? await this.restrictedLimits()
      : [undefined, await this.scontrol('scontrol show partition -o')];
    const accountingRead = !this.restricted && (await this.readSubmitLimit(charges));
    const partitions = new Map<string, number | undefined>();
    let defaultPartition: string | undefined;
    for (const line of parts.split('\n')) {
      const name = /PartitionName=(\S+)/.exec(line)?.[1];
      const time = /MaxTime=(\S+)/.exec(line)?.[1];
      if (!name) continue;
      partitions.set(name, time === undefined || time === 'UNLIMITED' ? undefined : parseDuration(time));
      if (/\bDefault=YES\b/.test(line)) defaultPartition = name;
    }
    return {
      ...(config === undefined ? {} : { maxArraySize: arraySizeIn(config) }),
      partitions,
      ...(defaultPartition ? { defaultPartition } : {}),
      ...(this.submitLimit ? { maxJobs: this.submitLimit } : {}),
      accountingRead,
      othersQueued: this.others,
    };
  }

  /** The account jobs are charged to where an array names none. */
  private get account(): string | undefined {
    const cluster = this.opts.manifest.cluster;
    return cluster.executor === 'slurm' ? cluster.account : undefined;
  }

  /**
   * The submit limit sacctmgr gives for `charges` against cluster.max_jobs, and the user's other
   * jobs in the queue, in one command; whether sacctmgr answered.
   */
  private async readSubmitLimit(charges: readonly Charge[]): Promise<boolean> {
    const r = await this.opts.transport.exec(SUBMIT_LIMIT_COMMAND, { timeoutMs: 30_000 });
    const cluster = this.opts.manifest.cluster;
    const site = siteLimit(r.stdout, charges);
    this.submitLimit = effectiveLimit(site.limit, cluster.executor === 'slurm' ? cluster.max_jobs : undefined);
    ({ own: this.ownQueued, others: this.others } = queueCount(queueLines(r.stdout), this.prefix, false));
    return site.read;
  }

  /**
   * The cluster's MaxArraySize, from its configuration: asked only once an array's test says it
   * matters (restricted, `limits` gives it).
   */
  async maxArraySize(): Promise<number> {
    return arraySizeIn(await this.scontrol("scontrol show config | grep -i '^MaxArraySize'"));
  }

  /** `scontrol show config` and `scontrol show partition -o`, each a plain command, parsed here. */
  private async restrictedLimits(): Promise<[string, string]> {
    await this.checkPlainWorkdir();
    const config = await this.scontrol(['scontrol', 'show', 'config']);
    // Passes come at most the longest poll apart: a job the queue forgets sooner is judged by its markers alone.
    const age = Number(/^MinJobAge\s*=\s*(\d+)/m.exec(config)?.[1] ?? NaN);
    const longest = EXECUTOR_KINDS.slurm.pollSeconds[1];
    if (age > 0 && age < 2 * longest)
      this.warn(
        `the cluster forgets an ended job after ${age}s (MinJobAge), sooner than two passes: most ends will be judged by the tasks' markers (a cancel and a preemption then look alike)`,
      );
    return [config, await this.scontrol(['scontrol', 'show', 'partition', '-o'])];
  }

  /** Runs an scontrol query (a shell line, or plain words when restricted); its output, or the UserError. */
  private async scontrol(command: string | string[]): Promise<string> {
    const t = this.opts.transport;
    const r = typeof command === 'string' ? await t.exec(command) : await t.run(command);
    if (r.code !== 0)
      throw new UserError({
        message: `scontrol failed on the cluster: ${r.stderr.trim() || r.stdout.trim()}`,
        fix: 'check that Slurm is reachable from the login node',
      });
    return r.stdout;
  }

  /**
   * Restricted, every path is a plain word of a command: an automation node's wrapper would
   * split a blank and expand a `*`. Said before anything is sent.
   */
  private async checkPlainWorkdir(): Promise<void> {
    const workdir = await this.workdir();
    if (/^[A-Za-z0-9_.,:=%@+/-]+$/.test(workdir)) return;
    throw new UserError({
      message: `the workdir ${workdir} holds characters an automation node's forced command would split or expand (blanks, quotes, *, ?, $ and the like)`,
      fix: 'give a workdir of letters, digits and . _ - / only',
    });
  }

  /**
   * What the cluster would refuse of the plan as campaign would send it: each distinct
   * submission's script through `sbatch --test-only`, in one command; nothing is queued.
   */
  async testSubmissions(plan: Plan): Promise<Refusal[]> {
    const workdir = await this.workdir();
    const where = { name: `${this.prefix}test-only`, dir: `${this.root(workdir)}/test-only`, workdir, exclude: false };
    const arrays = new Map<string, TestedArray>();
    for (const phase of plan.phases) {
      const specs = new Map([...phase.tasks, ...phase.smoke].map((t) => [t.id, t]));
      for (const array of phase.arrays) {
        const task = specs.get(array.tasks[0]!);
        if (!task) continue;
        const { script } = submissionFiles(this.opts.manifest, [{ task, attempt: 1, array, index: 0 }], where);
        // Arrays that differ only in their tasks ask the same of the cluster: one test each.
        const asks = script
          .split('\n')
          .filter((l) => l.startsWith('#SBATCH') && !/^#SBATCH --(comment|array)=/.test(l))
          .join('\n');
        // Tested with the indices of the largest of them, as many as the limit on jobs queued leaves room for.
        // A packed array's indices are its elements'.
        const size = array.packing ? elementsOf(array.tasks.length, array.packing.tasks) : array.tasks.length;
        const room = this.submitLimit && Math.max(1, this.submitLimit.limit - this.others - this.ownQueued);
        if (size > (arrays.get(asks)?.size ?? 0))
          arrays.set(asks, {
            array: array.id,
            phase: phase.name,
            script,
            size,
            ...(room !== undefined && room < size ? { count: room } : {}),
          });
      }
    }
    const tested = [...arrays.values()];
    if (tested.length === 0) return [];
    if (this.restricted) {
      // One plain sbatch per array, its script on standard input: nothing to upload first.
      const answers = [];
      for (const a of tested) {
        const r = await this.opts.transport.run(['sbatch', '--test-only', testedIndices(a)], {
          stdin: a.script,
          timeoutMs: 30_000,
        });
        answers.push({ code: r.code, output: `${r.stdout}\n${r.stderr}` });
      }
      return this.roomAside(testOnlyRefusals(tested, answers));
    }
    const r = await this.opts.transport.exec(renderTestOnly(tested), { timeoutMs: 30_000 + 5_000 * tested.length });
    return this.roomAside(parseTestOnly(tested, `${r.stdout}\n${r.stderr}`));
  }

  /**
   * The refusals less those for a full queue (the limit on jobs queued): no refusal of the plan,
   * which the campaign waits out, though Slurm then tried nothing else of the array: said once.
   */
  private roomAside(refusals: readonly Refusal[]): Refusal[] {
    const full = refusals.filter((r) => r.option === QUEUE_LIMIT_OPTION);
    if (full.length > 0)
      this.warn(
        `sbatch --test-only could not try ${full.map((r) => r.array).join(', ')}: your queue is at its limit (${full[0]!.error}); the campaign waits for room`,
      );
    return refusals.filter((r) => r.option !== QUEUE_LIMIT_OPTION);
  }

  /** The refusals of testSubmissions as the error that stops a run before anything is sent. */
  static refused(refusals: readonly Refusal[]): UserError {
    return new UserError(
      refusals.map((r) => ({
        message: `sbatch --test-only refuses array ${r.array} (phase ${r.phase})${r.option ? `, for ${r.option}` : ''}: ${r.error}`,
        fix: r.fix,
      })),
    );
  }

  /** Refuses a plan the cluster would refuse, before anything is submitted. */
  static checkPlan(plan: Plan, limits: ClusterLimits): void {
    const problems: string[] = [];
    for (const phase of plan.phases) {
      for (const a of phase.arrays) {
        // A packed array's indices are its elements' (render/sbatch.ts).
        const indices = a.packing ? elementsOf(a.tasks.length, a.packing.tasks) : a.tasks.length;
        if (limits.maxArraySize !== undefined && indices > limits.maxArraySize)
          problems.push(
            `array ${a.id} has ${a.tasks.length} tasks${a.packing ? ` in ${indices} elements` : ''}; the cluster's MaxArraySize is ${limits.maxArraySize}`,
          );
        // A job that names no partition goes to the default one, whose cap holds all the same:
        // over it, the job would wait in the queue for ever (PartitionTimeLimit).
        const p = a.budget.partition ?? limits.defaultPartition;
        if (p === undefined) continue;
        const where = a.budget.partition === undefined ? `${p} (the cluster's default partition)` : p;
        if (!limits.partitions.has(p))
          problems.push(
            `array ${a.id} asks for partition ${p}, which the cluster does not have (it has ${[...limits.partitions.keys()].join(', ')})`,
          );
        const cap = limits.partitions.get(p);
        if (cap !== undefined && a.budget.seconds > cap) {
          problems.push(
            `array ${a.id} asks ${formatDuration(a.budget.seconds)} on ${where}, whose MaxTime is ${formatDuration(cap)}`,
          );
        }
      }
    }
    if (problems.length > 0) {
      throw new UserError(
        problems.map((message) => ({
          message,
          fix: 'match cluster.partitions and max_array_size to `scontrol show partition` and `scontrol show config`',
        })),
      );
    }
  }

  async submit(submissions: readonly Submission[]): Promise<TaskEvent[]> {
    const workdir = await this.workdir();
    const record = this.onRecord ?? (this.onRecord = await this.readRecord(workdir));
    const known = this.known ?? (await this.refreshKnown());
    const events: TaskEvent[] = [];
    // Refused for the submit limit: the submissions after wait for room too.
    let full = false;
    for (const whole of groupSubmissions(submissions)) {
      for (const s of whole) {
        const found = record.get(attemptKey(s));
        if (found) events.push(submittedEvent(s, this.now(), found.handle, found.log));
      }
      const group = whole.filter((s) => !record.has(attemptKey(s)));
      if (group.length === 0) continue;
      // Keyed by the generation (the state's creation where none was read): a campaign started
      // afresh never takes an earlier generation's job for its own.
      const key = submissionKey(this.opts.manifest.campaign, this.generation.last ?? this.opts.since, group);
      const name = `${this.prefix}${key}`;
      const dir = `${this.root(workdir)}/${key}`;
      let jobId = known.get(name);
      if (jobId === undefined) {
        if (full) continue;
        const avoid = group[0]!.avoidNodes?.join(', ');
        const exclude = avoid !== undefined && !this.unavoidable.has(avoid);
        let submitted = await this.sbatch(group, key, name, dir, workdir, exclude);
        if ('error' in submitted && !submitted.transient && exclude) {
          // No other node can take the job: running again where it failed beats not running.
          this.unavoidable.add(avoid);
          this.warn(
            `cannot avoid ${avoid} (${submitted.error}); submitting without --exclude, for the rest of this run`,
          );
          submitted = await this.sbatch(group, key, name, dir, workdir, false);
        }
        if ('error' in submitted) {
          // Not a failure of the tasks: they stay pending, and are sent again as room frees.
          if (isSubmitLimit(submitted.error)) {
            full = true;
            const packing = group[0]!.array.packing;
            await this.refusedForLimit(
              submitted.error,
              packing ? elementsOf(group.length, packing.tasks) : group.length,
            );
          } else if (submitted.transient) this.warn(`sbatch will be tried again on the next pass: ${submitted.error}`);
          else
            events.push(
              ...group.map((s): TaskEvent => ({
                type: 'submit_failed',
                task: s.task.id,
                attempt: s.attempt,
                at: this.now(),
                reason: submitted.error,
              })),
            );
          continue;
        }
        if ('taken' in submitted) {
          // Another controller sent some of these attempts first: they are adopted, the rest sent apart.
          events.push(...(await this.submit(group)));
          continue;
        }
        jobId = submitted.jobId;
        known.set(name, jobId);
      }
      const at = this.now();
      const packing = group[0]!.array.packing;
      for (const [i, s] of group.entries()) {
        // A packed attempt's handle is its element's: what sacct, squeue and scancel know.
        const slot = packing ? elementOf(i, packing.tasks) : s.index;
        const where = { handle: `${jobId}_${slot}`, log: `${dir}/logs/${s.index}.log` };
        record.set(attemptKey(s), where);
        events.push(submittedEvent(s, at, where.handle, where.log));
      }
    }
    return events;
  }

  /**
   * sbatch refused `size` jobs (tasks, or packed elements) for the limit on jobs queued. The
   * queue, counted afresh, says whether the limit is lower than the campaign thought (lowered
   * during the run, or set where sacctmgr did not show it): then it is at most what is queued
   * now and `size` less one, which it becomes, and the rest follow as room frees (a second
   * refusal lowers it again). Otherwise the count of the user's other jobs was behind, and is
   * now right.
   */
  private async refusedForLimit(error: string, size: number): Promise<void> {
    const { own, others } = await this.recount();
    this.others = others;
    const queued = own + others;
    const known = this.submitLimit?.limit;
    const lowered = known === undefined || queued + size <= known;
    const limit = Math.max(1, queued + size - 1);
    if (lowered) this.submitLimit = { limit, from: `sbatch refused ${size} more with ${queued} queued` };
    if (lowered || !this.limitWarned)
      this.warn(
        `sbatch refused for the limit on jobs queued (${error}): ${size} tasks wait for room${lowered ? `; at most ${limit} queued from now on` : ''}`,
      );
    this.limitWarned = true;
  }

  /** The user's jobs and array tasks in the queue now, the campaign's and the others. */
  private async recount(): Promise<{ own: number; others: number }> {
    const format = '%j@%T';
    const r = this.restricted
      ? await this.opts.transport.run(['squeue', '-h', '-r', '-u', await this.userName(), '-o', format])
      : await this.opts.transport.exec(`squeue -h -r -u "$(id -un)" -o ${shellQuote(format)}`);
    if (r.code !== 0) throw new LinkError(`squeue failed on the cluster: ${r.stderr.trim() || `exit ${r.code}`}`);
    return queueCount(r.stdout.split('\n'), this.prefix, false);
  }

  /**
   * The attempts of the campaign's jobs, in one command: the task tables under the workdir
   * whose jobs the scheduler knows (by the name the table's key gives), with their ids.
   */
  private async readRecord(workdir: string): Promise<Map<string, { handle: string; log: string }>> {
    if (this.restricted) return this.readRecordRestricted(workdir);
    const root = this.root(workdir);
    const r = await this.opts.transport.exec(
      [
        `cd -- ${shellQuote(root)} 2>/dev/null || exit 0`,
        // What the ledger holds now is on record below: a later submission reads past it.
        `printf '== ledger %s\\n' "$(stat -c %s -- ${LEDGER} 2>/dev/null || echo 0)"`,
        'export SLURM_TIME_FORMAT=%s',
        'user=$(id -un)',
        `names=; for d in */; do if [ -f "$d/table.tsv" ]; then names="$names,"${shellQuote(this.prefix)}"\${d%/}"; fi; done`,
        '[ -n "$names" ] || exit 0',
        `sacct -X -n -P -u "$user" -S ${RECORD_LOOKBACK} -E now --name="\${names#,}" -o JobID,JobName,Submit || exit 4`,
        `squeue -h -t all -u "$user" --name="\${names#,}" -o '%i|%j|%V' || exit 4`,
        `for d in */; do if [ -f "$d/table.tsv" ]; then printf '== %s\\n' "\${d%/}"; cat -- "$d/table.tsv"; fi; done`,
      ].join('\n'),
    );
    const record = new Map<string, { handle: string; log: string }>();
    if (r.code !== 0) {
      this.warn(`cannot read the record of earlier submissions (${r.stderr.trim() || `exit ${r.code}`})`);
      return record;
    }
    const jobs = new Map<string, string>();
    let key: string | undefined;
    let elements = new Map<number, number>();
    for (const line of r.stdout.split('\n')) {
      const ledger = /^== ledger (\d+)$/.exec(line);
      if (ledger) {
        this.ledgerFrom = Number(ledger[1]);
        continue;
      }
      if (line.startsWith('== ')) {
        key = line.slice(3);
        elements = new Map();
        continue;
      }
      if (key === undefined) {
        const [id = '', name = '', submit = ''] = line.split('|');
        if (!name.startsWith(this.prefix) || !/^\d+/.test(id)) continue;
        jobs.set(name.slice(this.prefix.length), id.split('_')[0]!);
        if (/^\d+$/.test(submit)) this.earliest = Math.min(this.earliest, Number(submit));
        continue;
      }
      if (!readElement(elements, line)) putOnRecord(record, root, key, jobs.get(key), line, elements);
    }
    // Every job sbatch was given has its table: the jobs found are all the campaign sent.
    this.known = new Map([...jobs].map(([k, id]) => [`${this.prefix}${k}`, id]));
    return record;
  }

  /**
   * The record without sacct: the task tables (each names its submission on its first line),
   * with the job of each from the queue (pending, running, or ended within MinJobAge) or, for
   * a job the queue has forgotten, from the markers its tasks left (which name their job).
   * An attempt whose job is in neither never ran and is not on record.
   */
  private async readRecordRestricted(workdir: string): Promise<Map<string, { handle: string; log: string }>> {
    const root = this.root(workdir);
    const record = new Map<string, { handle: string; log: string }>();
    const jobs = new Map<string, string>();
    for (const q of await this.queue()) jobs.set(q.name.slice(this.prefix.length), q.handle.split('_')[0]!);
    const tables = await this.opts.transport.run(['cat', { glob: `${root}/*/table.tsv` }]);
    let text = tables.stdout;
    const listed = new Set([...text.matchAll(new RegExp(TABLE_HEADER.source, 'gm'))].map((m) => m[1]!));
    const forgotten = [...listed].filter((key) => !jobs.has(key));
    for (const m of (await this.readMarkers(forgotten)).values()) if (!jobs.has(m.key)) jobs.set(m.key, m.jobId);
    // A job sent on sbatch's standard input that has not started has left no table yet: its
    // script, which the scheduler keeps, carries it.
    for (const [key, jobId] of jobs) {
      if (listed.has(key)) continue;
      const script = await this.opts.transport.run(['scontrol', 'write', 'batch_script', jobId, '-']);
      if (script.code === 0) text += `\n${script.stdout}`;
    }
    this.known = new Map([...jobs].map(([k, id]) => [`${this.prefix}${k}`, id]));
    let key: string | undefined;
    let elements = new Map<number, number>();
    for (const line of text.split('\n')) {
      const named = TABLE_HEADER.exec(line);
      if (named) {
        key = named[1];
        elements = new Map();
        continue;
      }
      if (key !== undefined && !readElement(elements, line))
        putOnRecord(record, root, key, jobs.get(key), line, elements);
    }
    return record;
  }

  /** The login's user name (restricted: no `$(id -un)` in a command), asked once. */
  private userName(): Promise<string> {
    return (this.user ??= this.opts.transport.run(['id', '-un']).then((r) => {
      const user = r.stdout.trim();
      if (r.code !== 0 || !/^[A-Za-z0-9._-]+$/.test(user)) {
        this.user = undefined;
        throw new LinkError(`id -un failed on the cluster: ${r.stderr.trim() || `exit ${r.code}`}`);
      }
      return user;
    }));
  }

  /** The campaign's jobs in the queue, every state (restricted: plain `squeue`, times as the queue prints them). */
  private async queue(): Promise<JobRecord[]> {
    const r = await this.opts.transport.run([
      'squeue',
      '-h',
      '-r',
      '-t',
      'all',
      '-u',
      await this.userName(),
      '-o',
      SQUEUE_FORMAT,
    ]);
    // slurmctld restarting or overloaded: the next pass asks again.
    if (r.code !== 0) throw new LinkError(`squeue failed on the cluster: ${r.stderr.trim() || `exit ${r.code}`}`);
    this.others = othersQueued(r.stdout.split('\n'), this.prefix, true);
    return parseSqueue(r.stdout, this.prefix);
  }

  /**
   * The markers of these submissions' tasks (none yet is no error): only those a pass still
   * waits on, so a long campaign's ended ones are not read again, nor do their files swell one
   * command's arguments past the system's limit. With a shell, one command, a `cat` per
   * submission; restricted, 16 submissions to a `cat` (patterns the node expands).
   */
  private async readMarkers(keys: readonly string[]): Promise<Map<string, TaskMarkers>> {
    if (keys.length === 0) return new Map();
    const root = this.root(await this.workdir());
    if (!this.restricted) {
      const dirs = keys.map((k) => shellQuote(`${root}/${k}/markers`)).join(' ');
      const r = await this.opts.transport.exec(`for d in ${dirs}; do cat -- "$d"/* 2>/dev/null; done; true`);
      return parseMarkers(r.stdout);
    }
    const globs = keys.map((k) => markersGlob(root, k));
    let text = '';
    for (let i = 0; i < globs.length; i += MARKER_GLOBS_PER_COMMAND) {
      const words = globs.slice(i, i + MARKER_GLOBS_PER_COMMAND).map((glob) => ({ glob }));
      text += (await this.opts.transport.run(['cat', ...words])).stdout;
    }
    return parseMarkers(text);
  }

  private root(workdir: string): string {
    return slurmRoot(workdir, this.opts.manifest.campaign);
  }

  private async sbatch(
    group: readonly Submission[],
    key: string,
    name: string,
    dir: string,
    workdir: string,
    exclude: boolean,
  ): Promise<{ jobId: string } | { taken: true } | { error: string; transient: boolean }> {
    const t = this.opts.transport;
    const where = { name, dir, workdir, exclude };
    const uploaded = await this.upload(submissionFiles(this.opts.manifest, group, where), dir);
    const sent = !this.restricted
      ? t.exec(renderSubmitOnce(this.root(workdir), key, this.ledgerFrom), {
          stdin: attemptLines(group, group[0]!.array.packing?.tasks),
        })
      : uploaded
        ? t.run(['sbatch', '--parsable', `${dir}/job.sh`])
        : // No file transfer: the script, its table within, goes on sbatch's standard input.
          t.run(['sbatch', '--parsable'], {
            stdin: submissionFiles(this.opts.manifest, group, { ...where, selfContained: true }).script,
          });
    const r = await sent.catch((e: unknown) => {
      // The job may be queued without our having heard its id: look again before sending anything.
      this.known = undefined;
      this.onRecord = undefined;
      throw e;
    });
    if (!this.restricted) {
      const { rows, outcome, upto } = parseSubmitOnce(r.stdout);
      this.adoptSent(rows, this.root(workdir));
      if (upto !== undefined) this.ledgerFrom = upto;
      if (outcome && 'sent' in outcome) return { jobId: outcome.sent };
      if (outcome && 'taken' in outcome && group.some((s) => this.onRecord?.has(attemptKey(s)))) return { taken: true };
      // Held by another controller's submission (or taken, by rows this one cannot read): the next pass looks again.
      if (outcome && !('failed' in outcome))
        return { error: "another controller is sending the campaign's tasks", transient: true };
    }
    const jobId = this.restricted ? /^(\d+)/.exec(r.stdout.trim())?.[1] : undefined;
    if (r.code === 0 && jobId) return { jobId };
    const error = (r.stderr.trim() || r.stdout.trim() || `sbatch exited ${r.code}`).split('\n').slice(-3).join(' ');
    return {
      error,
      transient: /temporarily|timed out|unable to contact|connection refused|try again|socket/i.test(error),
    };
  }

  /** Attempts another controller sent, read from the ledger: on record, as a rebuilt state finds them. */
  private adoptSent(rows: readonly LedgerRow[], root: string): void {
    for (const row of rows) {
      this.onRecord?.set(attemptKey({ task: { id: row.task, definition: row.definition }, attempt: row.attempt }), {
        handle: `${row.jobId}_${row.element ?? row.index}`,
        log: `${root}/${row.key}/logs/${row.index}.log`,
      });
      this.known?.set(`${this.prefix}${row.key}`, row.jobId);
    }
  }

  /**
   * The script and its task table written to the submission's directory; false where the login
   * allows no file transfer (an automation node's Slurm-only list).
   */
  private async upload(files: SbatchFiles, dir: string): Promise<boolean> {
    if (this.noTransfer) return false;
    await this.opts.transport.mkdirp(`${dir}/logs`);
    await this.opts.transport.writeFile(`${dir}/table.tsv`, files.table);
    if (files.task !== undefined) await this.opts.transport.writeFile(`${dir}/task.sh`, files.task);
    await this.opts.transport.writeFile(`${dir}/job.sh`, files.script, { mode: 0o755 });
    return true;
  }

  /** The submissions (their keys) of these attempts, from where this executor put their logs. */
  private async submissionsOf(active: readonly ActiveAttempt[]): Promise<string[]> {
    const root = this.root(await this.workdir());
    const keys = new Set(
      active.flatMap(({ attempt }) =>
        attempt.log && isJobLog(root, attempt.log) ? [attempt.log.slice(root.length + 1).split('/')[0]!] : [],
      ),
    );
    return [...keys];
  }

  /**
   * What the scheduler says, in one command: the campaign's jobs in the queue (every state:
   * slurmctld keeps an ended one for MinJobAge) where `queue`, and accounting's records of the
   * array jobs `jobs`. The queue failing (slurmctld restarting or overloaded) cuts the pass
   * short; accounting failing is said once, and the ended tasks are judged without it.
   */
  private async ask(
    queue: boolean,
    jobs: ReadonlySet<string>,
  ): Promise<{ records: Map<string, JobRecord>; acctOk: boolean }> {
    if (this.restricted) {
      const queued = queue ? await this.queue() : [];
      this.remember(queued);
      return { records: mergeRecords([], queued), acctOk: false };
    }
    const lines: string[] = [];
    if (jobs.size > 0) {
      const from = Math.min(Date.parse(this.opts.since) / 1000, this.earliest);
      const back = Math.ceil(Date.parse(this.now()) / 1000 - from) + 3600;
      lines.push(
        `SLURM_TIME_FORMAT=%s sacct -X -n -P -j ${[...jobs].join(',')} -S now-${back} -E now --format=${SACCT_FIELDS} 2>&1`,
        `printf '\\n%s %s\\n' ${SEPARATOR} "$?"`,
      );
    }
    if (queue)
      lines.push(
        'user=$(id -un)',
        `SLURM_TIME_FORMAT=%s squeue -h -r -t all -u "$user" -o ${shellQuote(SQUEUE_FORMAT)}`,
      );
    const r = await this.opts.transport.exec(lines.join('; '));
    let acct = '';
    let rest = r.stdout;
    let acctOk = true;
    if (jobs.size > 0) {
      [acct = '', rest = ''] = r.stdout.split(`\n${SEPARATOR} `);
      acctOk = rest.startsWith('0');
      rest = rest.slice(rest.indexOf('\n') + 1);
    }
    if (queue && r.code !== 0) throw new LinkError(`squeue failed on the cluster: ${r.stderr.trim() || rest.trim()}`);
    if (!acctOk && !this.accountingWarned) {
      this.accountingWarned = true;
      this.warn(
        `sacct failed (${acct.trim().split('\n')[0]}): watching the queue only; ended tasks are judged by their outputs`,
      );
    }
    if (jobs.size > 0) this.accountingOk = acctOk;
    const queued = queue ? parseSqueue(rest, this.prefix) : [];
    if (queue) this.others = othersQueued(rest.split('\n'), this.prefix, true);
    this.remember(queued);
    return { records: mergeRecords(acctOk ? parseSacct(acct, this.prefix) : [], queued), acctOk };
  }

  /** Jobs the queue showed, kept by name (to find a submission again). */
  private remember(queued: readonly JobRecord[]): void {
    for (const q of queued) this.known?.set(q.name, q.handle.split('_')[0]!);
  }

  /** The campaign's jobs by name from the queue: the record of earlier submissions could not be read. */
  private async refreshKnown(): Promise<Map<string, string>> {
    this.known = new Map();
    await this.ask(true, new Set());
    return this.known;
  }

  /**
   * Markers first: the markers of the submissions of `active`, then the scheduler for what they
   * cannot say (see the head of this file).
   */
  async observe(all: readonly ActiveAttempt[]): Promise<TaskEvent[]> {
    this.endedUnjudged = new Set();
    if (all.length === 0) return [];
    const markers = await this.readMarkers(await this.submissionsOf(all));
    try {
      return await this.observeWith(all, markers);
    } finally {
      this.remote.forget();
    }
  }

  private async observeWith(
    all: readonly ActiveAttempt[],
    markers: ReadonlyMap<string, TaskMarkers>,
  ): Promise<TaskEvent[]> {
    const now = this.now();
    const nowMs = Date.parse(now);
    const markerOf = (a: ActiveAttempt): TaskMarkers | undefined => {
      const key = this.markerKey(a);
      return key === undefined ? undefined : markers.get(key);
    };
    // The outputs of the attempts whose end markers are there, looked at together at the first
    // end this pass judges by its output.
    this.remote.lookOutputs(all.filter((a) => markerOf(a)?.end).map((a) => a.task));
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
    const open = active.filter((a) => !markerOf(a)?.end);
    const ended = active.filter((a) => markerOf(a)?.end);
    // A failure or a SIGTERM: only the scheduler can say what ended it (with a shell, accounting's exit code too).
    const wantsWord = (a: ActiveAttempt): boolean => {
      const end = markerOf(a)!.end!;
      return end.signal === 'TERM' || (this.restricted ? end.code >= 128 : end.code !== 0);
    };
    const askedAt = (this.queueAskedAt ??= nowMs);
    const overdue = (a: ActiveAttempt): boolean => {
      const started = a.attempt.startedAt ?? markerOf(a)?.startedAt;
      const limit = started === undefined ? Infinity : Date.parse(started) + a.walltimeSeconds * 1000;
      return limit <= nowMs && askedAt < limit;
    };
    const queue =
      (open.length > 0 && (nowMs - askedAt >= SCHEDULER_EVERY_MS || open.some(overdue))) ||
      (this.restricted && ended.some(wantsWord));
    const jobOf = (a: ActiveAttempt): string | undefined => arrayHandle(a)?.split('_')[0];
    const acctJobs = new Set<string>();
    if (!this.restricted) {
      for (const a of active) if (this.acctPending.has(a.attempt.handle ?? '')) acctJobs.add(jobOf(a) ?? '');
      const oldest = Math.min(...ended.map((a) => Date.parse(markerOf(a)!.end!.at)));
      if (
        ended.length > 0 &&
        (open.length === 0 || acctJobs.size > 0 || ended.some(wantsWord) || nowMs - oldest >= SCHEDULER_EVERY_MS)
      )
        for (const a of ended) acctJobs.add(jobOf(a) ?? '');
      acctJobs.delete('');
    }
    let records = new Map<string, JobRecord>();
    let acctOk = true;
    if (queue || acctJobs.size > 0) ({ records, acctOk } = await this.ask(queue, acctJobs));
    if (queue) this.queueAskedAt = nowMs;
    // Every task has ended by its markers, but slurmdbd has not recorded the last ends yet (it
    // lags slurmctld by one to a few seconds): the queue's word on those ends, with what
    // accounting has of their runs, rather than a pass later, so that the campaign's end is not
    // put off.
    const unsettled = (a: ActiveAttempt): boolean => {
      const r = records.get(a.attempt.handle ?? '');
      return !r || classify(r).active || r.queueOnly === true;
    };
    const lagging = open.length === 0 && acctOk && !this.restricted ? ended.filter(unsettled) : [];
    if (lagging.length > 0 && lagging.every((a) => acctJobs.has(jobOf(a) ?? ''))) {
      const handles = new Set(lagging.map((a) => a.attempt.handle));
      try {
        const queued = (await this.ask(true, new Set())).records.values();
        records = withQueueEnds(
          records,
          [...queued].filter((q) => handles.has(q.handle)),
        );
      } catch (e) {
        // A queue that does not answer only leaves them to accounting, a pass later.
        if (!(e instanceof LinkError)) throw e;
      }
    }
    if (queue && !this.restricted) {
      // Ended in the queue, or gone from it, without an end marker: accounting says how.
      const more = new Set<string>();
      for (const a of open) {
        const job = jobOf(a);
        const r = records.get(a.attempt.handle ?? '');
        if (job !== undefined && !acctJobs.has(job) && (!r || !classify(r).active)) more.add(job);
      }
      if (more.size > 0) {
        const second = await this.ask(false, more);
        records = mergeRecords([...second.records.values()], [...records.values()]);
        acctOk &&= second.acctOk;
        for (const job of more) acctJobs.add(job);
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
      recheck.length === 0 ? new Map<string, TaskMarkers>() : await this.readMarkers(await this.submissionsOf(recheck));
    const rechecked = new Set(recheck);

    const events: TaskEvent[] = byMarkers;
    const unschedulable: Unschedulable[] = [];
    const pending = new Set<string>();
    for (const a of active) {
      const { task, attempt, walltimeSeconds } = a;
      const m = rechecked.has(a) ? reread.get(this.markerKey(a)!) : markerOf(a);
      const handle = attempt.handle;
      const record = handle ? records.get(handle) : undefined;
      const job = jobOf(a);
      if (rechecked.has(a) && m?.end) {
        // It ended after its markers were first read: by its end marker, as a packed task that
        // ends on its own is judged; one SIGTERM ended waits for the next pass, which asks the scheduler.
        if (m.end.signal !== 'TERM')
          events.push(...(await this.endedByMarkers(task, attempt, m, walltimeSeconds, now)));
        else events.push(...startedByMarker(a, m));
        continue;
      }
      if (m?.end) {
        const asked = this.restricted ? queue : job !== undefined && acctJobs.has(job);
        const settled = record !== undefined && !classify(record).active && !(record.queueOnly && !this.restricted);
        if (asked && settled)
          events.push(
            ...(await this.judge(a, withMarker(this.taskRecord(a, record), m), now, unschedulable, m.warnedAt)),
          );
        else if (this.restricted ? !asked || !record : !acctOk || nowMs - Date.parse(m.end.at) >= VANISH_GRACE_MS)
          events.push(...(await this.endedByMarkers(task, attempt, m, walltimeSeconds, now)));
        else {
          // Ended well and held for the next batch of accounting, or not in accounting yet.
          if (asked) pending.add(handle!);
          // A packed task's place is its element's, which its other tasks may hold still.
          if (!this.packed(a)) this.endedUnjudged.add(task.id);
          events.push(...startedByMarker(a, m));
        }
        continue;
      }
      const asked = queue || (job !== undefined && acctJobs.has(job));
      if (!asked || (!queue && !(record && !classify(record).active))) {
        if (asked) pending.add(handle!);
        events.push(...startedByMarker(a, m));
        continue;
      }
      if (this.packed(a) && !m?.startedAt && record && !classify(record).active) {
        // Its element ended (a time limit, a cancel, a node lost) before its turn: it never ran.
        events.push({
          type: 'unstarted',
          task: task.id,
          attempt: attempt.n,
          at: now,
          reason: `its element ${handle} ended ${record.state} before this task's turn`,
        });
        continue;
      }
      if (!record) {
        if (m?.startedAt) events.push(...(await this.endedByMarkers(task, attempt, m, walltimeSeconds, now)));
        else events.push(...(await this.absent(task, attempt, now)));
        continue;
      }
      // Ended in the queue but not yet in accounting: accounting is asked again next pass.
      if (!classify(record).active && record.queueOnly && !this.restricted && acctOk) {
        pending.add(record.handle);
        events.push(...startedByMarker(a, m));
        continue;
      }
      const own = this.taskRecord(a, record);
      events.push(...(await this.judge(a, m ? withMarker(own, m) : own, now, unschedulable, m?.warnedAt)));
    }
    this.acctPending = pending;
    return events.concat(await this.cancelPending(unschedulable));
  }

  /** Whether the attempt's phase packs its tasks: its handle is its element's, its markers its row's. */
  private packed(a: ActiveAttempt): boolean {
    return this.packedPhases.has(a.task.phase);
  }

  /**
   * Where the attempt's markers are filed (markers.ts: `<job>_<index>`): its own row's for a
   * packed task, whose index in the table is not its element's.
   */
  private markerKey(a: ActiveAttempt): string | undefined {
    const handle = a.attempt.handle;
    if (handle === undefined || !this.packed(a)) return handle;
    const row = /\/logs\/(\d+)\.log$/.exec(a.attempt.log ?? '')?.[1];
    return row === undefined ? handle : `${handle.split('_')[0]}_${row}`;
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
    // Restricted, the exit code is the end marker's (none yet: no exit code), which a shared
    // filesystem may show a moment late.
    if (!c.active && this.restricted && record.exitCode === undefined && !this.awaitingMarker.has(record.handle)) {
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
    const verdict = await this.verify(task, started, c.cls, c.reason, record.exitCode);
    const { cls, reason } = await this.warned(task, started, warnedAt, at, record.exitCode, verdict);
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
    const base = { task: task.id, attempt: attempt.n };
    const startedAt = attempt.startedAt ?? m.startedAt!;
    const node = m.node ? { node: m.node } : {};
    const events: TaskEvent[] = [];
    if (!attempt.startedAt) events.push({ type: 'started', ...base, at: startedAt, ...node });
    // slurmstepd's out-of-memory line goes to a packed element's own log, not its tasks': a
    // packed task that ended well has nothing in its log to read.
    const wellPacked = this.packedPhases.has(task.phase) && m.end?.code === 0 && m.end.signal === undefined;
    const v = classifyByMarkers(m, walltimeSeconds, now, wellPacked ? '' : await this.readLog(task, attempt));
    const verdict = await this.verify(task, { ...attempt, startedAt }, v.cls, v.reason, v.exitCode);
    const { cls, reason } = await this.warned(
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
    if (!this.accountingOk && attempt.startedAt) {
      const out = await this.freshness(task, attempt);
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

  /**
   * Asks Slurm to end these attempts (SIGTERM, then SIGKILL after KillWait); a pending one
   * never starts. Their ends, as `cancelled`, come from later passes.
   */
  async cancel(active: readonly ActiveAttempt[]): Promise<void> {
    const handles = active.flatMap((a) => arrayHandle(a) ?? []);
    if (handles.length === 0) return;
    const r = await this.opts.transport.run(['scancel', ...handles]);
    if (r.code !== 0)
      throw new UserError({
        message: `scancel failed (exit ${r.code}): ${(r.stderr || r.stdout).trim().split('\n')[0]}`,
        fix: `cancel the jobs by hand on the login node: scancel ${handles.join(' ')}`,
      });
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
    const handled = queued.filter((a) => arrayHandle(a) !== undefined);
    if (handled.length === 0) return [];
    // It fails for an index that has ended meanwhile; what the queue says next is what counts.
    await this.opts.transport.run(['scontrol', 'hold', ...handled.map((a) => a.attempt.handle!)]);
    const { records } = await this.ask(true, new Set());
    const markers = await this.readMarkers(await this.submissionsOf(handled));
    const held = handled.filter(
      (a) => records.get(a.attempt.handle!)?.state === 'PENDING' && !markers.get(this.markerKey(a)!)?.startedAt,
    );
    if (held.length === 0) return [];
    const handles = held.map((a) => a.attempt.handle!);
    const r = await this.opts.transport.run(['scancel', ...handles]);
    if (r.code === 0) return held;
    // Released again, so that nothing stays held for ever; the next pass decides anew.
    await this.opts.transport.run(['scontrol', 'release', ...handles]);
    this.warn(`scancel failed (${(r.stderr || r.stdout).trim().split('\n')[0]}); trying again next pass`);
    return [];
  }

  /** Completion is proven by the output; a failure whose log names a gate is that gate's. */
  private async verify(
    task: TaskSpec,
    attempt: Attempt,
    cls: EndClass,
    reason: string | undefined,
    exitCode: number | undefined,
  ): Promise<{ cls: EndClass; reason?: string }> {
    if (cls === 'failed') {
      const log = await this.readLog(task, attempt);
      const gate = exitCode === GATE_EXIT ? GATE_LINE.exec(log) : null;
      if (gate) return gateShortfall(gate[1]!, gate[2]!) ?? { cls: 'gate', reason: `gate ${gate[1]}:${gate[2]}` };
      // Without cgroups (OverMemoryKill), Slurm records a task it killed for memory as FAILED.
      if (killedForMemory(log))
        return {
          cls: 'out_of_memory',
          reason: `over its memory limit${exitCode === undefined ? '' : ` (exit ${exitCode})`}`,
        };
      const full = diskFull(log);
      if (full) return full;
    }
    if (cls !== 'completed' || task.output === undefined) return { cls, ...(reason ? { reason } : {}) };
    const out = await this.freshness(task, attempt);
    if (!out.exists) {
      const full = diskFull(await this.readLog(task, attempt));
      return full ?? { cls: 'unverified', reason: `COMPLETED but ${task.output} does not exist` };
    }
    if (out.linkedTo)
      return { cls: 'unverified', reason: `COMPLETED but ${task.output} is a symlink to ${out.linkedTo}` };
    if (!out.fresh) return { cls: 'unverified', reason: `COMPLETED but ${task.output} is older than the attempt` };
    return recordsVerdict('COMPLETED', task.output, await this.remote.records(task, out)) ?? { cls: 'completed' };
  }

  /**
   * An attempt its checkpoint signal reached (its warn marker is there): ended without its
   * output, whatever its status, it is a continuation (judge/attempt-end.ts).
   */
  private async warned(
    task: TaskSpec,
    attempt: Attempt,
    warnedAt: string | undefined,
    endedAt: string,
    exitCode: number | undefined,
    verdict: { cls: EndClass; reason?: string },
  ): Promise<{ cls: EndClass; reason?: string }> {
    if (warnedAt === undefined) return verdict;
    const out = task.output === undefined ? undefined : await this.freshness(task, attempt);
    return afterWarning(verdict, {
      at: warnedAt,
      ...(attempt.startedAt === undefined ? {} : { startedAt: attempt.startedAt }),
      endedAt,
      ...(exitCode === undefined ? {} : { exitCode }),
      ...(out ? { outputThere: out.exists && out.fresh && out.linkedTo === undefined } : {}),
    });
  }

  /**
   * The attempt's log, where the state says it is only if that is where this executor puts logs
   * (`<campaign dir>/<key>/logs/<index>.log`): a state is not trusted to name any other file.
   */
  async readLog(task: TaskSpec, attempt: Attempt): Promise<string> {
    const log = await this.logPath(task, attempt);
    if (log === undefined) return '';
    return (await this.opts.transport.readFile(log, { maxBytes: LOG_LIMIT }).catch(() => undefined)) ?? '';
  }

  /** The job's log as Slurm reported it, only where this executor's layout puts logs. */
  async logPath(_task: TaskSpec, attempt: Attempt): Promise<string | undefined> {
    return attempt.log && isJobLog(this.root(await this.workdir()), attempt.log) ? attempt.log : undefined;
  }

  /** Both times are the cluster's: the job's start from accounting, the file's mtime. */
  private freshness(task: TaskSpec, attempt: Attempt): Promise<OutputFreshness> {
    return this.remote.freshness(task, attempt.startedAt ?? attempt.submittedAt);
  }

  outputFacts(task: TaskSpec, attempt: Attempt, withText: boolean): Promise<OutputFacts> {
    return this.remote.outputFacts(task, attempt.startedAt ?? attempt.submittedAt, withText);
  }

  runCheck(task: TaskSpec, command: string): Promise<{ exitCode: number; tail: string }> {
    return this.remote.runCheck(task, command);
  }

  missing(paths: readonly string[]): Promise<string[]> {
    return this.remote.missing(paths);
  }

  writeFiles(files: readonly { path: string; text: string }[]): Promise<string[]> {
    return this.remote.writeFiles(files);
  }

  setAside(dest: string): Promise<SetAsideResult> {
    return this.remote.setAside(`.campaign/slurm/${this.opts.manifest.campaign}`, dest);
  }

  readFile(path: string): Promise<string | undefined> {
    return this.remote.readFile(path);
  }

  shipCode(snapshot: CodeSnapshot): Promise<void> {
    return this.remote.shipCode(snapshot);
  }

  removeCode(keep: ReadonlySet<string>): Promise<string[]> {
    return this.remote.removeCode(keep);
  }

  gather(
    paths: readonly string[],
    known: ReadonlyMap<string, string>,
    endsSuffice: boolean,
    take: TakeFile,
  ): Promise<void> {
    return this.remote.gather(paths, known, endsSuffice, take);
  }

  async close(): Promise<void> {
    await this.opts.transport.close();
  }
}

/** Whether `path` is a job log of the campaign whose job directories are under `root`. */
/** MaxArraySize in `scontrol show config`'s words; Slurm's default, 1001, where it is not said. */
function arraySizeIn(config: string): number {
  const max = /MaxArraySize\s*=\s*(\d+)/i.exec(config);
  return max ? Number(max[1]) : 1001;
}

export function isJobLog(root: string, path: string): boolean {
  return path.startsWith(`${root}/`) && /^[0-9a-f]{12}\/logs\/\d+\.log$/.test(path.slice(root.length + 1));
}

/**
 * An attempt on record: its task, number and definition. An attempt of the same number under
 * another definition (a state lost before the manifest changed) is another attempt.
 */
const attemptKey = (s: { task: { id: string; definition?: string | undefined }; attempt: number }): string =>
  `${s.task.id}\u0000${s.attempt}\u0000${s.task.definition ?? ''}`;

/** The attempt a row of submission `key`'s task table runs, on record with the job it went to (if it went to one). */
function putOnRecord(
  record: Map<string, { handle: string; log: string }>,
  root: string,
  key: string,
  jobId: string | undefined,
  line: string,
  elements: ReadonlyMap<number, number>,
): void {
  const row = jobId === undefined ? undefined : rowAttempt(line);
  if (!row) return;
  record.set(attemptKey({ task: { id: row.task, definition: row.definition }, attempt: row.attempt }), {
    handle: `${jobId}_${elements.get(row.index) ?? row.index}`,
    log: `${root}/${key}/logs/${row.index}.log`,
  });
}

/** Where `line` is a task table's element line, its rows put in `elements` (row → element); false otherwise. */
function readElement(elements: Map<number, number>, line: string): boolean {
  const e = parseElementLine(line);
  if (!e) return false;
  for (const row of e.rows) elements.set(row, e.element);
  return true;
}

function submittedEvent(s: Submission, at: string, handle: string, log: string): TaskEvent {
  return {
    type: 'submitted',
    task: s.task.id,
    attempt: s.attempt,
    at,
    handle,
    log,
    ...(s.memBytes === undefined ? {} : { memBytes: s.memBytes }),
  };
}

/** The attempt's `<array job id>_<index>`, where it has one (a handle of this executor's). */
function arrayHandle(a: ActiveAttempt): string | undefined {
  const h = a.attempt.handle;
  return h !== undefined && /^\d+_\d+$/.test(h) ? h : undefined;
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

/** Submissions that can share one sbatch: one array, one walltime, one memory, one set of nodes to avoid. */
function groupSubmissions(subs: readonly Submission[]): Submission[][] {
  const groups = new Map<string, Submission[]>();
  for (const s of subs) {
    // A packed retry shares its elements only with other retries, never with first attempts.
    const k = submissionGroup(s);
    const g = groups.get(k);
    if (g) g.push(s);
    else groups.set(k, [s]);
  }
  return [...groups.values()];
}
