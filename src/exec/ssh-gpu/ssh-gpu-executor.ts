/**
 * The `ssh-gpu` executor: a lab GPU server with no scheduler, over a transport (SSH, or this
 * machine). Each attempt runs under the shared wrapper (render/wrapper.ts) as a session of its
 * own, started with `setsid`, pinned by `CUDA_VISIBLE_DEVICES` (GPU UUIDs, exported for the whole
 * task) to GPUs the probe reads as free. Everything of an attempt lives in
 * `<workdir>/.campaign/ssh-gpu/<campaign>/attempts/<task id>/<attempt>/`, so two campaigns never
 * touch each other's tasks. Each pass sends one command that runs the probe (with a timeout) and
 * reads every active attempt's pid and exit marker.
 */
import { UserError } from '../../errors.js';
import type { TaskSpec } from '../../manifest/expand.js';
import type { Pattern } from '../../manifest/pattern.js';
import type { Manifest } from '../../manifest/schema.js';
import { parseDuration, parseSize } from '../../manifest/units.js';
import { classifyEnd, oomPatterns } from '../../judge/attempt-end.js';
import type { OutputFacts } from '../../judge/checklist.js';
import type { Submission, TaskEvent } from '../../state/events.js';
import {
  DEFAULT_PROBE,
  gpuStatus,
  parseProbe,
  placeTasks,
  waveMayStart,
  type GpuStatus,
  type ProbeTable,
} from '../../decide/gpu.js';
import type { Attempt } from '../../state/state.js';
import { manifestTaskEnv } from '../../render/env.js';
import { exportLines, shellQuote } from '../../render/shell.js';
import { renderLaunch, renderQuery } from '../../render/ssh-gpu.js';
import { renderTaskScript, scriptInputFor } from '../../render/task-script.js';
import { CANCEL_FILE, parseExitMarker, renderCancel, renderWrapper } from '../../render/wrapper.js';
import type { SetAsideResult } from '../../render/set-aside.js';
import type { ActiveAttempt, Executor } from '../executor.js';
import type { TakeFile } from '../../report/results/gathering.js';
import { cancelFailed, RemoteWorkdir } from '../remote-workdir.js';
import type { Transport } from '../transport/transport.js';

type SshGpuCluster = Extract<Manifest['cluster'], { executor: 'ssh-gpu' }>;

const MIB = 1024 * 1024;
const DEFAULT_FREE_BELOW_MIB = 500;
const DEFAULT_PROBE_TIMEOUT_S = 20;
/** Seconds between SIGTERM and SIGKILL, at the walltime, a cancel, or for what a task left behind. */
const KILL_AFTER_S = 10;
/** A probe reading older than this is taken again before GPUs are chosen. */
const VIEW_MAX_AGE_MS = 5_000;
/** Failed probes in a row after which waiting tasks stop waiting and fail (every wait is bounded). */
const PROBE_GIVE_UP = 20;
/** Logs up to this size are read whole; larger ones are searched on the server. */
const LOG_LIMIT = 64 * MIB;

export interface SshGpuExecutorOptions {
  manifest: Manifest;
  transport: Transport;
  warn?: (message: string) => void;
  now?: () => string;
  /** Seconds between SIGTERM and SIGKILL. */
  killAfterSeconds?: number;
}

/** What the last look at the server saw. */
interface View {
  at: number;
  table?: ProbeTable;
  /** Why there is no table (the probe failed or hung). */
  error?: string;
  /** GPUs the current wave was started on. */
  wave: string[];
}

/** `pid:<pid> gpu:<uuid,…>`: the handle records the GPUs, so a restarted controller knows what is held. */
const handleOf = (pid: string, gpus: readonly string[]): string =>
  `pid:${pid} gpu:${gpus.length > 0 ? gpus.join(',') : '-'}`;
export const gpusOfHandle = (handle: string | undefined): string[] =>
  (/ gpu:(\S+)$/.exec(handle ?? '')?.[1] ?? '-').split(',').filter((u) => u !== '-' && u !== '');

