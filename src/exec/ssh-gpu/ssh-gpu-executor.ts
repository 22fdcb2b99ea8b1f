/**
 * The `ssh-gpu` executor: a lab GPU server with no scheduler, over a transport (SSH, or this
 * machine), or a pool of them (`cluster.servers`), each reached by its own transport. This class
 * composes its parts, one concern each: the servers and their health (pool.ts), the look at each
 * (probe.ts), which GPUs and server a task gets (placement.ts), starting attempts (launch.ts),
 * and seeing them start and end (ends.ts). Everything of an attempt lives in
 * `<workdir>/.campaign/ssh-gpu/<campaign>/attempts/<task id>/<attempt>/` (paths.ts), so two
 * campaigns never touch each other's tasks.
 */
import type { TaskSpec } from '../../manifest/expand.js';
import type { Manifest } from '../../manifest/schema.js';
import { oomPatterns } from '../../judge/attempt-end.js';
import type { Submission, TaskEvent } from '../../state/events.js';
import { waveMayStart, type GpuStatus } from '../../decide/gpu.js';
import type { Attempt } from '../../state/state.js';
import { CANCEL_FILE, renderCancel } from '../../render/wrapper.js';
import { cancelFailed, type ActiveAttempt, type Executor } from '../executor.js';
import { workdirThrough, type Workdir } from '../workdir.js';
import type { Transport } from '../transport/transport.js';
import { EndsObserver, LOG_LIMIT } from './ends.js';
import { Launcher, submitFailed, submitted } from './launch.js';
import { Notes } from './notes.js';
import { attemptDir, waveFile } from './paths.js';
import { gpusForShell, place, tasksAtOnce, whyWaiting, type PlacementRequest, type ShellGpus } from './placement.js';
import { Pool, type ServerCheck } from './pool.js';
import { gpuCount, Prober, probeSettings } from './probe.js';
import { gpusOfHandle, serverOfHandle, type Server, type SshGpuCluster } from './server.js';

/** Seconds between SIGTERM and SIGKILL, at the walltime, a cancel, or for what a task left behind. */
const KILL_AFTER_S = 10;
/** A probe reading older than this is taken again before GPUs are chosen. */
const VIEW_MAX_AGE_MS = 5_000;
/** Failed probes in a row after which waiting tasks stop waiting and fail (every wait is bounded). */
const PROBE_GIVE_UP = 20;

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

export class SshGpuExecutor implements Executor {
  private readonly manifest: Manifest;
  private readonly cluster: SshGpuCluster;
  private readonly now: () => string;
  private readonly killAfterS: number;
  private readonly notes: Notes;
  private readonly pool: Pool;
  private readonly launcher: Launcher;
  private readonly ends: EndsObserver;
  /** The workdir the servers share, through the one that stands for it when asked: the first that answers. */
  readonly workdir: Workdir = workdirThrough(() => this.pool.shared().workdir);

  constructor(opts: SshGpuExecutorOptions) {
    if (opts.manifest.cluster.executor !== 'ssh-gpu') throw new Error('SshGpuExecutor needs an ssh-gpu manifest');
    const { manifest } = opts;
    this.manifest = manifest;
    this.cluster = opts.manifest.cluster;
    this.now = opts.now ?? (() => new Date().toISOString());
    const warn = opts.warn ?? (() => {});
    this.killAfterS = opts.killAfterSeconds ?? KILL_AFTER_S;
    this.notes = new Notes(warn);
    const prober = new Prober(probeSettings(this.cluster, manifest.campaign), this.notes);
    this.pool = new Pool(manifest, this.cluster, opts, prober, warn);
    this.launcher = new Launcher(this.pool, { manifest, killAfterS: this.killAfterS, now: this.now, warn });
    this.ends = new EndsObserver(this.pool, {
      campaign: manifest.campaign,
      oomPatterns: oomPatterns(this.cluster.oom?.patterns),
      now: this.now,
    });
  }

  /** Where one attempt keeps its scripts, environment, GPUs, pid, exit marker and log. */
  attemptDir(taskId: string, attempt: number, server = this.pool.shared()): Promise<string> {
    return attemptDir(server, this.manifest.campaign, taskId, attempt);
  }

  /** `count` free GPUs of one server for a shell in a task's place (placement.ts). */
  gpusForShell(count: number, active: readonly string[]): Promise<ShellGpus> {
    return gpusForShell(this.pool, count, active);
  }

  capacity(active: number): number {
    const own = this.pool.servers.reduce((n, s) => n + tasksAtOnce(s), 0);
    const max = this.pool.pooled ? Math.min(this.cluster.max_parallel ?? Infinity, own) : own;
    // A wave runs to its end before anything else starts; whether its GPUs have settled is
    // decided at submission, so that the controller keeps looking meanwhile.
    if (this.cluster.mode === 'waves' && active > 0) return 0;
    return Math.max(0, max - active);
  }

  /** The probe run once before anything starts, and a pool's shared workdir checked (pool.ts). */
  check(): Promise<GpuStatus[]> {
    return this.pool.check();
  }

  /** Each server probed, what it has or why it could not be (pool.ts). */
  checkServers(): Promise<ServerCheck[]> {
    return this.pool.checkServers();
  }

  /** Whether a pool's servers share the workdir; a UserError when they do not (pool.ts). */
  checkShared(): Promise<void> {
    return this.pool.checkShared();
  }

  observe(active: readonly ActiveAttempt[]): Promise<TaskEvent[]> {
    return this.ends.observe(active);
  }

