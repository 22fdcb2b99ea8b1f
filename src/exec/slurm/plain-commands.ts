/**
 * The Slurm executor's commands on an automation node (`cluster.restricted`): every command is
 * one allowed command of plain words (scontrol, squeue, sbatch, scancel, cat, id) and files go
 * by SFTP, or, where the key allows none (`restricted: slurm`), scripts go to sbatch on its
 * standard input. There is no sacct: the queue (`squeue -t all`, which keeps an ended job for
 * MinJobAge) is the witness of an ended task, with its markers where the queue cannot tell
 * (ask-plan.ts, marker-class.ts).
 */
import { UserError } from '../../errors.js';
import { EXECUTOR_KINDS } from '../../plan/executor-kinds.js';
import { TABLE_HEADER, submissionFiles, type SbatchFiles } from '../../render/sbatch.js';
import type { Submission } from '../../state/events.js';
import { askedOnce } from '../asked-once.js';
import { LinkError } from '../transport/transport.js';
import { mergeRecords, parseSqueue, SQUEUE_FORMAT, type JobRecord } from './accounting.js';
import { QUEUE } from './ask-plan.js';
import {
  SlurmCommands,
  sbatchFailure,
  scontrolOutput,
  type CommandsOptions,
  type LimitsRead,
  type SchedulerAnswer,
  type SendOutcome,
  type SubmissionPlace,
} from './commands.js';
import { markersGlob, parseMarkers, type TaskMarkers } from './markers.js';
import type { RecordRead, TableSection } from './record.js';
import { othersQueued, queueCount } from './submit-limit.js';
import { testedIndices, testOnlyRefusals, type Refusal, type TestedArray } from './test-only.js';

/** Submissions whose markers one `cat` reads: each is a pattern the node expands into up to 2 × MaxArraySize paths. */
const MARKER_GLOBS_PER_COMMAND = 16;

export class PlainCommands extends SlurmCommands {
  readonly witness = QUEUE;
  // There is no accounting to wait for: an ended task is judged by the queue and its markers.
  readonly accountingOk = false;
  /** `noTransfer`: the login allows no file transfer (restricted: slurm); scripts go to sbatch on its standard input. */
  constructor(
    opts: CommandsOptions,
    private readonly noTransfer: boolean,
  ) {
    super(opts);
  }

  /** `scontrol show config` and `scontrol show partition -o`, each a plain command; no sacctmgr. */
  async readLimits(): Promise<LimitsRead> {
    await this.checkPlainWorkdir();
    const config = await this.config();
    // Passes come at most the longest poll apart: a job the queue forgets sooner is judged by its markers alone.
    const age = Number(/^MinJobAge\s*=\s*(\d+)/m.exec(config)?.[1] ?? NaN);
    const longest = EXECUTOR_KINDS.slurm.pollSeconds[1];
    if (age > 0 && age < 2 * longest)
      this.opts.warn(
        `the cluster forgets an ended job after ${age}s (MinJobAge), sooner than two passes: most ends will be judged by the tasks' markers (a cancel and a preemption then look alike)`,
      );
    return {
      config,
      partitions: scontrolOutput(await this.opts.transport.run(['scontrol', 'show', 'partition', '-o'])),
    };
  }

  async config(): Promise<string> {
    return scontrolOutput(await this.opts.transport.run(['scontrol', 'show', 'config']));
  }

  /** One plain sbatch per array, its script on standard input: nothing to upload first. */
  async testOnly(tested: readonly TestedArray[]): Promise<Refusal[]> {
    const answers = [];
    for (const a of tested) {
      const r = await this.opts.transport.run(['sbatch', '--test-only', testedIndices(a)], {
        stdin: a.script,
        timeoutMs: 30_000,
      });
      answers.push({ code: r.code, output: `${r.stdout}\n${r.stderr}` });
    }
    return testOnlyRefusals(tested, answers);
  }

  async recount(): Promise<{ own: number; others: number }> {
    const r = await this.opts.transport.run(['squeue', '-h', '-r', '-u', await this.userName(), '-o', '%j@%T']);
    if (r.code !== 0) throw new LinkError(`squeue failed on the cluster: ${r.stderr.trim() || `exit ${r.code}`}`);
    const count = queueCount(r.stdout.split('\n'), this.prefix, false);
    this.others = count.others;
    return count;
  }

