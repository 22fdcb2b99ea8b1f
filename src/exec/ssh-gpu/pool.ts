/**
 * The ssh-gpu executor's servers and their health: the single server, or a pool's
 * (`cluster.servers`), each reached by its own transport. A pool's servers share the workdir
 * (checked before the first submission): an attempt's files are read through any of them, its
 * process only through its own. A pool's server that does not answer sits passes out (its
 * attempts keep their state, nothing new starts there) and is tried again in the background, so
 * that a pass never waits on a server that is down.
 */
import type { Manifest } from '../../manifest/schema.js';
import type { GpuStatus } from '../../decide/gpu.js';
import { TransportWorkdir } from '../transport-workdir.js';
import type { Transport } from '../transport/transport.js';
import { campaignFolder } from './paths.js';
import type { Prober } from './probe.js';
import { isUnanswered, notAnswering, sharedWorkdirProblem, type Server, type SshGpuCluster } from './server.js';

/** Seconds a pool's server may take to answer a look beyond its probe's timeout before the pass goes on without it. */
const ANSWER_GRACE_S = 10;
/** How soon a pool's server that did not answer is tried again (in the background). */
const RETRY_OUT_MS = 5_000;

/** A server's own GPUs and what holds them, or why it could not be looked at (`campaign check`). */
export interface ServerCheck {
  where: string;
  gpus?: GpuStatus[];
  error?: unknown;
  /** The error is the server not answering, not a mistake in the manifest. */
  unreachable?: boolean;
}

/** How the servers are reached: the single server's transport, or a pool's, one per entry of cluster.servers. */
export interface PoolTransports {
  transport?: Transport;
  servers?: readonly Transport[];
}

export class Pool {
  /** The servers: one, or a pool's in the order of cluster.servers. */
  readonly servers: Server[];
  /** The servers are cluster.servers (a pool, even of one), whose handles name their server. */
  readonly pooled: boolean;

  constructor(
    private readonly manifest: Manifest,
    private readonly cluster: SshGpuCluster,
    transports: PoolTransports,
    readonly prober: Prober,
    private readonly warn: (message: string) => void,
  ) {
    const pool = cluster.servers;
    this.pooled = pool !== undefined;
    if (pool) {
      if (transports.servers?.length !== pool.length) throw new Error('SshGpuExecutor needs a transport per server');
      this.servers = pool.map((s, i) => this.server(transports.servers![i]!, s.login, s.gpus, s.max_parallel));
    } else {
      if (!transports.transport) throw new Error('SshGpuExecutor needs a transport');
      this.servers = [this.server(transports.transport, undefined, cluster.gpus, cluster.max_parallel)];
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
      workdir: new TransportWorkdir(transport, this.manifest, { folder: campaignFolder(this.manifest.campaign) }),
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
  shared(): Server {
    return this.servers.find((s) => !s.out && !s.pending) ?? this.servers[0]!;
  }

  /** The server a handle names (serverOfHandle); the single server whatever the name. */
  byName(name: string | undefined): Server | undefined {
    return this.pooled ? this.servers.find((s) => s.name === name) : this.servers[0];
  }

  /**
   * Runs the probe once before anything starts: a probe that fails outright (not found, no GPU
   * listed), or a GPU in cluster.gpus that it does not list, is a mistake to fix, not a wait. In
   * a pool, every server is probed, and a server that does not answer is said and waited for
   * (as long as one answers); the servers must share the workdir.
   */
  async check(): Promise<GpuStatus[]> {
    if (!this.pooled) {
      const s = this.servers[0]!;
      await this.prober.look(s, []);
      return this.prober.judge(s);
    }
    const checks = await this.checkServers();
    const refused = checks.find((serverCheck) => serverCheck.error !== undefined && !serverCheck.unreachable);
    if (refused) throw refused.error;
    if (checks.every((serverCheck) => serverCheck.unreachable)) throw checks[0]!.error;
    for (const [i, serverCheck] of checks.entries())
      if (serverCheck.unreachable) this.warn(notAnswering(serverCheck.where, this.servers[i]!.out!.why, 0));
    await this.checkShared();
    return checks.flatMap((serverCheck) => serverCheck.gpus ?? []);
  }

  /**
   * Each server probed, what it has or why it could not be; a server that does not answer is
   * left out for now (said by the caller).
   */
  async checkServers(): Promise<ServerCheck[]> {
    return Promise.all(
      this.servers.map(async (s): Promise<ServerCheck> => {
        try {
          await this.prober.look(s, []);
        } catch (e) {
          if (!isUnanswered(e)) throw e;
          s.out = { why: (e as Error).message, retryAt: Date.now() + RETRY_OUT_MS };
          return { where: s.where, error: e, unreachable: true };
        }
        try {
          return { where: s.where, gpus: this.prober.judge(s) };
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
    const rel = `${campaignFolder(this.manifest.campaign)}/pool-check`;
    const token = `${Date.now()} ${Math.random()}\n`;
    const path = `${await first.workdir.path()}/${rel}`;
    await first.transport.mkdirp(path.slice(0, path.lastIndexOf('/')));
    await first.transport.writeFile(path, token);
    for (const s of others) {
      const seen = await s.transport.readFile(`${await s.workdir.path()}/${rel}`).catch(() => undefined);
      if (seen !== token) throw sharedWorkdirProblem(first.where, s.where, path);
    }
  }

  /**
   * Whether a pool's server sits this pass out: it has not answered lately. Once its wait is
   * over it is tried again in the background, so that a pass never waits on a server that is down.
   */
  sitsOut(s: Server): boolean {
    if (!this.pooled) return false;
    if (s.pending) return true;
    if (!s.out) return false;
    if (Date.now() >= s.out.retryAt) {
      s.pending = this.prober.look(s, []).then(
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
  async answered<T>(s: Server, work: () => Promise<T>): Promise<T | undefined> {
    if (!this.pooled) return work();
    const within = this.prober.settings.timeoutS + ANSWER_GRACE_S;
    const done = work().then(
      (value) => ({ value }),
      (error: unknown) => ({ error }),
    );
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<'late'>((r) => (timer = setTimeout(() => r('late'), within * 1000)));
    const first = await Promise.race([done, late]);
    clearTimeout(timer);
    if (first === 'late') {
      this.leaveOut(s, `no answer within ${within}s`);
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
  leaveOut(s: Server, why: string): void {
    if (!s.out) this.warn(notAnswering(s.where, why, s.running));
    s.out = { why, retryAt: Date.now() + RETRY_OUT_MS };
  }

  private backIn(s: Server): void {
    if (!s.out) return;
    delete s.out;
    this.warn(`${s.where} answers again: its tasks are looked at, and tasks start there, as before`);
  }
}
