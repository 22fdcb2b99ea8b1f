/**
 * The `local` executor: each attempt is a detached session on this machine, run by the shared
 * wrapper (render/wrapper.ts) that writes a pid file at start and an exit marker atomically at
 * the end, and enforces the walltime on the task's whole process group (so it holds even if the
 * controller dies). Attempts are watched by pid and marker, never by matching process lists.
 */
import { spawn } from 'node:child_process';
import { mkdir, readFile, rename, stat, writeFile } from 'node:fs/promises';
import { hostname } from 'node:os';
import { join } from 'node:path';
import type { TaskSpec } from '../../manifest/expand.js';
import type { Manifest } from '../../manifest/schema.js';
import { fullRecordExpectation } from '../../judge/checklist.js';
import type { Submission, TaskEvent } from '../../state/events.js';
import { classifyEnd } from '../../judge/attempt-end.js';
import type { Attempt } from '../../state/state.js';
import { manifestTaskEnv } from '../../render/task-env.js';
import { environmentWithoutSecrets } from '../secrets.js';
import { phaseOf, renderTaskScript, resumeEnv, scriptInputFor } from '../../render/task-script.js';
import {
  CANCEL_FILE,
  checkpointOf,
  parseExitMarker,
  renderCancel,
  renderWrapper,
  type ExitMarker,
} from '../../render/wrapper.js';
import { TransportWorkdir } from '../transport-workdir.js';
import { LocalTransport } from '../transport/local.js';
import { writeWholeFile } from '../transport/whole-file.js';
import { cancelFailed, type ActiveAttempt, type Executor } from '../executor.js';
import { processAlive, waitFor } from './process.js';

/** Seconds between SIGTERM at the walltime and SIGKILL. */
const KILL_AFTER = 10;

export interface LocalExecutorOptions {
  manifest: Manifest;
  /** Absolute workdir. */
  workdir: string;
  now?: () => string;
}

/** The campaign's attempt directories, relative to the workdir. */
export const localAttemptsDir = (campaign: string): string[] => ['.campaign', 'local', campaign, 'attempts'];

export class LocalExecutor implements Executor {
  private readonly maxParallel: number;
  private readonly now: () => string;
  /** The workdir, on this machine. */
  readonly workdir: TransportWorkdir;

  constructor(private readonly opts: LocalExecutorOptions) {
    this.maxParallel = opts.manifest.cluster.max_parallel ?? 2;
    // Its processes start at once: an output counts from the launch (before it, to the second).
    this.workdir = new TransportWorkdir(new LocalTransport({ environment: 'inherited' }), opts.manifest, {
      folder: localAttemptsDir(opts.manifest.campaign).slice(0, -1).join('/'),
      path: opts.workdir,
    });
    this.now = opts.now ?? (() => new Date().toISOString());
  }

  capacity(active: number): number {
    return Math.max(0, this.maxParallel - active);
  }

  /**
   * Stops the attempts with the script ssh-gpu runs on its server: SIGTERM to each one's
   * process group, SIGKILL after the grace period. Their ends (class `cancelled`) are reported
   * by the next observation.
   */
  async cancel(active: readonly ActiveAttempt[]): Promise<void> {
    const dirs = active.map((a) => this.attemptDir(a.task.id, a.attempt.n));
    const r = await new LocalTransport({ environment: 'inherited' }).exec(renderCancel(CANCEL_FILE, KILL_AFTER), {
      stdin: dirs.map((d) => `${d}\n`).join(''),
    });
    if (r.code !== 0) throw cancelFailed(r.code, r.stderr);
  }

  /**
   * Where one attempt keeps its script, pid, exit marker and log: under the campaign's own
   * directory, so that two campaigns sharing a workdir never see each other's attempts.
   */
  attemptDir(taskId: string, attempt: number): string {
    return join(
      this.opts.workdir,
      ...localAttemptsDir(this.opts.manifest.campaign),
      ...taskId.split('/'),
      String(attempt),
    );
  }