  /**
   * The record without sacct: the task tables (each names its submission on its first line),
   * with the job of each from the queue (pending, running, or ended within MinJobAge) or, for
   * a job the queue has forgotten, from the markers its tasks left (which name their job).
   * An attempt whose job is in neither never ran and is not on record.
   */
  async readRecord(root: string): Promise<RecordRead> {
    const jobs = new Map<string, string>();
    for (const q of await this.queue()) jobs.set(q.name.slice(this.prefix.length), q.handle.split('_')[0]!);
    const tables = await this.opts.transport.run(['cat', { glob: `${root}/*/table.tsv` }]);
    let text = tables.stdout;
    const listed = new Set([...text.matchAll(new RegExp(TABLE_HEADER.source, 'gm'))].map((m) => m[1]!));
    const forgotten = [...listed].filter((key) => !jobs.has(key));
    for (const m of (await this.readMarkers(root, forgotten)).values()) if (!jobs.has(m.key)) jobs.set(m.key, m.jobId);
    // A job sent on sbatch's standard input that has not started has left no table yet: its
    // script, which the scheduler keeps, carries it.
    for (const [key, jobId] of jobs) {
      if (listed.has(key)) continue;
      const script = await this.opts.transport.run(['scontrol', 'write', 'batch_script', jobId, '-']);
      if (script.code === 0) text += `\n${script.stdout}`;
    }
    const sections: TableSection[] = [];
    for (const line of text.split('\n')) {
      const named = TABLE_HEADER.exec(line);
      if (named) sections.push({ key: named[1]!, lines: [] });
      else sections.at(-1)?.lines.push(line);
    }
    return { jobs, sections };
  }

  /** 16 submissions to a `cat` (patterns the node expands). */
  async readMarkers(root: string, keys: readonly string[]): Promise<Map<string, TaskMarkers>> {
    if (keys.length === 0) return new Map();
    const globs = keys.map((k) => markersGlob(root, k));
    let text = '';
    for (let i = 0; i < globs.length; i += MARKER_GLOBS_PER_COMMAND) {
      const words = globs.slice(i, i + MARKER_GLOBS_PER_COMMAND).map((glob) => ({ glob }));
      text += (await this.opts.transport.run(['cat', ...words])).stdout;
    }
    return parseMarkers(text);
  }

  async send(
    group: readonly Submission[],
    _key: string,
    files: SbatchFiles,
    place: SubmissionPlace,
  ): Promise<SendOutcome> {
    const t = this.opts.transport;
    if (!this.noTransfer) await this.upload(files, place.dir);
    const r = await this.sbatch(
      this.noTransfer
        ? // No file transfer: the script, its table within, goes on sbatch's standard input.
          t.run(['sbatch', '--parsable'], {
            stdin: submissionFiles(this.opts.manifest, group, { ...place, selfContained: true }).script,
          })
        : t.run(['sbatch', '--parsable', `${place.dir}/job.sh`]),
    );
    const jobId = /^(\d+)/.exec(r.stdout.trim())?.[1];
    if (r.code === 0 && jobId) return { jobId };
    return sbatchFailure(r);
  }

  async ask(queue: boolean): Promise<SchedulerAnswer> {
    const queued = queue ? await this.queue() : [];
    this.opts.record.remember(queued);
    return { records: mergeRecords([], queued), acctOk: false };
  }

  /** The campaign's jobs in the queue, every state (plain `squeue`, times as the queue prints them). */
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

  /** The login's user name (no `$(id -un)` in a command), asked once. */
  private readonly userName = askedOnce(async () => {
    const r = await this.opts.transport.run(['id', '-un']);
    const user = r.stdout.trim();
    if (r.code !== 0 || !/^[A-Za-z0-9._-]+$/.test(user)) {
      throw new LinkError(`id -un failed on the cluster: ${r.stderr.trim() || `exit ${r.code}`}`);
    }
    return user;
  });

  /**
   * Every path is a plain word of a command: an automation node's wrapper would split a blank
   * and expand a `*`. Said before anything is sent.
   */
  private async checkPlainWorkdir(): Promise<void> {
    const workdir = await this.opts.workdir();
    if (/^[A-Za-z0-9_.,:=%@+/-]+$/.test(workdir)) return;
    throw new UserError({
      message: `the workdir ${workdir} holds characters an automation node's forced command would split or expand (blanks, quotes, *, ?, $ and the like)`,
      fix: 'give a workdir of letters, digits and . _ - / only',
    });
  }
}
