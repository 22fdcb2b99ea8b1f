/**
 * A test-only executor kind: each attempt is `bash task.sh` started by an in-process "machine"
 * that outlives the executors opened on it, as a scheduler outlives a controller. The machine
 * keeps its jobs in memory, keyed by campaign, generation, task and attempt; an executor finds
 * them there after a crash. Scripts, logs, outputs, claims and provenance are in a real workdir
 * on this machine, under `.campaign/memory/<campaign>/`, which `--fresh` moves aside.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { mkdir, open, readFile, rename, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fullRecordExpectation } from '../../../../src/judge/checklist.js';
import { classifyEnd } from '../../../../src/judge/attempt-end.js';
import type { TaskSpec } from '../../../../src/manifest/expand.js';
import type { Manifest } from '../../../../src/manifest/schema.js';
import { manifestTaskEnv } from '../../../../src/render/task-env.js';
import { renderTaskScript, resumeEnv, phaseOf, scriptInputFor } from '../../../../src/render/task-script.js';
import type { ExitMarker } from '../../../../src/render/wrapper.js';
import type { Submission, TaskEvent } from '../../../../src/state/events.js';
import type { Attempt } from '../../../../src/state/state.js';
import type { ActiveAttempt, Executor } from '../../../../src/exec/executor.js';
import { TransportWorkdir } from '../../../../src/exec/transport-workdir.js';
import { environmentWithoutSecrets } from '../../../../src/exec/secrets.js';
import { LocalTransport } from '../../../../src/exec/transport/local.js';

/** One attempt as the machine runs it. */
interface Job {
  definition: string | undefined;
  /** Its number on the machine: the attempt's handle. */
  id: number;
  dir: string;
  submittedAt: string;
  child: ChildProcess;
  startedAt?: string;
  end?: ExitMarker;
  cancelled: boolean;
  timedOut: boolean;
}

/** The jobs of every executor opened on it; it lasts as long as the test file's process. */
export class Machine {
  private readonly jobs = new Map<string, Job>();
  private next = 1;

  find(key: string): Job | undefined {
    return this.jobs.get(key);
  }

  /** Starts `bash script` in `cwd`, its output to `log`, as a process group of its own. */
  async start(
    key: string,
    job: { definition: string | undefined; dir: string; submittedAt: string },
    run: { script: string; cwd: string; env: NodeJS.ProcessEnv; log: string; walltimeSeconds: number },
  ): Promise<Job> {
    const out = await open(run.log, 'w');
    const child = spawn('bash', [run.script], {
      cwd: run.cwd,
      env: run.env,
      detached: true,
      stdio: ['ignore', out.fd, out.fd],
    });
    const j: Job = { ...job, id: this.next++, child, cancelled: false, timedOut: false };
    this.jobs.set(key, j);
    const timer = setTimeout(() => {
      j.timedOut = true;
      this.signal(j, 'SIGTERM');
    }, run.walltimeSeconds * 1000);
    timer.unref();
    // Listened for at once: a short task may end before the spawn is awaited.
    child.once('exit', (code, signal) => {
      clearTimeout(timer);
      j.end = {
        code: code ?? 128 + (signal === 'SIGKILL' ? 9 : 15),
        at: new Date().toISOString(),
        startedAt: j.startedAt ?? new Date().toISOString(),
        cause: j.cancelled ? 'cancel' : j.timedOut ? 'walltime' : 'exit',
      };
      // Beside its log, as the other kinds leave it: an attempt set aside keeps how it ended.
      writeFileSync(join(j.dir, 'exit'), `${j.end.code} ${j.end.cause}\n`);
    });
    try {
      await new Promise<void>((resolve, reject) => {
        child.once('spawn', resolve);
        child.once('error', reject);
      });
      j.startedAt ??= new Date().toISOString();
    } finally {
      await out.close();
    }
    return j;
  }

  /** SIGTERM (or `sig`) to the job's whole process group. */
  signal(job: Job, sig: NodeJS.Signals): void {
    if (job.end !== undefined || job.child.pid === undefined) return;
    try {
      process.kill(-job.child.pid, sig);
    } catch {
      // Ended meanwhile.
    }
  }
}

export interface MemoryExecutorOptions {
  manifest: Manifest;
  /** Absolute workdir on this machine. */
  workdir: string;
  machine: Machine;
}

export class MemoryExecutor implements Executor {
  private readonly campaignDir: string;
  /** The workdir on this machine, the one every kind shares over its transport. */
  readonly workdir: TransportWorkdir;

  constructor(private readonly opts: MemoryExecutorOptions) {
    this.campaignDir = `.campaign/memory/${opts.manifest.campaign}`;
    this.workdir = new TransportWorkdir(new LocalTransport({ environment: 'inherited' }), opts.manifest, {
      folder: this.campaignDir,
      path: opts.workdir,
    });
  }

  capacity(active: number): number {
    return Math.max(0, (this.opts.manifest.cluster.max_parallel ?? 2) - active);
  }

