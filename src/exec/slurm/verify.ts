/**
 * What an ended Slurm task's own traces say of the scheduler's verdict: completion proven by a
 * fresh output (and its records), a failure explained by its log (a gate, memory, a full disk),
 * an end after the checkpoint signal taken for a continuation. The scheduler says how a job
 * ended; this says whether the task did its work.
 */
import type { TaskSpec } from '../../manifest/expand.js';
import { afterWarning, diskFull, recordsVerdict } from '../../judge/attempt-end.js';
import { gateShortfall } from '../../judge/shortfall.js';
import { GATE_EXIT, GATE_LINE } from '../../render/task-script.js';
import type { Attempt, FailureClass } from '../../state/state.js';
import type { TransportWorkdir, OutputFreshness } from '../transport-workdir.js';
import type { Transport } from '../transport/transport.js';
import { isJobLog } from './handles.js';
import { killedForMemory } from './marker-class.js';

const LOG_LIMIT = 16 * 1024 * 1024;

export type EndClass = 'completed' | FailureClass;

/** A class of end, with why where there is more to say. */
export interface EndVerdict {
  cls: EndClass;
  reason?: string;
}

export class Verification {
  constructor(
    private readonly transport: Transport,
    private readonly workdir: TransportWorkdir,
    /** Where the campaign's job directories are. */
    private readonly root: () => Promise<string>,
  ) {}

  /** Completion is proven by the output; a failure whose log names a gate is that gate's. */
  async verify(
    task: TaskSpec,
    attempt: Attempt,
    cls: EndClass,
    reason: string | undefined,
    exitCode: number | undefined,
  ): Promise<EndVerdict> {
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
    return recordsVerdict('COMPLETED', task.output, await this.workdir.records(task, out)) ?? { cls: 'completed' };
  }

  /**
   * An attempt its checkpoint signal reached (its warn marker is there): ended without its
   * output, whatever its status, it is a continuation (judge/attempt-end.ts).
   */
  async warned(
    task: TaskSpec,
    attempt: Attempt,
    warnedAt: string | undefined,
    endedAt: string,
    exitCode: number | undefined,
    verdict: EndVerdict,
  ): Promise<EndVerdict> {
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
    const log = await this.logPath(attempt);
    if (log === undefined) return '';
    return (await this.transport.readFile(log, { maxBytes: LOG_LIMIT }).catch(() => undefined)) ?? '';
  }

  /** The job's log as Slurm reported it, only where this executor's layout puts logs. */
  async logPath(attempt: Attempt): Promise<string | undefined> {
    return attempt.log && isJobLog(await this.root(), attempt.log) ? attempt.log : undefined;
  }

  /** Both times are the cluster's: the job's start from accounting, the file's mtime. */
  freshness(task: TaskSpec, attempt: Attempt): Promise<OutputFreshness> {
    return this.workdir.freshness(task, this.workdir.since(attempt));
  }
}