export class SshGpuExecutor implements Executor {
  private readonly cluster: SshGpuCluster;
  private readonly now: () => string;
  private readonly warn: (message: string) => void;
  private readonly workdir: RemoteWorkdir;
  private readonly freeBelowMiB: number;
  private readonly probeTimeoutS: number;
  private readonly killAfterS: number;
  private readonly patterns: Pattern[];
  private view: View | undefined;
  /** Probes that have failed in a row. */
  private probeFailures = 0;
  /** GPUs held by this campaign's active attempts, as of the last observation. */
  private held = new Set<string>();
  private warned = new Set<string>();

  constructor(private readonly opts: SshGpuExecutorOptions) {
    if (opts.manifest.cluster.executor !== 'ssh-gpu') throw new Error('SshGpuExecutor needs an ssh-gpu manifest');
    this.cluster = opts.manifest.cluster;
    this.now = opts.now ?? (() => new Date().toISOString());
    this.warn = opts.warn ?? (() => {});
    this.workdir = new RemoteWorkdir(opts.transport, opts.manifest);
    const below = this.cluster.gpu_free_below;
    this.freeBelowMiB = below === undefined ? DEFAULT_FREE_BELOW_MIB : parseSize(below)! / MIB;
    const pt = this.cluster.probe_timeout;
    this.probeTimeoutS = pt === undefined ? DEFAULT_PROBE_TIMEOUT_S : parseDuration(pt)!;
    this.killAfterS = opts.killAfterSeconds ?? KILL_AFTER_S;
    this.patterns = oomPatterns(this.cluster.oom?.patterns);
  }

  private async base(): Promise<string> {
    return `${await this.workdir.path()}/.campaign/ssh-gpu/${this.opts.manifest.campaign}`;
  }

  /** Where one attempt keeps its scripts, environment, GPUs, pid, exit marker and log. */
  async attemptDir(taskId: string, attempt: number): Promise<string> {
    return `${await this.base()}/attempts/${taskId}/${attempt}`;
  }

  /** Says a thing once, until it changes. */
  private note(key: string, message: string): void {
    if (this.warned.has(`${key}\u0000${message}`)) return;
    for (const w of this.warned) if (w.startsWith(`${key}\u0000`)) this.warned.delete(w);
    this.warned.add(`${key}\u0000${message}`);
    this.warn(message);
  }

  capacity(active: number): number {
    const max = this.cluster.max_parallel ?? this.cluster.gpus?.length ?? Math.max(1, this.gpuCount());
    // A wave runs to its end before anything else starts; whether its GPUs have settled is
    // decided at submission, so that the controller keeps looking meanwhile.
    if (this.cluster.mode === 'waves' && active > 0) return 0;
    return Math.max(0, max - active);
  }

  /**
   * Runs the probe once before anything starts: a probe that fails outright (not found, no GPU
   * listed), or a GPU in cluster.gpus that it does not list, is a mistake to fix, not a wait.
   */
  async check(): Promise<GpuStatus[]> {
    await this.look([]);
    const view = this.view!;
    const probe = this.cluster.probe ?? DEFAULT_PROBE;
    if (view.error && !view.error.includes('did not answer')) {
      throw new UserError({
        message: `${view.error} on ${this.cluster.login ?? 'this machine'} (probe: ${probe})`,
        fix: 'install nvidia-smi on the server, or set cluster.probe to a command that prints the same table',
      });
    }
    const listed = new Set(
      [...(view.table?.gpus ?? []), ...(view.table?.unusable ?? [])].flatMap((g) => g.index ?? []),
    );
    const unknown = (this.cluster.gpus ?? []).filter((i) => view.table && !listed.has(i));
    if (unknown.length > 0) {
      throw new UserError({
        message: `cluster.gpus names GPU ${unknown.join(', ')}, which the probe on ${this.cluster.login ?? 'this machine'} does not list (it lists ${[...listed].sort((a, b) => a - b).join(', ')})`,
        fix: 'list only the GPUs the server has in cluster.gpus',
      });
    }
    return this.status(new Set());
  }

