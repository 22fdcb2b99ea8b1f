/**
 * The `ssh-gpu` executor: a lab GPU server with no scheduler, over a transport (SSH, or this
 * machine), or a pool of them (`cluster.servers`), each reached by its own transport. Each attempt runs under the shared wrapper (render/wrapper.ts) as a session of its
 * own, started with `setsid`, pinned by `CUDA_VISIBLE_DEVICES` (GPU UUIDs, exported for the whole
 * task) to GPUs the probe reads as free. Everything of an attempt lives in
 * `<workdir>/.campaign/ssh-gpu/<campaign>/attempts/<task id>/<attempt>/`, so two campaigns never
 * touch each other's tasks. Each pass sends each server one command that runs the probe (with a
 * timeout) and reads the pid and exit marker of every active attempt there.
 *
 * A pool's servers share the workdir (one filesystem, as NFS homes are; checked before the first
 * submission): an attempt's files are read through any of them, its process only through its
 * own, which its handle names. A pool's server that does not answer sits passes out (its
 * attempts keep their state, nothing new starts there) and is tried again in the background.
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
  placeInPool,
  placeTasks,
  waveMayStart,
  type GpuStatus,
} from '../../decide/gpu.js';
import type { Attempt } from '../../state/state.js';
import { manifestTaskEnv } from '../../render/env.js';
import { exportLines, shellQuote } from '../../render/shell.js';
import { renderLaunch, renderQuery } from '../../render/ssh-gpu.js';
import type { CodeSnapshot } from '../code-ship.js';
import { phaseOf, renderTaskScript, resumeEnv, scriptInputFor } from '../../render/task-script.js';
import { CANCEL_FILE, checkpointOf, parseExitMarker, renderCancel, renderWrapper } from '../../render/wrapper.js';
import type { SetAsideResult } from '../../render/set-aside.js';
import type { ActiveAttempt, Executor } from '../executor.js';
import type { TakeFile } from '../../report/results/gathering.js';
import { cancelFailed, RemoteWorkdir } from '../remote-workdir.js';
import { GenerationRecord } from '../generation.js';
import { generationPath } from '../../decide/generation.js';
import { LinkError, tempPathFor, type Transport } from '../transport/transport.js';
import {
  notAnswering,
  outOfPoolReason,
  type Server,
  serverOfHandle,
  sharedWorkdirProblem,
  type View,
} from './server.js';

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
  /** The server's transport (cluster.login, or this machine); without cluster.servers. */
  transport?: Transport;
  /** A pool's transports, one per entry of cluster.servers, in its order. */
  servers?: readonly Transport[];
  warn?: (message: string) => void;
  now?: () => string;
  /** Seconds between SIGTERM and SIGKILL. */
  killAfterSeconds?: number;
}

/** A server's own GPUs and what holds them, or why it could not be looked at (`campaign check`). */
export interface ServerCheck {
  where: string;
  gpus?: GpuStatus[];
  error?: unknown;
  /** The error is the server not answering, not a mistake in the manifest. */
  unreachable?: boolean;
}

/**
 * `[server:<login> ]pid:<pid> gpu:<uuid,…>`: the handle records the GPUs, so a restarted
 * controller knows what is held, and in a pool the server, so that it knows where to look.
 */
const handleOf = (pid: string, gpus: readonly string[], server: string | undefined): string =>
  `${server === undefined ? '' : `server:${server} `}pid:${pid} gpu:${gpus.length > 0 ? gpus.join(',') : '-'}`;
export const gpusOfHandle = (handle: string | undefined): string[] =>
  (/ gpu:(\S+)$/.exec(handle ?? '')?.[1] ?? '-').split(',').filter((u) => u !== '-' && u !== '');

/** Seconds a pool's server may take to answer a look beyond its probe's timeout before the pass goes on without it. */
const ANSWER_GRACE_S = 10;
/** How soon a pool's server that did not answer is tried again (in the background). */
const RETRY_OUT_MS = 5_000;

/** What a pool's server not answering looks like: the link, or a login that fails (a host down refuses it). */
const isUnanswered = (e: unknown): boolean => e instanceof LinkError || e instanceof UserError;

export class SshGpuExecutor implements Executor {
  private readonly cluster: SshGpuCluster;
  private readonly now: () => string;
  private readonly warn: (message: string) => void;
  private readonly freeBelowMiB: number;
  private readonly probeTimeoutS: number;
  private readonly killAfterS: number;
  private readonly patterns: Pattern[];
  /** The servers: one, or a pool's in the order of cluster.servers. */
  private readonly servers: Server[];
  private readonly pool: boolean;
  private warned = new Set<string>();
  readonly generation: GenerationRecord;

