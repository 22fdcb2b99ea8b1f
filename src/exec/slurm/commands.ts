/**
 * How the Slurm executor's questions and submissions reach the cluster: the strategy that is
 * restricted mode. A login with a shell (shell-commands.ts) takes a pass's questions in one bash
 * command and has accounting (sacct); an automation node (`cluster.restricted`,
 * plain-commands.ts) runs one allowed command of plain words at a time (scontrol, squeue,
 * sbatch, scancel, cat, id), takes files by SFTP or not at all, and has no sacct, so the queue
 * is the witness of an ended task (ask-plan.ts). The executor asks through this and never asks
 * which of the two it has.
 */
import { UserError } from '../../errors.js';
import type { Manifest } from '../../manifest/schema.js';
import type { SbatchFiles } from '../../render/sbatch.js';
import type { Submission } from '../../state/events.js';
import type { CommandResult, Transport } from '../transport/transport.js';
import type { JobRecord } from './accounting.js';
import type { EndWitness } from './ask-plan.js';
import type { TaskMarkers } from './markers.js';
import type { RecordRead, SubmissionRecord } from './record.js';
import type { Charge, SubmitLimit } from './submit-limit.js';
import type { Refusal, TestedArray } from './test-only.js';

/** What the scheduler answered: its records by handle, and whether accounting answered (never, without it). */
export interface SchedulerAnswer {
  records: Map<string, JobRecord>;
  acctOk: boolean;
}

/** What became of one sbatch: its job, attempts another controller sent first, or an error (transient: try again). */
export type SendOutcome = { jobId: string } | { taken: true } | { error: string; transient: boolean };

/** What the cluster says of its limits before anything is sent. */
export interface LimitsRead {
  /** `scontrol show partition -o`'s lines. */
  partitions: string;
  /** `scontrol show config`, where read with them (an automation node's: no second look later). */
  config?: string;
  /** sacctmgr's limit on jobs queued for the charges, and the campaign's jobs queued, where asked. */
  site?: { limit?: SubmitLimit; read: boolean; ownQueued: number };
}

/** Where one submission goes: its job's name, its directory, the workdir, and whether it avoids nodes. */
export interface SubmissionPlace {
  name: string;
  dir: string;
  workdir: string;
  exclude: boolean;
}

export interface CommandsOptions {
  manifest: Manifest;
  transport: Transport;
  record: SubmissionRecord;
  /** The absolute workdir, resolved once. */
  workdir: () => Promise<string>;
  /** When the campaign began: accounting looks back to it. */
  since: string;
  now: () => string;
  warn: (message: string) => void;
}

export abstract class SlurmCommands {
  /** The user's jobs in the queue that are not the campaign's, as the queue last said. */
  others = 0;
  /** Whose word settles an ended task. */
  abstract readonly witness: EndWitness;
  /** Whether accounting answered when last asked: where it did not, a task that left the queue is judged by its output. */
  abstract readonly accountingOk: boolean;

  constructor(protected readonly opts: CommandsOptions) {}

  /** Jobs are named `<campaign>~<key>`. */
  protected get prefix(): string {
    return `${this.opts.manifest.campaign}~`;
  }

  /**
   * The partitions' caps; with a shell, the submit limit of the accounts and QOS `charges` name
   * (sacctmgr) and the user's jobs in the queue too; restricted, the configuration instead.
   */
  abstract readLimits(charges: readonly Charge[]): Promise<LimitsRead>;
  /** The cluster's configuration, at least its MaxArraySize. */
  abstract config(): Promise<string>;
  /** What `sbatch --test-only` refuses of these arrays; nothing is queued. */
  abstract testOnly(tested: readonly TestedArray[]): Promise<Refusal[]>;
  /** The user's jobs and array tasks in the queue now, the campaign's and the others (kept as `others`). */
  abstract recount(): Promise<{ own: number; others: number }>;
  /** The campaign's earlier submissions under `root`; undefined where they could not be read (said). */
  abstract readRecord(root: string): Promise<RecordRead | undefined>;
  /**
   * The markers of these submissions' tasks under `root` (none yet is no error): only those a
   * pass still waits on, so a long campaign's ended ones are not read again, nor do their files
   * swell one command's arguments past the system's limit.
   */
  abstract readMarkers(root: string, keys: readonly string[]): Promise<Map<string, TaskMarkers>>;
  /** Sends `group` as submission `key` under `root`, the script and its table in `files`. */
  abstract send(
    group: readonly Submission[],
    key: string,
    files: SbatchFiles,
    place: SubmissionPlace,
    root: string,
  ): Promise<SendOutcome>;
  /**
   * What the scheduler says: the campaign's jobs in the queue (every state: slurmctld keeps an
   * ended one for MinJobAge) where `queue`, and accounting's records of the array jobs `jobs`.
   * The queue failing (slurmctld restarting or overloaded) is a LinkError.
   */
  abstract ask(queue: boolean, jobs: ReadonlySet<string>): Promise<SchedulerAnswer>;

  /**
   * The script and its task table written to the submission's directory, side by side: over SFTP
   * each file is a few round trips of its own (on the test cluster, the directory and the three
   * files took 0.9 s of a campaign's start one after another, 0.5 s side by side). All have
   * ended, written or not, before it returns.
   */
  protected async upload(files: SbatchFiles, dir: string): Promise<void> {
    const t = this.opts.transport;
    await t.mkdirp(`${dir}/logs`);
    const written = await Promise.allSettled([
      t.writeFile(`${dir}/table.tsv`, files.table),
      ...(files.task === undefined ? [] : [t.writeFile(`${dir}/task.sh`, files.task)]),
      t.writeFile(`${dir}/job.sh`, files.script, { mode: 0o755 }),
    ]);
    const failed = written.find((w) => w.status === 'rejected');
    if (failed) throw failed.reason;
  }

  /** sbatch's answer; where the link failed, the record is read again before anything more is sent. */
  protected sbatch(sending: Promise<CommandResult>): Promise<CommandResult> {
    return sending.catch((e: unknown) => {
      // The job may be queued without our having heard its id: look again before sending anything.
      this.opts.record.forget();
      throw e;
    });
  }
}

/** sbatch's failure in its own words (the last lines), and whether it is worth trying again. */
export function sbatchFailure(r: CommandResult): { error: string; transient: boolean } {
  const error = (r.stderr.trim() || r.stdout.trim() || `sbatch exited ${r.code}`).split('\n').slice(-3).join(' ');
  return {
    error,
    transient: /temporarily|timed out|unable to contact|connection refused|try again|socket/i.test(error),
  };
}

/** An scontrol query's output, or the UserError it failed with. */
export function scontrolOutput(r: CommandResult): string {
  if (r.code !== 0)
    throw new UserError({
      message: `scontrol failed on the cluster: ${r.stderr.trim() || r.stdout.trim()}`,
      fix: 'check that Slurm is reachable from the login node',
    });
  return r.stdout;
}

/** The limit on jobs queued the manifest declares (cluster.max_jobs). */
export function declaredMaxJobs(manifest: Manifest): number | undefined {
  const cluster = manifest.cluster;
  return cluster.executor === 'slurm' ? cluster.max_jobs : undefined;
}