  /**
   * The machine's key of an attempt: of the campaign's generation as the workdir records it, so
   * that a fresh start never finds the last one's.
   */
  private async key(task: string, attempt: number): Promise<string> {
    const generation = this.workdir.generation.last ?? (await this.workdir.generation.read()) ?? '';
    return [this.opts.workdir, this.opts.manifest.campaign, generation, task, attempt].join('\0');
  }

  private attemptDir(task: string, attempt: number): string {
    return join(this.opts.workdir, this.campaignDir, 'attempts', ...task.split('/'), String(attempt));
  }

  async submit(submissions: readonly Submission[]): Promise<TaskEvent[]> {
    const events: TaskEvent[] = [];
    for (const sub of submissions) {
      const key = await this.key(sub.task.id, sub.attempt);
      const dir = this.attemptDir(sub.task.id, sub.attempt);
      let job = this.opts.machine.find(key);
      // One of another definition (its state lost before the manifest changed) is not this attempt.
      if (job !== undefined && job.definition !== sub.task.definition) {
        await rename(dir, `${dir}.superseded-${job.id}`);
        job = undefined;
      }
      if (job === undefined) {
        const at = new Date().toISOString();
        await mkdir(dir, { recursive: true });
        const script = join(dir, 'task.sh');
        const m = this.opts.manifest;
        await writeFile(script, renderTaskScript(scriptInputFor(m, sub.task, sub.index, undefined, sub.code)));
        if (sub.task.definition !== undefined) await writeFile(join(dir, 'definition'), `${sub.task.definition}\n`);
        const env = {
          ...environmentWithoutSecrets(),
          ...manifestTaskEnv(m, sub.task, sub.attempt, this.opts.workdir),
          ...resumeEnv(phaseOf(m, sub.task), sub.resume),
        };
        try {
          job = await this.opts.machine.start(
            key,
            { definition: sub.task.definition, dir, submittedAt: at },
            { script, cwd: this.opts.workdir, env, log: join(dir, 'log'), walltimeSeconds: sub.array.budget.seconds },
          );
        } catch (e) {
          events.push({
            type: 'submit_failed',
            task: sub.task.id,
            attempt: sub.attempt,
            at,
            reason: (e as Error).message,
          });
          continue;
        }
      }
      events.push({
        type: 'submitted',
        task: sub.task.id,
        attempt: sub.attempt,
        at: job.submittedAt,
        handle: `memory:${job.id}`,
        log: join(job.dir, 'log'),
        ...(sub.memBytes === undefined ? {} : { memBytes: sub.memBytes }),
      });
    }
    return events;
  }

  async observe(active: readonly ActiveAttempt[]): Promise<TaskEvent[]> {
    const events: TaskEvent[] = [];
    for (const { task, attempt, walltimeSeconds } of active) {
      const base = { task: task.id, attempt: attempt.n };
      const job = this.opts.machine.find(await this.key(task.id, attempt.n));
      if (job === undefined) {
        events.push({
          type: 'finished',
          ...base,
          at: new Date().toISOString(),
          class: 'lost',
          reason: 'the machine has no such job',
        });
        continue;
      }
      if (!attempt.startedAt && job.startedAt) events.push({ type: 'started', ...base, at: job.startedAt });
      const end = job.end;
      if (end === undefined) continue;
      const log = await this.readLog(task, attempt);
      const expect = fullRecordExpectation(this.opts.manifest, task);
      const out =
        task.output === undefined || end.code !== 0
          ? undefined
          : await this.workdir.outputFacts(task, attempt, !!expect);
      const { cls, reason } = classifyEnd({
        marker: end,
        log,
        walltimeSeconds,
        oomPatterns: [],
        ...(out ? { output: { path: task.output!, ...out } } : {}),
        ...(expect && out?.text !== undefined ? { records: { expect, text: out.text } } : {}),
      });
      events.push({
        type: 'finished',
        ...base,
        at: end.at,
        class: cls,
        exitCode: end.code,
        ...(reason ? { reason } : {}),
      });
    }
    return events;
  }

  async cancel(active: readonly ActiveAttempt[]): Promise<void> {
    for (const a of active) {
      const job = this.opts.machine.find(await this.key(a.task.id, a.attempt.n));
      if (job === undefined || job.end !== undefined) continue;
      job.cancelled = true;
      this.opts.machine.signal(job, 'SIGTERM');
      setTimeout(() => this.opts.machine.signal(job, 'SIGKILL'), 10_000).unref();
    }
  }

  async readLog(task: TaskSpec, attempt: Attempt): Promise<string> {
    return readFile(await this.logPath(task, attempt), 'utf8').catch(() => '');
  }

  async logPath(task: TaskSpec, attempt: Attempt): Promise<string> {
    return join(this.attemptDir(task.id, attempt.n), 'log');
  }

  async close(): Promise<void> {}
}