  /** Every allowed GPU as the last probe saw it, free or why not; none when the probe gave no table. */
  private status(held: ReadonlySet<string>): GpuStatus[] {
    const table = this.view?.table;
    return table
      ? gpuStatus({
          table,
          ...(this.cluster.gpus ? { allowed: this.cluster.gpus } : {}),
          freeBelowMiB: this.freeBelowMiB,
          held,
        })
      : [];
  }

  /** How many GPUs the server has, as the last probe listed them (usable or not). */
  private gpuCount(): number {
    const t = this.view?.table;
    return t ? t.gpus.length + t.unusable.length : 0;
  }

  /** Runs the probe and reads the attempts in `dirs`: one command. */
  private async look(dirs: readonly string[]): Promise<Map<number, string>> {
    const r = await this.opts.transport.exec(
      renderQuery(this.cluster.probe ?? DEFAULT_PROBE, this.probeTimeoutS, `${await this.base()}/wave`),
      { stdin: dirs.map((d) => `${d}\n`).join(''), timeoutMs: (this.probeTimeoutS + 60) * 1000 },
    );
    if (r.code !== 0)
      throw new UserError({
        message: `reading the GPU server failed (exit ${r.code}): ${r.stderr.trim()}`,
        fix: 'check that the probe (nvidia-smi, or cluster.probe) runs on the server as the login user',
      });
    const attempts = new Map<number, string>();
    const view: View = { at: Date.now(), wave: [] };
    for (const line of r.stdout.split('\n')) {
      const [kind, a = '', b = '', c = ''] = line.split(' ');
      if (kind === 'probe') {
        const out = Buffer.from(b, 'base64').toString('utf8');
        const err = Buffer.from(c, 'base64').toString('utf8').trim();
        if (a === '137') view.error = `the GPU probe did not answer within ${this.probeTimeoutS}s`;
        else if (a !== '0') view.error = `the GPU probe exited ${a}${err ? `: ${err.split('\n')[0]}` : ''}`;
        else {
          const table = parseProbe(out);
          if (table.gpus.length + table.unusable.length === 0) view.error = 'the GPU probe listed no GPU';
          else view.table = table;
        }
      } else if (kind === 'wave') view.wave = a.split(',').filter(Boolean);
      else if (kind === 'a') attempts.set(Number(a), line.split(' ').slice(2).join(' '));
    }
    this.view = view;
    this.probeFailures = view.error ? this.probeFailures + 1 : 0;
    if (view.error) this.note('probe', `${view.error}; no task starts until it answers`);
    else this.warned.forEach((w) => w.startsWith('probe\u0000') && this.warned.delete(w));
    for (const u of view.table?.unusable ?? []) {
      this.note(`unusable${u.index ?? u.line}`, `GPU ${u.index ?? '?'} is not used: ${u.why} (probe line "${u.line}")`);
    }
    return attempts;
  }

  async observe(active: readonly ActiveAttempt[]): Promise<TaskEvent[]> {
    const dirs = await Promise.all(active.map((a) => this.attemptDir(a.task.id, a.attempt.n)));
    const seen = await this.look(dirs);
    const events: TaskEvent[] = [];
    const held = new Set<string>();
    for (const [i, { task, attempt, walltimeSeconds }] of active.entries()) {
      const base = { task: task.id, attempt: attempt.n };
      const what = seen.get(i) ?? 'gone';
      if (what === 'running') {
        gpusOfHandle(attempt.handle).forEach((u) => held.add(u));
        if (!attempt.startedAt) events.push({ type: 'started', ...base, at: this.now() });
        continue;
      }
      if (!what.startsWith('exit ')) {
        events.push({
          type: 'finished',
          ...base,
          at: this.now(),
          class: 'lost',
          reason: 'the wrapper is gone and left no exit marker',
        });
        continue;
      }
      const marker = parseExitMarker(what.slice(5), this.now());
      const started = marker.startedAt ?? marker.at;
      if (!attempt.startedAt) events.push({ type: 'started', ...base, at: started });
      const log = await this.logForClassifying(dirs[i]!);
      const output = task.output === undefined ? undefined : await this.workdir.freshness(task, attempt.submittedAt);
      const records = output && marker.code === 0 ? await this.workdir.records(task, output) : undefined;
      const { cls, reason } = classifyEnd({
        marker,
        log,
        walltimeSeconds,
        oomPatterns: this.patterns,
        output,
        ...(records ? { records } : {}),
      });
      events.push({
        type: 'finished',
        ...base,
        at: marker.at,
        class: cls,
        exitCode: marker.code,
        ...(reason ? { reason } : {}),
      });
    }
    this.held = held;
    return events;
  }