  constructor(private readonly opts: SshGpuExecutorOptions) {
    if (opts.manifest.cluster.executor !== 'ssh-gpu') throw new Error('SshGpuExecutor needs an ssh-gpu manifest');
    this.cluster = opts.manifest.cluster;
    // Through the server that stands for the shared workdir, whichever that is when asked.
    this.generation = new GenerationRecord(
      {
        readFile: (path) => this.shared().workdir.readFile(path),
        writeFiles: (files) => this.shared().workdir.writeFiles(files),
        createFile: (path, text) => this.shared().workdir.createFile(path, text),
      },
      generationPath('ssh-gpu', opts.manifest.campaign),
    );
    this.now = opts.now ?? (() => new Date().toISOString());
    this.warn = opts.warn ?? (() => {});
    const below = this.cluster.gpu_free_below;
    this.freeBelowMiB = below === undefined ? DEFAULT_FREE_BELOW_MIB : parseSize(below)! / MIB;
    const pt = this.cluster.probe_timeout;
    this.probeTimeoutS = pt === undefined ? DEFAULT_PROBE_TIMEOUT_S : parseDuration(pt)!;
    this.killAfterS = opts.killAfterSeconds ?? KILL_AFTER_S;
    this.patterns = oomPatterns(this.cluster.oom?.patterns);
    const pool = this.cluster.servers;
    this.pool = pool !== undefined;
    if (pool) {
      if (opts.servers?.length !== pool.length) throw new Error('SshGpuExecutor needs a transport per server');
      this.servers = pool.map((s, i) => this.server(opts.servers![i]!, s.login, s.gpus, s.max_parallel));
    } else {
      if (!opts.transport) throw new Error('SshGpuExecutor needs a transport');
      this.servers = [this.server(opts.transport, undefined, this.cluster.gpus, this.cluster.max_parallel)];
    }
  }

  private server(
    transport: Transport,
    name: string | undefined,
    gpus: readonly number[] | undefined,
    maxParallel: number | undefined,
  ): Server {
    return {
      ...(name === undefined ? {} : { name }),
      where: name ?? this.cluster.login ?? 'this machine',
      transport,
      workdir: new RemoteWorkdir(transport, this.opts.manifest),
      ...(gpus === undefined ? {} : { gpus }),
      ...(maxParallel === undefined ? {} : { maxParallel }),
      probeFailures: 0,
      held: new Set(),
      running: 0,
    };
  }

  /**
   * The server the workdir's files are reached through: the first that answers (a pool's
   * servers share the workdir).
   */
  private shared(): Server {
    return this.servers.find((s) => !s.out && !s.pending) ?? this.servers[0]!;
  }

  private byName(name: string | undefined): Server | undefined {
    return this.pool ? this.servers.find((s) => s.name === name) : this.servers[0];
  }

  private async base(server = this.shared()): Promise<string> {
    return `${await server.workdir.path()}/.campaign/ssh-gpu/${this.opts.manifest.campaign}`;
  }

  /** Where one attempt keeps its scripts, environment, GPUs, pid, exit marker and log. */
  async attemptDir(taskId: string, attempt: number, server = this.shared()): Promise<string> {
    return `${await this.base(server)}/attempts/${taskId}/${attempt}`;
  }

  /** The file naming the GPUs of the server's last wave (one per server in a pool: they share the workdir). */
  private async waveFile(s: Server): Promise<string> {
    return `${await this.base(s)}/wave${s.name === undefined ? '' : `-${s.name.replace(/[^A-Za-z0-9._-]/g, '_')}`}`;
  }

  /**
   * Where a `campaign shell` marks the GPUs it holds, one file per UUID (render/shell-script.ts):
   * in the workdir, beside every campaign's own folder, so that each campaign that runs there
   * reads it; GPU UUIDs are unique, so a pool's servers share it as they share the workdir.
   */
  private async holds(s: Server): Promise<string> {
    return `${await s.workdir.path()}/.campaign/ssh-gpu/shells`;
  }

  /**
   * `count` free GPUs of one server for a shell in a task's place (`campaign shell`): none that
   * a running task of this campaign holds (`active`: their handles, from the stored state), or
   * another shell, or anything else uses memory on; the first server of a pool that has them.
   * The shell holds them itself from its start (render/shell-script.ts); a UserError when no
   * server has so many free now.
   */
  async gpusForShell(
    count: number,
    active: readonly string[],
  ): Promise<{ transport: Transport; workdir: string; gpus: string[]; holds: string }> {
    const busy: string[] = [];
    for (const s of this.servers) {
      try {
        await this.look(s, []);
      } catch (e) {
        if (!this.pool || !isUnanswered(e)) throw e;
        busy.push(`${s.where}: does not answer`);
        continue;
      }
      const held = new Set(
        active.filter((h) => !this.pool || serverOfHandle(h) === s.name).flatMap((h) => gpusOfHandle(h)),
      );
      const status = this.judgeProbe(s).map((g) =>
        g.uuid !== undefined && held.has(g.uuid) ? { ...g, free: false, why: 'held by a task of this campaign' } : g,
      );
      const gpus = count === 0 ? [] : placeTasks([{ key: 'shell', gpus: count, avoid: [] }], status).get('shell');
      if (gpus) return { transport: s.transport, workdir: await s.workdir.path(), gpus, holds: await this.holds(s) };
      const why = status.filter((g) => !g.free).map((g) => `GPU ${g.index}: ${g.why}`);
      busy.push(`${this.pool ? `${s.where}: ` : ''}${why.length > 0 ? why.join('; ') : 'no GPU is free'}`);
    }
    throw new UserError({
      message: `the task asks for ${count} GPU${count === 1 ? '' : 's'}, and no server has so many free now (${busy.join('; ')})`,
      fix: 'run campaign shell again once a GPU is free (campaign check lists what holds them)',
    });
  }

