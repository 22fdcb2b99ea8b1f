/**
 * The `slurm` executor: one `sbatch` per array chunk, over a transport (SSH to a login node,
 * or this machine). Jobs are named `<campaign>~<key>`, the key derived from what is submitted,
 * so a pass that crashed after `sbatch` finds its job on the next pass instead of submitting
 * again.
 *
 * This class holds its parts together and keeps the room the limit on jobs queued leaves:
 * fitting the plan to the cluster (fit.ts), the record of what was sent (record.ts), the
 * commands that reach the cluster (commands.ts: a login with a shell, or an automation node,
 * `cluster.restricted`, which is the choice of one of the two), the passes that observe the
 * attempts markers first (observe.ts, asking what the pure plan of ask-plan.ts says) and the
 * verification of an end by the task's own traces (verify.ts).
 */
import { UserError } from '../../errors.js';
import type { TaskSpec } from '../../manifest/expand.js';
import { restriction, type Manifest } from '../../manifest/schema.js';
import { elementsOf } from '../../plan/pack.js';
import type { Plan } from '../../plan/plan.js';
import { slurmRoot, submissionFiles, submissionKey } from '../../render/sbatch.js';
import { submissionGroup, type Submission, type TaskEvent } from '../../state/events.js';
import type { Attempt } from '../../state/state.js';
import type { ActiveAttempt, Executor } from '../executor.js';
import { TransportWorkdir } from '../transport-workdir.js';
import type { Transport } from '../transport/transport.js';
import { declaredMaxJobs, type SendOutcome, type SlurmCommands, type SubmissionPlace } from './commands.js';
import {
  arraySizeIn,
  checkPlan,
  partitionsIn,
  refusedError,
  roomAside,
  testedArrays,
  type ClusterLimits,
} from './fit.js';
import { arrayHandle } from './handles.js';
import { Observation } from './observe.js';
import { PlainCommands } from './plain-commands.js';
import { SubmissionRecord, submittedEvent } from './record.js';
import { ShellCommands } from './shell-commands.js';
import { effectiveLimit, isSubmitLimit, roomUnder, type Charge, type SubmitLimit } from './submit-limit.js';
import type { Refusal } from './test-only.js';
import { Verification } from './verify.js';

export interface SlurmExecutorOptions {
  manifest: Manifest;
  transport: Transport;
  /** When the campaign began: the accounting query looks back to it. */
  since: string;
  warn?: (message: string) => void;
  now?: () => string;
}

export class SlurmExecutor implements Executor {
  /** The campaign's workdir, behind the login; submissions are keyed by the generation it records. */
  readonly workdir: TransportWorkdir;
  private readonly now: () => string;
  private readonly warn: (message: string) => void;
  private readonly prefix: string;
  private readonly record: SubmissionRecord;
  private readonly commands: SlurmCommands;
  private readonly verification: Verification;
  private readonly observation: Observation;
  /** Node sets sbatch refused to exclude (no other node can take the job): not asked again, nor warned of, this run. */
  private readonly unavoidable = new Set<string>();
  /** The site's limit on jobs queued (cluster.max_jobs, or sacctmgr's where smaller), lowered where sbatch says so. */
  private submitLimit: SubmitLimit | undefined;
  /** The campaign's jobs in the queue when the limit was read (a run resumed). */
  private ownQueued = 0;
  /** A refusal for the submit limit has been warned of this run. */
  private limitWarned = false;

  constructor(private readonly opts: SlurmExecutorOptions) {
    this.now = opts.now ?? (() => new Date().toISOString());
    this.warn = opts.warn ?? (() => {});
    this.prefix = `${opts.manifest.campaign}~`;
    // An output counts from the job's start where accounting saw one: a job may wait long in the queue.
    this.workdir = new TransportWorkdir(opts.transport, opts.manifest, {
      folder: `.campaign/slurm/${opts.manifest.campaign}`,
      since: (a) => a.startedAt ?? a.submittedAt,
    });
    this.record = new SubmissionRecord(this.prefix);
    const workdir = () => this.workdirPath();
    const root = async () => this.root(await this.workdirPath());
    const context = { ...opts, record: this.record, workdir, now: this.now, warn: this.warn };
    // Restricted mode is no more than this: the commands of an automation node rather than a shell's.
    const restricted = restriction(opts.manifest.cluster);
    this.commands =
      restricted === undefined ? new ShellCommands(context) : new PlainCommands(context, restricted === 'slurm');
    this.verification = new Verification(opts.transport, this.workdir, root);
    this.observation = new Observation({
      commands: this.commands,
      transport: opts.transport,
      workdir: this.workdir,
      verification: this.verification,
      packedPhases: new Set(opts.manifest.phases.filter((p) => p.pack !== undefined).map((p) => p.name)),
      root,
      now: this.now,
      warn: this.warn,
    });
    this.submitLimit = effectiveLimit(undefined, declaredMaxJobs(opts.manifest));
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
    const left = active - this.observation.ended.size;
    const parallel = cap === undefined ? Number.MAX_SAFE_INTEGER : Math.max(0, cap - left);
    const limit = this.submitLimit?.limit;
    return limit === undefined ? parallel : Math.min(parallel, roomUnder(limit, left + this.commands.others, left));
  }

  /** Tasks that have left their node and wait for accounting's word on how: their places are free. */
  ended(): ReadonlySet<string> {
    return this.observation.ended;
  }