  /**
   * The whole log of the attempt in `dir`; one too large to read is searched on the server, for
   * its gate line and the patterns.
   */
  private async logForClassifying(dir: string): Promise<string> {
    try {
      return (await this.opts.transport.readFile(`${dir}/log`, { maxBytes: LOG_LIMIT })) ?? '';
    } catch {
      const log = shellQuote(`${dir}/log`);
      const args = this.patterns.map((p) => `-e ${shellQuote(p.source)}`).join(' ');
      const r = await this.opts.transport.exec(
        `head -c 1048576 ${log}; echo; grep -a -m 5 -P ${args} ${log}; echo; tail -c 1048576 ${log}`,
      );
      return r.stdout;
    }
  }

  async submit(submissions: readonly Submission[]): Promise<TaskEvent[]> {
    if (submissions.length === 0) return [];
    if (!this.view || Date.now() - this.view.at > VIEW_MAX_AGE_MS) await this.look([]);
    const view = this.view!;
    if (this.cluster.mode === 'waves') {
      const w = waveMayStart({ active: 0, lastWave: view.wave, table: view.table, freeBelowMiB: this.freeBelowMiB });
      if (!w.ok) {
        this.note('wave', `the next wave waits: ${w.why}`);
        return [];
      }
    }
    const dirs = await Promise.all(submissions.map((s) => this.attemptDir(s.task.id, s.attempt)));
    const earlier = await Promise.all(submissions.map((s, i) => this.earlierLaunch(s, dirs[i]!)));

    const events: TaskEvent[] = [];
    const held = new Set(this.held);
    const fresh: number[] = [];
    for (const [i, sub] of submissions.entries()) {
      const e = earlier[i]!;
      if (e.launch) {
        // Launched by a pass that crashed before saving: reported, never launched again.
        e.launch.gpus.forEach((u) => held.add(u));
        events.push(this.submitted(sub, dirs[i]!, e.launch.at, e.launch.pid, e.launch.gpus));
      } else fresh.push(i);
    }

    if (view.error && this.probeFailures >= PROBE_GIVE_UP) {
      const reason = `the GPU probe failed ${this.probeFailures} times in a row (${view.error})`;
      return [...events, ...fresh.map((i) => failed(submissions[i]!, this.now(), reason))];
    }
    const total = this.cluster.gpus?.length ?? this.gpuCount();
    const status = this.status(held);
    const requests = [];
    for (const i of fresh) {
      const sub = submissions[i]!;
      const want = sub.array.resources.gpus;
      if (view.table && want > total) {
        events.push(failed(sub, this.now(), `asks for ${want} GPUs; the server has ${total} to use`));
        continue;
      }
      requests.push({ key: String(i), gpus: want, avoid: earlier[i]!.before });
    }
    const placed = placeTasks(requests, status);
    const launched = await this.launch(
      [...placed].map(([key, gpus]) => ({ sub: submissions[Number(key)]!, dir: dirs[Number(key)]!, gpus })),
    );
    events.push(...launched);
    const gpusNow = launched.flatMap((e) => (e.type === 'submitted' ? gpusOfHandle(e.handle) : []));
    const waiting = requests.length - placed.size;
    if (waiting > 0) {
      const busy = status.filter((g) => !g.free).map((g) => `GPU ${g.index}: ${g.why}`);
      const why = view.error ?? (busy.length > 0 ? busy.join('; ') : 'no GPU is free');
      this.note('waiting', `${waiting} task(s) wait for a free GPU (${why})`);
    }
    if (this.cluster.mode === 'waves' && gpusNow.length > 0) {
      await this.opts.transport.writeFile(`${await this.base()}/wave`, `${gpusNow.join(',')}\n`);
      view.wave = gpusNow;
    }
    gpusNow.forEach((u) => this.held.add(u));
    return events;
  }