  /** A note's key on a server: the single server's keys are the bare ones. */
  private static key(s: Server, what: string): string {
    return s.name === undefined ? what : `${s.name} ${what}`;
  }

  /** Says a thing once, until it changes. */
  private note(key: string, message: string): void {
    if (this.warned.has(`${key}\u0000${message}`)) return;
    for (const w of this.warned) if (w.startsWith(`${key}\u0000`)) this.warned.delete(w);
    this.warned.add(`${key}\u0000${message}`);
    this.warn(message);
  }

  /** Tasks the server may run at once. */
  private limit(s: Server): number {
    return s.maxParallel ?? s.gpus?.length ?? Math.max(1, this.gpuCount(s));
  }

  capacity(active: number): number {
    const own = this.servers.reduce((n, s) => n + this.limit(s), 0);
    const max = this.pool ? Math.min(this.cluster.max_parallel ?? Infinity, own) : own;
    // A wave runs to its end before anything else starts; whether its GPUs have settled is
    // decided at submission, so that the controller keeps looking meanwhile.
    if (this.cluster.mode === 'waves' && active > 0) return 0;
    return Math.max(0, max - active);
  }

  /**
   * Runs the probe once before anything starts: a probe that fails outright (not found, no GPU
   * listed), or a GPU in cluster.gpus that it does not list, is a mistake to fix, not a wait. In
   * a pool, every server is probed, and a server that does not answer is said and waited for
   * (as long as one answers); the servers must share the workdir.
   */
  async check(): Promise<GpuStatus[]> {
    if (!this.pool) {
      const s = this.servers[0]!;
      await this.look(s, []);
      return this.judgeProbe(s);
    }
    const checks = await this.checkServers();
    const refused = checks.find((c) => c.error !== undefined && !c.unreachable);
    if (refused) throw refused.error;
    if (checks.every((c) => c.unreachable)) throw checks[0]!.error;
    for (const [i, c] of checks.entries())
      if (c.unreachable) this.warn(notAnswering(c.where, this.servers[i]!.out!.why, 0));
    await this.checkShared();
    return checks.flatMap((c) => c.gpus ?? []);
  }

  /**
   * Each server probed, what it has or why it could not be; a server that does not answer is
   * left out for now (said by the caller).
   */
  async checkServers(): Promise<ServerCheck[]> {
    return Promise.all(
      this.servers.map(async (s): Promise<ServerCheck> => {
        try {
          await this.look(s, []);
        } catch (e) {
          if (!isUnanswered(e)) throw e;
          s.out = { why: (e as Error).message, retryAt: Date.now() + RETRY_OUT_MS };
          return { where: s.where, error: e, unreachable: true };
        }
        try {
          return { where: s.where, gpus: this.judgeProbe(s) };
        } catch (e) {
          return { where: s.where, error: e };
        }
      }),
    );
  }

  /**
   * A pool's servers share the workdir: a file written through the first that answers must be
   * there through each other one; throws a UserError when it is not.
   */
  async checkShared(): Promise<void> {
    const [first, ...others] = this.servers.filter((s) => !s.out);
    if (!first || others.length === 0) return;
    const rel = `.campaign/ssh-gpu/${this.opts.manifest.campaign}/pool-check`;
    const token = `${Date.now()} ${Math.random()}\n`;
    const path = `${await first.workdir.path()}/${rel}`;
    await first.transport.mkdirp(path.slice(0, path.lastIndexOf('/')));
    await first.transport.writeFile(path, token);
    for (const s of others) {
      const seen = await s.transport.readFile(`${await s.workdir.path()}/${rel}`).catch(() => undefined);
      if (seen !== token) throw sharedWorkdirProblem(first.where, s.where, path);
    }
  }

  /** The server's GPUs from its last probe; throws a UserError for a probe that cannot work or GPUs it lacks. */
  private judgeProbe(s: Server): GpuStatus[] {
    const view = s.view!;
    const probe = this.cluster.probe ?? DEFAULT_PROBE;
    if (view.error && !view.error.includes('did not answer')) {
      throw new UserError({
        message: `${view.error} on ${s.where} (probe: ${probe})`,
        fix: 'install nvidia-smi on the server, or set cluster.probe to a command that prints the same table',
      });
    }
    const listed = new Set(
      [...(view.table?.gpus ?? []), ...(view.table?.unusable ?? [])].flatMap((g) => g.index ?? []),
    );
    const unknown = (s.gpus ?? []).filter((i) => view.table && !listed.has(i));
    if (unknown.length > 0) {
      const key = s.name === undefined ? 'cluster.gpus' : `the gpus of ${s.name}`;
      throw new UserError({
        message: `${key} names GPU ${unknown.join(', ')}, which the probe on ${s.where} does not list (it lists ${[...listed].sort((a, b) => a - b).join(', ')})`,
        fix: `list only the GPUs the server has in ${s.name === undefined ? 'cluster.gpus' : 'its gpus'}`,
      });
    }
    return this.status(s, new Set());
  }