  private workdirPath(): Promise<string> {
    return this.workdir.path();
  }

  private root(workdir: string): string {
    return slurmRoot(workdir, this.opts.manifest.campaign);
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
    const read = await this.commands.readLimits(charges);
    if (read.site) {
      this.submitLimit = effectiveLimit(read.site.limit, declaredMaxJobs(this.opts.manifest));
      this.ownQueued = read.site.ownQueued;
    }
    return {
      ...(read.config === undefined ? {} : { maxArraySize: arraySizeIn(read.config) }),
      ...partitionsIn(read.partitions),
      ...(this.submitLimit ? { maxJobs: this.submitLimit } : {}),
      accountingRead: read.site?.read ?? false,
      othersQueued: this.commands.others,
    };
  }

  /** The account jobs are charged to where an array names none. */
  private get account(): string | undefined {
    const cluster = this.opts.manifest.cluster;
    return cluster.executor === 'slurm' ? cluster.account : undefined;
  }

  /**
   * The cluster's MaxArraySize, from its configuration: asked only once an array's test says it
   * matters (restricted, `limits` gives it).
   */
  async maxArraySize(): Promise<number> {
    return arraySizeIn(await this.commands.config());
  }

  /**
   * What the cluster would refuse of the plan as campaign would send it: each distinct
   * submission's script through `sbatch --test-only`; nothing is queued.
   */
  async testSubmissions(plan: Plan): Promise<Refusal[]> {
    const workdir = await this.workdirPath();
    const where = { name: `${this.prefix}test-only`, dir: `${this.root(workdir)}/test-only`, workdir, exclude: false };
    const room = this.submitLimit && Math.max(1, this.submitLimit.limit - this.commands.others - this.ownQueued);
    const tested = testedArrays(plan, this.opts.manifest, where, room);
    if (tested.length === 0) return [];
    return roomAside(await this.commands.testOnly(tested), this.warn);
  }

  /** The refusals of testSubmissions as the error that stops a run before anything is sent. */
  static refused(refusals: readonly Refusal[]): UserError {
    return refusedError(refusals);
  }

  /** Refuses a plan the cluster would refuse, before anything is submitted. */
  static checkPlan(plan: Plan, limits: ClusterLimits): void {
    checkPlan(plan, limits);
  }

  async submit(submissions: readonly Submission[]): Promise<TaskEvent[]> {
    const workdir = await this.workdirPath();
    const root = this.root(workdir);
    const record = this.record;
    if (!record.attemptsRead) record.fill(root, await this.commands.readRecord(root));
    if (!record.jobsKnown) {
      // The record of earlier submissions could not be read: the campaign's jobs by name from the queue.
      record.knowNoJobs();
      await this.commands.ask(true, new Set());
    }
    const events: TaskEvent[] = [];
    // Refused for the submit limit: the submissions after wait for room too.
    let full = false;
    for (const whole of groupSubmissions(submissions)) {
      for (const s of whole) {
        const found = record.find(s);
        if (found) events.push(submittedEvent(s, this.now(), found));
      }
      const group = whole.filter((s) => !record.find(s));
      if (group.length === 0) continue;
      // Keyed by the generation (the state's creation where none was read): a campaign started
      // afresh never takes an earlier generation's job for its own.
      const key = submissionKey(this.opts.manifest.campaign, this.workdir.generation.last ?? this.opts.since, group);
      const name = `${this.prefix}${key}`;
      const dir = `${root}/${key}`;
      let jobId = record.jobNamed(name);
      if (jobId === undefined) {
        if (full) continue;
        const avoid = group[0]!.avoidNodes?.join(', ');
        const exclude = avoid !== undefined && !this.unavoidable.has(avoid);
        let submitted = await this.send(group, key, { name, dir, workdir, exclude }, root);
        if ('error' in submitted && !submitted.transient && exclude) {
          // No other node can take the job: running again where it failed beats not running.
          this.unavoidable.add(avoid);
          this.warn(
            `cannot avoid ${avoid} (${submitted.error}); submitting without --exclude, for the rest of this run`,
          );
          submitted = await this.send(group, key, { name, dir, workdir, exclude: false }, root);
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
      }
      events.push(...record.sent(group, name, jobId, dir, this.now()));
    }
    return events;
  }

  /** One sbatch of `group` as submission `key`, its script and table written for `place`. */
  private send(group: readonly Submission[], key: string, place: SubmissionPlace, root: string): Promise<SendOutcome> {
    return this.commands.send(group, key, submissionFiles(this.opts.manifest, group, place), place, root);
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
    const { own, others } = await this.commands.recount();
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

  /** Markers first: see observe.ts. */
  observe(all: readonly ActiveAttempt[]): Promise<TaskEvent[]> {
    return this.observation.observe(all);
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

  /** Takes the attempts still pending out of the queue, held first: see observe.ts. */
  withdraw(queued: readonly ActiveAttempt[]): Promise<ActiveAttempt[]> {
    return this.observation.withdraw(queued);
  }

  async readLog(task: TaskSpec, attempt: Attempt): Promise<string> {
    return this.verification.readLog(task, attempt);
  }

  async logPath(_task: TaskSpec, attempt: Attempt): Promise<string | undefined> {
    return this.verification.logPath(attempt);
  }

  async close(): Promise<void> {
    await this.opts.transport.close();
  }
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