  /**
   * What an earlier pass left of this attempt (a launch, read back with its pid and GPUs; a
   * launch cut short gets 3 s to write its pid), and the GPUs the task's previous attempt ran on.
   */
  private async earlierLaunch(
    sub: Submission,
    dir: string,
  ): Promise<{ launch?: { at: string; pid: string; gpus: string[] }; before: string[] }> {
    // A file that cannot be read counts as absent: launching again is safe, as the wrapper's
    // claim lets only one launch of an attempt run.
    const read = (path: string): Promise<string | undefined> =>
      this.opts.transport.readFile(path).catch(() => undefined);
    const list = (text: string | undefined): string[] => (text ?? '').trim().split(',').filter(Boolean);
    const before =
      sub.attempt > 1 ? list(await read(`${await this.attemptDir(sub.task.id, sub.attempt - 1)}/gpus`)) : [];
    const launched = await read(`${dir}/launched`);
    if (launched === undefined) return { before };
    // Left under another definition by a state lost before the manifest changed: not this attempt.
    const ranUnder = (await read(`${dir}/definition`))?.trim() ?? '';
    if (sub.task.definition !== undefined && ranUnder !== sub.task.definition) {
      await this.opts.transport.exec(`mv -- ${shellQuote(dir)} ${shellQuote(`${dir}.superseded-${Date.now()}`)}`);
      return { before };
    }
    let pid: string | undefined;
    for (let waited = 0; waited <= 3000; waited += 100) {
      pid = (await read(`${dir}/pid`))?.trim();
      if (pid) break;
      await new Promise((r) => setTimeout(r, 100));
    }
    if (!pid) return { before };
    const gpus = list(await read(`${dir}/gpus`));
    return { launch: { at: msToIso(launched.trim(), this.now()), pid, gpus }, before };
  }

  private submitted(sub: Submission, dir: string, at: string, pid: string, gpus: readonly string[]): TaskEvent {
    return {
      type: 'submitted',
      task: sub.task.id,
      attempt: sub.attempt,
      at,
      handle: handleOf(pid, gpus),
      log: `${dir}/log`,
      gpus: [...gpus],
      ...(sub.memBytes === undefined ? {} : { memBytes: sub.memBytes }),
    };
  }

  /**
   * Writes each attempt's files and starts them all with one command. An attempt whose answer
   * was lost gets no event: the next pass finds it launched, or launches it.
   */
  private async launch(items: readonly { sub: Submission; dir: string; gpus: string[] }[]): Promise<TaskEvent[]> {
    if (items.length === 0) return [];
    const t = this.opts.transport;
    const workdir = await this.workdir.path();
    const events: TaskEvent[] = [];
    const ready: (typeof items)[number][] = [];
    await Promise.all(
      items.map(async (it) => {
        const { sub, dir, gpus } = it;
        const env = {
          ...manifestTaskEnv(this.opts.manifest, sub.task, sub.attempt, workdir),
          CUDA_VISIBLE_DEVICES: gpus.join(','),
        };
        const script = renderTaskScript(scriptInputFor(this.opts.manifest, sub.task, sub.index, gpus.length));
        const wrapper = renderWrapper({
          dir,
          walltimeSeconds: sub.array.budget.seconds,
          killAfterSeconds: this.killAfterS,
          envFile: true,
        });
        try {
          await t.mkdirp(dir);
          await Promise.all([
            t.writeFile(`${dir}/task.sh`, script, { mode: 0o755 }),
            t.writeFile(`${dir}/env.sh`, `${exportLines(env)}\n`),
            t.writeFile(`${dir}/gpus`, `${gpus.join(',')}\n`),
            t.writeFile(`${dir}/definition`, `${sub.task.definition ?? ''}\n`),
            t.writeFile(`${dir}/wrapper.sh`, wrapper, { mode: 0o755 }),
          ]);
          ready.push(it);
        } catch (e) {
          events.push(failed(sub, this.now(), `cannot write the attempt's files: ${(e as Error).message}`));
        }
      }),
    );
    if (ready.length === 0) return events;
    let r;
    try {
      r = await t.exec(renderLaunch(), { stdin: ready.map((it) => `${it.dir}\n`).join(''), timeoutMs: 120_000 });
    } catch (e) {
      this.warn(`launching ${ready.length} task(s): ${(e as Error).message}; the next pass looks again`);
      return events;
    }
    const answered = new Set<number>();
    for (const line of r.stdout.split('\n')) {
      const [kind, n = '', at = '', pid = ''] = line.split(' ');
      const it = ready[Number(n)];
      if (!it || (kind !== 'l' && kind !== 'f')) continue;
      answered.add(Number(n));
      if (kind === 'l' && /^\d+$/.test(pid))
        events.push(this.submitted(it.sub, it.dir, msToIso(at, this.now()), pid, it.gpus));
      else events.push(failed(it.sub, this.now(), line.split(' ').slice(2).join(' ') || 'the launch failed'));
    }
    if (answered.size < ready.length) {
      this.warn(`the launch command exited ${r.code} (${r.stderr.trim()}); the next pass looks again`);
    }
    return events;
  }