  /**
   * Starts the attempts: each server looked at afresh, what an earlier pass launched reported,
   * the others placed on free GPUs and launched, and in waves mode the wave's GPUs recorded.
   */
  async submit(submissions: readonly Submission[]): Promise<TaskEvent[]> {
    if (submissions.length === 0) return [];
    const { pool } = this;
    const { servers } = pool;
    await Promise.all(
      servers.map(async (s) => {
        if (pool.sitsOut(s) || (s.view && Date.now() - s.view.at <= VIEW_MAX_AGE_MS)) return;
        await pool.answered(s, () => pool.prober.look(s, []));
      }),
    );
    const up = servers.filter((s) => !s.out && !s.pending);
    if (up.length === 0) {
      this.notes.say('waiting', `${submissions.length} task(s) wait: no server of cluster.servers answers`);
      return [];
    }
    if (this.cluster.mode === 'waves') {
      for (const s of up) {
        const view = s.view!;
        const w = waveMayStart({
          active: 0,
          lastWave: view.wave,
          table: view.table,
          freeBelowMiB: pool.prober.settings.freeBelowMiB,
        });
        if (!w.ok) {
          this.notes.say('wave', `the next wave waits: ${w.why}${s.name === undefined ? '' : ` on ${s.name}`}`);
          return [];
        }
      }
    }
    // Found through any server: they share the workdir.
    const via = up[0]!;
    const dirs = await Promise.all(
      submissions.map((s) => attemptDir(via, this.manifest.campaign, s.task.id, s.attempt)),
    );
    const earlier = await Promise.all(submissions.map((s, i) => this.launcher.earlierLaunch(via, s, dirs[i]!)));

    const events: TaskEvent[] = [];
    const held = new Map(servers.map((s) => [s, new Set(s.held)]));
    const fresh: number[] = [];
    for (const [i, sub] of submissions.entries()) {
      const e = earlier[i]!;
      if (e.launch) {
        // Launched by a pass that crashed before saving: reported, never launched again.
        const on = pool.byName(e.launch.server);
        if (on) {
          e.launch.gpus.forEach((u) => held.get(on)!.add(u));
          on.running++;
        }
        events.push(submitted(sub, dirs[i]!, e.launch.at, e.launch.pid, e.launch.gpus, e.launch.server));
      } else fresh.push(i);
    }

    if (servers.every((s) => s.view?.error && s.probeFailures >= PROBE_GIVE_UP)) {
      const s0 = servers[0]!;
      const reason = pool.pooled
        ? `the GPU probe failed ${PROBE_GIVE_UP} times in a row on every server of cluster.servers (${s0.view!.error} on ${s0.where})`
        : `the GPU probe failed ${s0.probeFailures} times in a row (${s0.view!.error})`;
      return [...events, ...fresh.map((i) => submitFailed(submissions[i]!, this.now(), reason))];
    }
    // What a server has to use is known once its probe has listed its GPUs.
    const totals = servers.map((s) => (s.view?.table ? (s.gpus?.length ?? gpuCount(s)) : Infinity));
    const total = Math.max(...totals);
    const requests: PlacementRequest[] = [];
    for (const i of fresh) {
      const sub = submissions[i]!;
      const want = sub.array.resources.gpus;
      if (want > total) {
        const has = pool.pooled ? 'the largest server of cluster.servers has' : 'the server has';
        events.push(submitFailed(sub, this.now(), `asks for ${want} GPUs; ${has} ${total} to use`));
        continue;
      }
      const e = earlier[i]!;
      requests.push({ key: String(i), gpus: want, avoid: e.before, beforeOn: e.beforeServer });
    }
    const placed = place(pool, requests, up, held);
    const launched = (
      await Promise.all(
        up.map((s) => {
          const items = [...placed]
            .filter(([, p]) => p.server === s)
            .map(([key, p]) => ({ sub: submissions[Number(key)]!, gpus: p.gpus }));
          return this.launcher.launch(s, items);
        }),
      )
    ).flat();
    events.push(...launched);
    const waiting = requests.length - placed.size;
    if (waiting > 0) this.notes.say('waiting', `${waiting} task(s) wait for a free GPU (${whyWaiting(pool, held)})`);
    for (const s of up) {
      const gpusNow = launched.flatMap((e) =>
        e.type === 'submitted' && serverOfHandle(e.handle) === s.name ? gpusOfHandle(e.handle) : [],
      );
      if (this.cluster.mode === 'waves' && gpusNow.length > 0) {
        await s.transport.writeFile(await waveFile(s, this.manifest.campaign), `${gpusNow.join(',')}\n`);
        s.view!.wave = gpusNow;
      }
      gpusNow.forEach((u) => s.held.add(u));
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
      const s = this.pool.byName(serverOfHandle(a.attempt.handle));
      if (s) byServer.set(s, [...(byServer.get(s) ?? []), a]);
    }
    const failures = await Promise.all(
      [...byServer].map(async ([s, list]) => {
        try {
          const dirs = await Promise.all(
            list.map((a) => attemptDir(s, this.manifest.campaign, a.task.id, a.attempt.n)),
          );
          const r = await s.transport.exec(renderCancel(CANCEL_FILE, this.killAfterS), {
            stdin: dirs.map((d) => `${d}\n`).join(''),
          });
          return r.code === 0 ? undefined : cancelFailed(r.code, r.stderr);
        } catch (e) {
          if (!this.pool.pooled) throw e;
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
      (await this.pool
        .shared()
        .transport.readFile(log, { maxBytes: LOG_LIMIT })
        .catch(() => undefined)) ?? ''
    );
  }

  async logPath(task: TaskSpec, attempt: Attempt): Promise<string> {
    return `${await this.attemptDir(task.id, attempt.n)}/log`;
  }

  async close(): Promise<void> {
    await Promise.all(this.pool.servers.map((s) => s.transport.close()));
  }
}