  /** Every allowed GPU of the server as its last probe saw it, free or why not; none when the probe gave no table. */
  private status(s: Server, held: ReadonlySet<string>): GpuStatus[] {
    const table = s.view?.table;
    return table
      ? gpuStatus({
          table,
          ...(s.gpus ? { allowed: s.gpus } : {}),
          freeBelowMiB: this.freeBelowMiB,
          held,
          shells: s.view!.shells,
        })
      : [];
  }

  /** How many GPUs the server has, as its last probe listed them (usable or not). */
  private gpuCount(s: Server): number {
    const t = s.view?.table;
    return t ? t.gpus.length + t.unusable.length : 0;
  }

  /** Runs the server's probe and reads the attempts in `dirs`: one command. */
  private async look(s: Server, dirs: readonly string[]): Promise<Map<number, string>> {
    const r = await s.transport.exec(
      renderQuery(this.cluster.probe ?? DEFAULT_PROBE, this.probeTimeoutS, await this.waveFile(s), await this.holds(s)),
      { stdin: dirs.map((d) => `${d}\n`).join(''), timeoutMs: (this.probeTimeoutS + 60) * 1000 },
    );
    if (r.code !== 0)
      throw new UserError({
        message: `reading the GPU server${s.name === undefined ? '' : ` ${s.name}`} failed (exit ${r.code}): ${r.stderr.trim()}`,
        fix: 'check that the probe (nvidia-smi, or cluster.probe) runs on the server as the login user',
      });
    const attempts = new Map<number, string>();
    const view: View = { at: Date.now(), wave: [], shells: new Set() };
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
      else if (kind === 'hold') view.shells.add(a);
      else if (kind === 'a') attempts.set(Number(a), line.split(' ').slice(2).join(' '));
    }
    s.view = view;
    s.probeFailures = view.error ? s.probeFailures + 1 : 0;
    const probeKey = SshGpuExecutor.key(s, 'probe');
    if (view.error)
      this.note(
        probeKey,
        s.name === undefined
          ? `${view.error}; no task starts until it answers`
          : `${view.error} on ${s.name}; no task starts there until it answers`,
      );
    else this.warned.forEach((w) => w.startsWith(`${probeKey}\u0000`) && this.warned.delete(w));
    for (const u of view.table?.unusable ?? []) {
      this.note(
        SshGpuExecutor.key(s, `unusable${u.index ?? u.line}`),
        `GPU ${u.index ?? '?'}${s.name === undefined ? '' : ` of ${s.name}`} is not used: ${u.why} (probe line "${u.line}")`,
      );
    }
    return attempts;
  }

  /**
   * Whether a pool's server sits this pass out: it has not answered lately. Once its wait is
   * over it is tried again in the background, so that a pass never waits on a server that is down.
   */
  private sitsOut(s: Server): boolean {
    if (!this.pool) return false;
    if (s.pending) return true;
    if (!s.out) return false;
    if (Date.now() >= s.out.retryAt) {
      s.pending = this.look(s, []).then(
        () => this.backIn(s),
        (e: unknown) => this.leaveOut(s, (e as Error).message),
      );
      void s.pending.finally(() => (s.pending = undefined));
    }
    return true;
  }

  /**
   * `work` on the server; in a pool, undefined when the server does not answer, or not within
   * its probe's timeout and a grace (the work then goes on in the background, and the server
   * sits out until it ends).
   */
  private async answered<T>(s: Server, work: () => Promise<T>): Promise<T | undefined> {
    if (!this.pool) return work();
    const done = work().then(
      (value) => ({ value }),
      (error: unknown) => ({ error }),
    );
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<'late'>(
      (r) => (timer = setTimeout(() => r('late'), (this.probeTimeoutS + ANSWER_GRACE_S) * 1000)),
    );
    const first = await Promise.race([done, late]);
    clearTimeout(timer);
    if (first === 'late') {
      this.leaveOut(s, `no answer within ${this.probeTimeoutS + ANSWER_GRACE_S}s`);
      s.pending = done.then((r) => ('error' in r ? this.leaveOut(s, (r.error as Error).message) : this.backIn(s)));
      void s.pending.finally(() => (s.pending = undefined));
      return undefined;
    }
    if ('error' in first) {
      if (!isUnanswered(first.error)) throw first.error;
      this.leaveOut(s, (first.error as Error).message);
      return undefined;
    }
    return first.value;
  }

  /** A pool's server stops answering: said once per outage. */
  private leaveOut(s: Server, why: string): void {
    if (!s.out) this.warn(notAnswering(s.where, why, s.running));
    s.out = { why, retryAt: Date.now() + RETRY_OUT_MS };
  }

  private backIn(s: Server): void {
    if (!s.out) return;
    delete s.out;
    this.warn(`${s.where} answers again: its tasks are looked at, and tasks start there, as before`);
  }

  async observe(active: readonly ActiveAttempt[]): Promise<TaskEvent[]> {
    if (!this.pool) return (await this.observeOn(this.servers[0]!, active))!;
    const names = new Set(this.servers.map((s) => s.name!));
    const events: TaskEvent[] = [];
    const on = new Map<Server, ActiveAttempt[]>(this.servers.map((s) => [s, []]));
    for (const a of active) {
      const reason = outOfPoolReason(a.attempt.handle, names);
      if (reason)
        events.push({ type: 'finished', task: a.task.id, attempt: a.attempt.n, at: this.now(), class: 'lost', reason });
      else on.get(this.byName(serverOfHandle(a.attempt.handle))!)!.push(a);
    }
    const seen = await Promise.all([...on].map(([s, list]) => this.observeOn(s, list)));
    if (seen.every((e) => e === undefined)) {
      throw new LinkError(
        `no server of cluster.servers answers (${this.servers.map((s) => `${s.where}: ${s.out?.why ?? 'no answer yet'}`).join('; ')})`,
      );
    }
    return [...events, ...seen.flatMap((e) => e ?? [])];
  }

  /** The events of the attempts on one server; undefined when a pool's server does not answer. */
  private async observeOn(s: Server, active: readonly ActiveAttempt[]): Promise<TaskEvent[] | undefined> {
    if (this.sitsOut(s)) {
      s.running = active.length;
      return undefined;
    }
    const result = await this.answered(s, async () => {
      const dirs = await Promise.all(active.map((a) => this.attemptDir(a.task.id, a.attempt.n, s)));
      return this.endsOn(s, active, dirs, await this.look(s, dirs));
    });
    if (result === undefined) s.running = active.length;
    return result;
  }

  /** What the server's answer says of each attempt, with the class of each end. */
  private async endsOn(
    s: Server,
    active: readonly ActiveAttempt[],
    dirs: readonly string[],
    seen: ReadonlyMap<number, string>,
  ): Promise<TaskEvent[]> {
    const events: TaskEvent[] = [];
    const held = new Set<string>();
    let running = 0;
    for (const [i, { task, attempt, walltimeSeconds }] of active.entries()) {
      const base = { task: task.id, attempt: attempt.n };
      const what = seen.get(i) ?? 'gone';
      if (what === 'running') {
        running++;
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
      const log = await this.logForClassifying(s, dirs[i]!);
      const output = task.output === undefined ? undefined : await s.workdir.freshness(task, attempt.submittedAt);
      const records = output && marker.code === 0 ? await s.workdir.records(task, output) : undefined;
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
    s.held = held;
    s.running = running;
    return events;
  }

  /**
   * The whole log of the attempt in `dir`; one too large to read is searched on the server, for
   * its gate line and the patterns.
   */
  private async logForClassifying(s: Server, dir: string): Promise<string> {
    try {
      return (await s.transport.readFile(`${dir}/log`, { maxBytes: LOG_LIMIT })) ?? '';
    } catch {
      const log = shellQuote(`${dir}/log`);
      const args = this.patterns.map((p) => `-e ${shellQuote(p.source)}`).join(' ');
      const r = await s.transport.exec(
        `head -c 1048576 ${log}; echo; grep -a -m 5 -P ${args} ${log}; echo; tail -c 1048576 ${log}`,
      );
      return r.stdout;
    }
  }

  async submit(submissions: readonly Submission[]): Promise<TaskEvent[]> {
    if (submissions.length === 0) return [];
    await Promise.all(
      this.servers.map(async (s) => {
        if (this.sitsOut(s) || (s.view && Date.now() - s.view.at <= VIEW_MAX_AGE_MS)) return;
        await this.answered(s, () => this.look(s, []));
      }),
    );
    const up = this.servers.filter((s) => !s.out && !s.pending);
    if (up.length === 0) {
      this.note('waiting', `${submissions.length} task(s) wait: no server of cluster.servers answers`);
      return [];
    }
    if (this.cluster.mode === 'waves') {
      for (const s of up) {
        const view = s.view!;
        const w = waveMayStart({ active: 0, lastWave: view.wave, table: view.table, freeBelowMiB: this.freeBelowMiB });
        if (!w.ok) {
          this.note('wave', `the next wave waits: ${w.why}${s.name === undefined ? '' : ` on ${s.name}`}`);
          return [];
        }
      }
    }
    // Found through any server: they share the workdir.
    const via = up[0]!;
    const dirs = await Promise.all(submissions.map((s) => this.attemptDir(s.task.id, s.attempt, via)));
    const earlier = await Promise.all(submissions.map((s, i) => this.earlierLaunch(via, s, dirs[i]!)));

    const events: TaskEvent[] = [];
    const held = new Map(this.servers.map((s) => [s, new Set(s.held)]));
    const fresh: number[] = [];
    for (const [i, sub] of submissions.entries()) {
      const e = earlier[i]!;
      if (e.launch) {
        // Launched by a pass that crashed before saving: reported, never launched again.
        const on = this.byName(e.launch.server);
        if (on) {
          e.launch.gpus.forEach((u) => held.get(on)!.add(u));
          on.running++;
        }
        events.push(this.submitted(sub, dirs[i]!, e.launch.at, e.launch.pid, e.launch.gpus, e.launch.server));
      } else fresh.push(i);
    }

    if (this.servers.every((s) => s.view?.error && s.probeFailures >= PROBE_GIVE_UP)) {
      const s0 = this.servers[0]!;
      const reason = this.pool
        ? `the GPU probe failed ${PROBE_GIVE_UP} times in a row on every server of cluster.servers (${s0.view!.error} on ${s0.where})`
        : `the GPU probe failed ${s0.probeFailures} times in a row (${s0.view!.error})`;
      return [...events, ...fresh.map((i) => failed(submissions[i]!, this.now(), reason))];
    }
    // What a server has to use is known once its probe has listed its GPUs.
    const totals = this.servers.map((s) => (s.view?.table ? (s.gpus?.length ?? this.gpuCount(s)) : Infinity));
    const total = Math.max(...totals);
    const requests = [];
    for (const i of fresh) {
      const sub = submissions[i]!;
      const want = sub.array.resources.gpus;
      if (want > total) {
        const has = this.pool ? 'the largest server of cluster.servers has' : 'the server has';
        events.push(failed(sub, this.now(), `asks for ${want} GPUs; ${has} ${total} to use`));
        continue;
      }
      const e = earlier[i]!;
      requests.push({ key: String(i), gpus: want, avoid: e.before, beforeOn: e.beforeServer });
    }
    const placed = this.place(requests, up, held);
    const launched = (
      await Promise.all(
        up.map((s) => {
          const items = [...placed]
            .filter(([, p]) => p.server === s)
            .map(([key, p]) => ({ sub: submissions[Number(key)]!, gpus: p.gpus }));
          return this.launch(s, items);
        }),
      )
    ).flat();
    events.push(...launched);
    const waiting = requests.length - placed.size;
    if (waiting > 0) this.note('waiting', `${waiting} task(s) wait for a free GPU (${this.whyWaiting(held)})`);
    for (const s of up) {
      const gpusNow = launched.flatMap((e) =>
        e.type === 'submitted' && serverOfHandle(e.handle) === s.name ? gpusOfHandle(e.handle) : [],
      );
      if (this.cluster.mode === 'waves' && gpusNow.length > 0) {
        await s.transport.writeFile(await this.waveFile(s), `${gpusNow.join(',')}\n`);
        s.view!.wave = gpusNow;
      }
      gpusNow.forEach((u) => s.held.add(u));
    }
    return events;
  }

  /** Which server and GPUs each request gets (on the single server: which of its GPUs). */
  private place(
    requests: readonly { key: string; gpus: number; avoid: string[]; beforeOn: string | undefined }[],
    up: readonly Server[],
    held: ReadonlyMap<Server, ReadonlySet<string>>,
  ): Map<string, { server: Server; gpus: string[] }> {
    if (!this.pool) {
      const s = this.servers[0]!;
      const placed = placeTasks(requests, this.status(s, held.get(s)!));
      return new Map([...placed].map(([key, gpus]) => [key, { server: s, gpus }]));
    }
    const placed = placeInPool(
      requests.map((r) => ({
        key: r.key,
        gpus: r.gpus,
        avoid: r.avoid.map((uuid) => ({ server: r.beforeOn ?? '', uuid })),
      })),
      up.map((s) => ({
        server: s.name!,
        status: this.status(s, held.get(s)!),
        slots: s.maxParallel === undefined ? Infinity : s.maxParallel - s.running,
      })),
    );
    return new Map([...placed].map(([key, p]) => [key, { server: this.byName(p.server)!, gpus: p.gpus }]));
  }

  /** Why no GPU could be found: on the single server, its busy GPUs; in a pool, each server's. */
  private whyWaiting(held: ReadonlyMap<Server, ReadonlySet<string>>): string {
    const busy = (s: Server): string[] =>
      this.status(s, held.get(s)!)
        .filter((g) => !g.free)
        .map((g) => `GPU ${g.index}: ${g.why}`);
    if (!this.pool) {
      const s = this.servers[0]!;
      const list = busy(s);
      return s.view!.error ?? (list.length > 0 ? list.join('; ') : 'no GPU is free');
    }
    return this.servers
      .map((s) => {
        if (s.out || s.pending) return `${s.where}: does not answer`;
        if (s.view?.error) return `${s.where}: ${s.view.error}`;
        if (s.maxParallel !== undefined && s.running >= s.maxParallel)
          return `${s.where}: runs its max_parallel of ${s.maxParallel}`;
        const list = busy(s);
        return `${s.where}: ${list.length > 0 ? list.join(', ') : 'no GPU is free'}`;
      })
      .join('; ');
  }

  /**
   * What an earlier pass left of this attempt (a launch, read back with its pid, GPUs and, in a
   * pool, server; a launch cut short gets 3 s to write its pid), and the GPUs (and server) the
   * task's previous attempt ran on. Read through `via`: a pool's servers share the workdir.
   */
  private async earlierLaunch(
    via: Server,
    sub: Submission,
    dir: string,
  ): Promise<{
    launch?: { at: string; pid: string; gpus: string[]; server?: string };
    before: string[];
    beforeServer?: string;
  }> {
    // A file that cannot be read counts as absent: launching again is safe, as the wrapper's
    // claim lets only one launch of an attempt run.
    const read = (path: string): Promise<string | undefined> => via.transport.readFile(path).catch(() => undefined);
    const list = (text: string | undefined): string[] => (text ?? '').trim().split(',').filter(Boolean);
    const server = async (d: string): Promise<{ server?: string }> => {
      const name = this.pool ? (await read(`${d}/server`))?.trim() : undefined;
      return name ? { server: name } : {};
    };
    const prev = sub.attempt > 1 ? await this.attemptDir(sub.task.id, sub.attempt - 1, via) : undefined;
    const beforeOn = prev === undefined ? {} : await server(prev);
    const before = {
      before: prev === undefined ? [] : list(await read(`${prev}/gpus`)),
      ...(beforeOn.server === undefined ? {} : { beforeServer: beforeOn.server }),
    };
    const launched = await read(`${dir}/launched`);
    if (launched === undefined) return before;
    // Left under another definition by a state lost before the manifest changed: not this attempt.
    const ranUnder = (await read(`${dir}/definition`))?.trim() ?? '';
    if (sub.task.definition !== undefined && ranUnder !== sub.task.definition) {
      await via.transport.exec(`mv -- ${shellQuote(dir)} ${shellQuote(`${dir}.superseded-${Date.now()}`)}`);
      return before;
    }
    let pid: string | undefined;
    for (let waited = 0; waited <= 3000; waited += 100) {
      pid = (await read(`${dir}/pid`))?.trim();
      if (pid) break;
      await new Promise((r) => setTimeout(r, 100));
    }
    if (!pid) return before;
    const gpus = list(await read(`${dir}/gpus`));
    return {
      launch: { at: msToIso(launched.trim(), this.now()), pid, gpus, ...(await server(dir)) },
      ...before,
    };
  }

  private submitted(
    sub: Submission,
    dir: string,
    at: string,
    pid: string,
    gpus: readonly string[],
    server: string | undefined,
  ): TaskEvent {
    return {
      type: 'submitted',
      task: sub.task.id,
      attempt: sub.attempt,
      at,
      handle: handleOf(pid, gpus, server),
      log: `${dir}/log`,
      gpus: [...gpus],
      ...(sub.memBytes === undefined ? {} : { memBytes: sub.memBytes }),
    };
  }

  /**
   * Writes each attempt's files and starts them all on the server with one command. An attempt
   * whose answer was lost gets no event: the next pass finds it launched, or launches it.
   */
  private async launch(s: Server, placed: readonly { sub: Submission; gpus: string[] }[]): Promise<TaskEvent[]> {
    if (placed.length === 0) return [];
    const t = s.transport;
    const workdir = await s.workdir.path();
    const items = await Promise.all(
      placed.map(async (p) => ({ ...p, dir: await this.attemptDir(p.sub.task.id, p.sub.attempt, s) })),
    );
    const events: TaskEvent[] = [];
    const ready: ((typeof items)[number] & { staging: string })[] = [];
    let unanswered: Error | undefined;
    await Promise.all(
      items.map(async (it) => {
        const { sub, dir, gpus } = it;
        const env = {
          ...manifestTaskEnv(this.opts.manifest, sub.task, sub.attempt, workdir),
          ...resumeEnv(phaseOf(this.opts.manifest, sub.task), sub.resume),
          CUDA_VISIBLE_DEVICES: gpus.join(','),
        };
        const script = renderTaskScript(scriptInputFor(this.opts.manifest, sub.task, sub.index, gpus.length, sub.code));
        const wrapper = renderWrapper({
          dir,
          walltimeSeconds: sub.array.budget.seconds,
          killAfterSeconds: this.killAfterS,
          envFile: true,
          checkpoint: checkpointOf(phaseOf(this.opts.manifest, sub.task)?.checkpoint),
        });
        // Written apart, put in place whole by the launch: another controller's never mixes with them.
        const staging = tempPathFor(dir);
        try {
          await t.mkdirp(staging);
          await Promise.all([
            t.writeFile(`${staging}/task.sh`, script, { mode: 0o755 }),
            t.writeFile(`${staging}/env.sh`, `${exportLines(env)}\n`),
            t.writeFile(`${staging}/gpus`, `${gpus.join(',')}\n`),
            t.writeFile(`${staging}/definition`, `${sub.task.definition ?? ''}\n`),
            ...(s.name === undefined ? [] : [t.writeFile(`${staging}/server`, `${s.name}\n`)]),
            t.writeFile(`${staging}/wrapper.sh`, wrapper, { mode: 0o755 }),
          ]);
          ready.push({ ...it, staging });
        } catch (e) {
          // A pool's server that stops answering fails no task: it waits for another pass.
          if (this.pool && isUnanswered(e)) unanswered = e as Error;
          else events.push(failed(sub, this.now(), `cannot write the attempt's files: ${(e as Error).message}`));
        }
      }),
    );
    if (unanswered) {
      this.leaveOut(s, unanswered.message);
      return events;
    }
    if (ready.length === 0) return events;
    let r;
    try {
      r = await t.exec(renderLaunch(), {
        stdin: ready.map((it) => `${it.staging}\t${it.dir}\n`).join(''),
        timeoutMs: 120_000,
      });
    } catch (e) {
      const where = s.name === undefined ? '' : ` on ${s.name}`;
      this.warn(`launching ${ready.length} task(s)${where}: ${(e as Error).message}; the next pass looks again`);
      return events;
    }
    const answered = new Set<number>();
    for (const line of r.stdout.split('\n')) {
      const [kind, n = '', at = '', pid = '', ranGpus = '', ranOn = ''] = line.split(' ');
      const it = ready[Number(n)];
      if (!it || (kind !== 'l' && kind !== 'f')) continue;
      answered.add(Number(n));
      if (kind === 'l' && /^\d+$/.test(pid)) {
        // Put in place by another controller first: it runs where, and on the GPUs, that one chose.
        const gpus = ranGpus === '' ? it.gpus : ranGpus.split(',');
        const on = (ranOn === '' ? undefined : this.byName(ranOn)) ?? s;
        events.push(this.submitted(it.sub, it.dir, msToIso(at, this.now()), pid, gpus, on.name));
        on.running++;
      } else events.push(failed(it.sub, this.now(), line.split(' ').slice(2).join(' ') || 'the launch failed'));
    }
    if (answered.size < ready.length) {
      this.warn(`the launch command exited ${r.code} (${r.stderr.trim()}); the next pass looks again`);
    }
    return events;
  }

  /**
   * Stops the attempts: SIGTERM to each one's process group, SIGKILL from its wrapper after the
   * grace period. Their ends (class `cancelled`) are reported by the next observation. In a
   * pool, each on its server; a server that does not answer is said after the others are done.
   */
  async cancel(active: readonly ActiveAttempt[]): Promise<void> {
    const byServer = new Map<Server, ActiveAttempt[]>();
    for (const a of active) {
      const s = this.byName(serverOfHandle(a.attempt.handle));
      if (s) byServer.set(s, [...(byServer.get(s) ?? []), a]);
    }
    const failures = await Promise.all(
      [...byServer].map(async ([s, list]) => {
        try {
          const dirs = await Promise.all(list.map((a) => this.attemptDir(a.task.id, a.attempt.n, s)));
          const r = await s.transport.exec(renderCancel(CANCEL_FILE, this.killAfterS), {
            stdin: dirs.map((d) => `${d}\n`).join(''),
          });
          return r.code === 0 ? undefined : cancelFailed(r.code, r.stderr);
        } catch (e) {
          if (!this.pool) throw e;
          return e;
        }
      }),
    );
    const failure = failures.find((f) => f !== undefined);
    if (failure !== undefined) throw failure;
  }

  /** The log is where this executor puts it, never where a state says: a state is not trusted to name files. */
  async readLog(task: TaskSpec, attempt: Attempt): Promise<string> {
    const log = await this.logPath(task, attempt);
    return (
      (await this.shared()
        .transport.readFile(log, { maxBytes: LOG_LIMIT })
        .catch(() => undefined)) ?? ''
    );
  }

  async logPath(task: TaskSpec, attempt: Attempt): Promise<string> {
    return `${await this.attemptDir(task.id, attempt.n)}/log`;
  }

  outputFacts(task: TaskSpec, attempt: Attempt, withText: boolean): Promise<OutputFacts> {
    return this.shared().workdir.outputFacts(task, attempt.submittedAt, withText);
  }

  runCheck(task: TaskSpec, command: string): Promise<{ exitCode: number; tail: string }> {
    return this.shared().workdir.runCheck(task, command);
  }

  missing(paths: readonly string[]): Promise<string[]> {
    return this.shared().workdir.missing(paths);
  }

  writeFiles(files: readonly { path: string; text: string }[]): Promise<string[]> {
    return this.shared().workdir.writeFiles(files);
  }

  setAside(dest: string): Promise<SetAsideResult> {
    return this.shared().workdir.setAside(`.campaign/ssh-gpu/${this.opts.manifest.campaign}`, dest);
  }

  readFile(path: string): Promise<string | undefined> {
    return this.shared().workdir.readFile(path);
  }

  /** The servers share the workdir (checkShared): one of them takes it for all. */
  shipCode(snapshot: CodeSnapshot): Promise<void> {
    return this.shared().workdir.shipCode(snapshot);
  }

  removeCode(keep: ReadonlySet<string>): Promise<string[]> {
    return this.shared().workdir.removeCode(keep);
  }

  gather(
    paths: readonly string[],
    known: ReadonlyMap<string, string>,
    endsSuffice: boolean,
    take: TakeFile,
  ): Promise<void> {
    return this.shared().workdir.gather(paths, known, endsSuffice, take);
  }

  async close(): Promise<void> {
    await Promise.all(this.servers.map((s) => s.transport.close()));
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