  async submit(submissions: readonly Submission[]): Promise<TaskEvent[]> {
    const events: TaskEvent[] = [];
    for (const sub of submissions) {
      const dir = this.attemptDir(sub.task.id, sub.attempt);
      const event = (at: string, pid: number): TaskEvent => ({
        type: 'submitted',
        task: sub.task.id,
        attempt: sub.attempt,
        at,
        handle: `pid:${pid}`,
        log: join(dir, 'log'),
        ...(sub.memBytes === undefined ? {} : { memBytes: sub.memBytes }),
      });
      const adopted = await this.adopt(dir, sub.task.definition);
      if (adopted) {
        events.push(event(adopted.at, adopted.pid));
        continue;
      }
      try {
        const at = await this.launch(sub, dir, this.now());
        const pid = await waitFor(() => readPid(dir), 10_000);
        events.push(pid === undefined ? failed(sub, at, 'the wrapper did not start within 10 s') : event(at, pid));
      } catch (e) {
        events.push(failed(sub, this.now(), (e as Error).message));
      }
    }
    return events;
  }

  /**
   * An attempt launched by an earlier pass under the same definition: its pid and launch time.
   * One of another definition (left by a state that was lost before the manifest changed) is
   * not this attempt: it is moved aside, never adopted.
   */
  private async adopt(dir: string, definition: string | undefined): Promise<{ pid: number; at: string } | undefined> {
    const at = await readFile(join(dir, 'launched'), 'utf8').catch(() => undefined);
    if (at === undefined) return undefined;
    const ranUnder = (await readFile(join(dir, 'definition'), 'utf8').catch(() => '')).trim();
    if (definition !== undefined && ranUnder !== definition) {
      await rename(dir, `${dir}.superseded-${Date.now()}`);
      return undefined;
    }
    // The wrapper writes its pid first thing; give a launch cut short by a crash a moment.
    const pid = await waitFor(() => readPid(dir), 3_000);
    return pid === undefined ? undefined : { pid, at: at.trim() };
  }

  /** Launches the attempt; returns its launch time, another controller's where it launched the attempt first. */
  private async launch(sub: Submission, dir: string, at: string): Promise<string> {
    await mkdir(dir, { recursive: true });
    const body = renderTaskScript(scriptInputFor(this.opts.manifest, sub.task, sub.index, undefined, sub.code));
    // Replaced by rename, never rewritten in place: a wrapper already running from an earlier,
    // slow launch keeps reading its own copy (and its claim makes this launch a no-op).
    await writeWholeFile(join(dir, 'task.sh'), body, { mode: 0o755 });
    await writeWholeFile(
      join(dir, 'wrapper.sh'),
      renderWrapper({
        dir,
        walltimeSeconds: sub.array.budget.seconds,
        killAfterSeconds: KILL_AFTER,
        checkpoint: checkpointOf(phaseOf(this.opts.manifest, sub.task)?.checkpoint),
      }),
      { mode: 0o755 },
    );
    if (sub.task.definition !== undefined) await writeFile(join(dir, 'definition'), `${sub.task.definition}\n`);
    // Two controllers on one campaign may launch one attempt at once: the wrapper's claim lets one
    // run, and the first launch time stays, since a later one would judge that run's output stale.
    // Linked whole into place, never created empty and then written: the other controller, reading
    // it between the two, took an empty time, and every output was stale by it.
    const launched = join(dir, 'launched');
    const first = await writeWholeFile(launched, `${at}\n`, { keepExisting: true });
    const env = {
      ...environmentWithoutSecrets(),
      ...manifestTaskEnv(this.opts.manifest, sub.task, sub.attempt, this.opts.workdir),
      ...resumeEnv(phaseOf(this.opts.manifest, sub.task), sub.resume),
    };
    const child = spawn('bash', [join(dir, 'wrapper.sh')], {
      detached: true,
      stdio: 'ignore',
      env,
      cwd: this.opts.workdir,
    });
    await new Promise<void>((resolve, reject) => {
      child.once('spawn', resolve);
      child.once('error', reject);
    });
    child.unref();
    return first ? at : (await readFile(launched, 'utf8')).trim();
  }

