/**
 * A test-only executor kind: each attempt is `bash task.sh` started by an in-process "machine"
 * that outlives the executors opened on it, as a scheduler outlives a controller. The machine
 * keeps its jobs in memory, keyed by campaign, generation, task and attempt; an executor finds
 * them there after a crash. Scripts, logs, outputs, claims and provenance are in a real workdir
 * on this machine, under `.campaign/memory/<campaign>/`, which `--fresh` moves aside.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { createHash } from 'node:crypto';
import { mkdir, open, readFile, realpath, rename, rm, stat, writeFile, link } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fullRecordExpectation, type OutputFacts } from '../../../../src/judge/checklist.js';
import { classifyEnd } from '../../../../src/judge/attempt-end.js';
import type { TaskSpec } from '../../../../src/manifest/expand.js';
import type { Manifest } from '../../../../src/manifest/schema.js';
import { manifestTaskEnv } from '../../../../src/render/env.js';
import { parseSetAside, renderSetAside, type SetAsideResult } from '../../../../src/render/set-aside.js';
import { renderTaskScript, resumeEnv, phaseOf, scriptInputFor } from '../../../../src/render/task-script.js';
import type { ExitMarker } from '../../../../src/render/wrapper.js';
import type { TakeFile } from '../../../../src/report/results/gathering.js';
import type { Submission, TaskEvent } from '../../../../src/state/events.js';
import type { Attempt } from '../../../../src/state/state.js';
import { removeSnapshotsHere, shipHere, type CodeSnapshot } from '../../../../src/exec/code-ship.js';
import type { ActiveAttempt, Executor } from '../../../../src/exec/executor.js';
import { gatherEach } from '../../../../src/exec/gather.js';
import { GenerationRecord } from '../../../../src/exec/generation.js';
import { setAsideOrThrow } from '../../../../src/exec/remote-workdir.js';
import { environmentWithoutSecrets } from '../../../../src/exec/secrets.js';
import { LocalTransport } from '../../../../src/exec/transport/local.js';
import { tempPathFor } from '../../../../src/exec/transport/transport.js';

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

const TEXT_LIMIT = 64 * 1024 * 1024;

export class MemoryExecutor implements Executor {
  readonly generation: GenerationRecord;
  private readonly campaignDir: string;

  constructor(private readonly opts: MemoryExecutorOptions) {
    this.campaignDir = `.campaign/memory/${opts.manifest.campaign}`;
    this.generation = new GenerationRecord(this, `${this.campaignDir}/generation`);
  }

  capacity(active: number): number {
    return Math.max(0, (this.opts.manifest.cluster.max_parallel ?? 2) - active);
  }

  /**
   * The machine's key of an attempt: of the campaign's generation as the workdir records it, so
   * that a fresh start never finds the last one's.
   */
  private async key(task: string, attempt: number): Promise<string> {
    const generation = this.generation.last ?? (await this.generation.read()) ?? '';
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
          : await this.freshOutput(task, job.submittedAt, !!expect);
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

  outputFacts(task: TaskSpec, attempt: Attempt, withText: boolean): Promise<OutputFacts> {
    return this.freshOutput(task, attempt.submittedAt, withText);
  }

  private async freshOutput(task: TaskSpec, since: string, withText: boolean): Promise<OutputFacts> {
    if (task.output === undefined) return { exists: false, fresh: false };
    const path = join(this.opts.workdir, task.output);
    const st = await stat(path).catch(() => undefined);
    if (!st?.isFile()) return { exists: false, fresh: false };
    const real = await realpath(path);
    if (real !== join(await realpath(this.opts.workdir), task.output))
      return { exists: true, fresh: false, linkedTo: real };
    const fresh = st.mtimeMs >= Math.floor(Date.parse(since) / 1000) * 1000;
    const bytes = await readFile(path);
    const digest = createHash('sha256').update(bytes).digest('hex');
    const text = withText && st.size <= TEXT_LIMIT ? bytes.toString('utf8') : undefined;
    return { exists: true, fresh, digest, ...(text === undefined ? {} : { text }) };
  }

  runCheck(task: TaskSpec, command: string): Promise<{ exitCode: number; tail: string }> {
    const env = { ...environmentWithoutSecrets(), ...manifestTaskEnv(this.opts.manifest, task, 0, this.opts.workdir) };
    return new Promise((resolve) => {
      const child = spawn('bash', ['-c', command], { cwd: this.opts.workdir, env, stdio: ['ignore', 'pipe', 'pipe'] });
      let out = '';
      const keep = (b: Buffer): void => {
        out = (out + b.toString()).slice(-4000);
      };
      child.stdout.on('data', keep);
      child.stderr.on('data', keep);
      child.on('error', (e) => resolve({ exitCode: 127, tail: e.message }));
      child.on('close', (code) => resolve({ exitCode: code ?? 128, tail: out }));
    });
  }

  async missing(paths: readonly string[]): Promise<string[]> {
    const gone: string[] = [];
    for (const p of paths) if (!(await stat(join(this.opts.workdir, p)).catch(() => undefined))) gone.push(p);
    return gone;
  }

  async writeFiles(files: readonly { path: string; text: string }[]): Promise<string[]> {
    const failed: string[] = [];
    for (const f of files) {
      const path = join(this.opts.workdir, f.path);
      const temp = tempPathFor(path);
      try {
        await mkdir(dirname(path), { recursive: true });
        await writeFile(temp, f.text, { mode: 0o644, flag: 'wx' });
        await rename(temp, path);
      } catch {
        await rm(temp, { force: true });
        failed.push(f.path);
      }
    }
    return failed;
  }

  /** Written whole where nothing is at the path (a hard link is refused where something is). */
  async createFile(path: string, text: string): Promise<boolean> {
    const to = join(this.opts.workdir, path);
    await mkdir(dirname(to), { recursive: true });
    const temp = tempPathFor(to);
    try {
      await writeFile(temp, text, { mode: 0o644, flag: 'wx' });
      await link(temp, to);
      return true;
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'EEXIST') return false;
      throw e;
    } finally {
      await rm(temp, { force: true });
    }
  }

  readFile(path: string): Promise<string | undefined> {
    return readFile(join(this.opts.workdir, path), 'utf8').catch(() => undefined);
  }

  gather(paths: readonly string[], known: ReadonlyMap<string, string>, _ends: boolean, take: TakeFile): Promise<void> {
    return gatherEach(new LocalTransport(), this.opts.workdir, paths, known, take);
  }

  async setAside(dest: string): Promise<SetAsideResult> {
    const command = renderSetAside({
      workdir: this.opts.workdir,
      campaign: this.opts.manifest.campaign,
      attempts: this.campaignDir,
      dest,
    });
    const r = await new LocalTransport({ environment: 'inherited' }).exec(command);
    return setAsideOrThrow(parseSetAside(dest, r), this.opts.workdir);
  }

  shipCode(snapshot: CodeSnapshot): Promise<void> {
    return shipHere(this.opts.workdir, snapshot);
  }

  removeCode(keep: ReadonlySet<string>): Promise<string[]> {
    return removeSnapshotsHere(this.opts.workdir, keep);
  }

  async close(): Promise<void> {}
}