  /**
   * Stops the attempts: SIGTERM to each one's process group, SIGKILL from its wrapper after the
   * grace period. Their ends (class `cancelled`) are reported by the next observation.
   */
  async cancel(active: readonly ActiveAttempt[]): Promise<void> {
    const dirs = await Promise.all(active.map((a) => this.attemptDir(a.task.id, a.attempt.n)));
    const r = await this.opts.transport.exec(renderCancel(CANCEL_FILE, this.killAfterS), {
      stdin: dirs.map((d) => `${d}\n`).join(''),
    });
    if (r.code !== 0) throw cancelFailed(r.code, r.stderr);
  }

  /** The log is where this executor puts it, never where a state says: a state is not trusted to name files. */
  async readLog(task: TaskSpec, attempt: Attempt): Promise<string> {
    const log = await this.logPath(task, attempt);
    return (await this.opts.transport.readFile(log, { maxBytes: LOG_LIMIT }).catch(() => undefined)) ?? '';
  }

  async logPath(task: TaskSpec, attempt: Attempt): Promise<string> {
    return `${await this.attemptDir(task.id, attempt.n)}/log`;
  }

  outputFacts(task: TaskSpec, attempt: Attempt, withText: boolean): Promise<OutputFacts> {
    return this.workdir.outputFacts(task, attempt.submittedAt, withText);
  }

  runCheck(task: TaskSpec, command: string): Promise<{ exitCode: number; tail: string }> {
    return this.workdir.runCheck(task, command);
  }

  missing(paths: readonly string[]): Promise<string[]> {
    return this.workdir.missing(paths);
  }

  writeFiles(files: readonly { path: string; text: string }[]): Promise<string[]> {
    return this.workdir.writeFiles(files);
  }

  setAside(dest: string): Promise<SetAsideResult> {
    return this.workdir.setAside(`.campaign/ssh-gpu/${this.opts.manifest.campaign}`, dest);
  }

  readFile(path: string): Promise<string | undefined> {
    return this.workdir.readFile(path);
  }

  gather(
    paths: readonly string[],
    known: ReadonlyMap<string, string>,
    endsSuffice: boolean,
    take: TakeFile,
  ): Promise<void> {
    return this.workdir.gather(paths, known, endsSuffice, take);
  }

  async close(): Promise<void> {
    await this.opts.transport.close();
  }
}

function failed(sub: Submission, at: string, reason: string): TaskEvent {
  return { type: 'submit_failed', task: sub.task.id, attempt: sub.attempt, at, reason };
}

/** The server's epoch milliseconds as ISO; `fallback` when unreadable. */
function msToIso(ms: string, fallback: string): string {
  const n = Number(ms);
  return Number.isFinite(n) && n > 0 ? new Date(n).toISOString() : fallback;
}