  async observe(active: readonly ActiveAttempt[]): Promise<TaskEvent[]> {
    const events: TaskEvent[] = [];
    for (const { task, attempt, walltimeSeconds } of active) {
      const dir = this.attemptDir(task.id, attempt.n);
      const base = { task: task.id, attempt: attempt.n };
      let marker = await readExit(dir, this.now());
      if (marker === undefined) {
        const pid = await readPid(dir);
        if (pid !== undefined && (await processAlive(pid, join(dir, 'wrapper.sh')))) {
          // The pid file is written as the wrapper starts: its time is the start, not this pass's.
          if (!attempt.startedAt) events.push({ type: 'started', ...base, at: (await pidTime(dir)) ?? this.now() });
          continue;
        }
        marker = await readExit(dir, this.now()); // it may have ended between the two reads
        if (marker === undefined) {
          events.push({
            type: 'finished',
            ...base,
            at: this.now(),
            class: 'lost',
            reason: 'the process is gone and left no exit marker',
          });
          continue;
        }
      }
      if (!attempt.startedAt) events.push({ type: 'started', ...base, at: marker.startedAt ?? marker.at });
      const log = await this.readLog(task, attempt);
      const { cls, reason } = await this.classify(task, attempt, marker, log, walltimeSeconds);
      events.push({
        type: 'finished',
        ...base,
        at: marker.at,
        class: cls,
        exitCode: marker.code,
        ...(reason ? { reason } : {}),
        node: hostname(),
      });
    }
    return events;
  }

  private async classify(
    task: TaskSpec,
    attempt: Attempt,
    marker: ExitMarker,
    log: string,
    walltimeSeconds: number,
  ): Promise<ReturnType<typeof classifyEnd>> {
    const expect = fullRecordExpectation(this.opts.manifest, task);
    // Warned, its output tells a finished command from one that saved and stopped, whatever its status.
    const judged = marker.code === 0 || marker.warnedAt !== undefined;
    const out =
      task.output === undefined || !judged ? undefined : await this.workdir.outputFacts(task, attempt, !!expect);
    const records = expect && out?.text !== undefined ? { expect, text: out.text } : undefined;
    return classifyEnd({
      marker,
      log,
      walltimeSeconds,
      // Exit status 137 alone marks an out-of-memory end here: no GPU, no CUDA messages.
      oomPatterns: [],
      ...(out ? { output: { path: task.output!, ...out } } : {}),
      ...(records ? { records } : {}),
    });
  }

  async readLog(task: TaskSpec, attempt: Attempt): Promise<string> {
    return readFile(await this.logPath(task, attempt), 'utf8').catch(() => '');
  }

  async logPath(task: TaskSpec, attempt: Attempt): Promise<string> {
    return join(this.attemptDir(task.id, attempt.n), 'log');
  }

  async close(): Promise<void> {}
}

/**
 * Writes by rename from a temporary file of a fresh name, created exclusively (O_EXCL): a
 * symlink a task planted where the temporary file goes is never written through, and the
 * rename replaces one planted at the path itself.
 */
function failed(sub: Submission, at: string, reason: string): TaskEvent {
  return { type: 'submit_failed', task: sub.task.id, attempt: sub.attempt, at, reason };
}

async function pidTime(dir: string): Promise<string | undefined> {
  const st = await stat(join(dir, 'pid')).catch(() => undefined);
  return st ? st.mtime.toISOString() : undefined;
}

async function readPid(dir: string): Promise<number | undefined> {
  const text = await readFile(join(dir, 'pid'), 'utf8').catch(() => '');
  const pid = Number.parseInt(text, 10);
  return Number.isInteger(pid) && pid > 0 ? pid : undefined;
}

/** The exit marker (render/wrapper.ts), written by rename so it is whole or absent. */
async function readExit(dir: string, now: string): Promise<ExitMarker | undefined> {
  const text = await readFile(join(dir, 'exit'), 'utf8').catch(() => undefined);
  return text === undefined ? undefined : parseExitMarker(text, now);
}
