/** One GPU server of the ssh-gpu executor, how its attempts' handles name it, and what its not answering looks like. */
import { UserError } from '../../errors.js';
import type { ProbeTable } from '../../decide/gpu.js';
import type { Manifest } from '../../manifest/schema.js';
import type { TransportWorkdir } from '../transport-workdir.js';
import { LinkError, type Transport } from '../transport/transport.js';

/** The manifest's cluster, of the ssh-gpu executor. */
export type SshGpuCluster = Extract<Manifest['cluster'], { executor: 'ssh-gpu' }>;

/** What the last look at a server saw. */
export interface View {
  at: number;
  table?: ProbeTable;
  /** Why there is no table (the probe failed or hung). */
  error?: string;
  /** GPUs the current wave was started on. */
  wave: string[];
  /** GPUs a live `campaign shell` holds (render/shell-script.ts). */
  shells: Set<string>;
}

/** One GPU server: how it is reached, what it may run, and what the last look at it saw. */
export interface Server {
  /** Its login, which names it in handles and messages: set in a pool, undefined for the single server. */
  name?: string;
  /** How messages name it. */
  where: string;
  transport: Transport;
  workdir: TransportWorkdir;
  /** The GPU indices it may use (default: every GPU its probe lists). */
  gpus?: readonly number[];
  maxParallel?: number;
  view?: View;
  /** Probes that have failed in a row. */
  probeFailures: number;
  /** GPUs held by this campaign's active attempts there, as of the last observation. */
  held: Set<string>;
  /** This campaign's attempts there, as of the last observation and the launches since. */
  running: number;
  /** While a pool's server does not answer: why, and when it is tried again. */
  out?: { why: string; retryAt: number };
  /** A look at it still under way from an earlier pass (a server that is out is tried in the background). */
  pending?: Promise<void>;
}

/**
 * `[server:<login> ]pid:<pid> gpu:<uuid,…>`: the handle records the GPUs, so a restarted
 * controller knows what is held, and in a pool the server, so that it knows where to look.
 */
export const handleOf = (pid: string, gpus: readonly string[], server: string | undefined): string =>
  `${server === undefined ? '' : `server:${server} `}pid:${pid} gpu:${gpus.length > 0 ? gpus.join(',') : '-'}`;

/** The GPUs a handle names. */
export const gpusOfHandle = (handle: string | undefined): string[] =>
  (/ gpu:(\S+)$/.exec(handle ?? '')?.[1] ?? '-').split(',').filter((u) => u !== '-' && u !== '');

/** `server:<login> ` before a pool's handle: the server the attempt runs on. */
export const serverOfHandle = (handle: string | undefined): string | undefined =>
  /^server:(\S+) /.exec(handle ?? '')?.[1];

/** Why an attempt cannot be looked at in this pool, or undefined when its server is in it. */
export function outOfPoolReason(handle: string | undefined, names: ReadonlySet<string>): string | undefined {
  const server = serverOfHandle(handle);
  if (server === undefined) return 'its handle names no server of cluster.servers (it was started without a pool)';
  return names.has(server) ? undefined : `its server ${server} is no longer in cluster.servers`;
}

/** What a pool's server not answering looks like: the link, or a login that fails (a host down refuses it). */
export const isUnanswered = (e: unknown): boolean => e instanceof LinkError || e instanceof UserError;

/** A server that does not answer, as a warning said once per outage. */
export const notAnswering = (where: string, why: string, attempts: number): string =>
  `${where} does not answer (${why.split('\n')[0]}); ${attempts > 0 ? `its ${attempts} task(s) are looked at again when it does, and ` : ''}no task starts there until then`;

/** The UserError for a pool whose servers do not see the same workdir. */
export function sharedWorkdirProblem(first: string, other: string, path: string): UserError {
  return new UserError({
    message: `the servers of cluster.servers do not share the workdir: ${path}, written on ${first}, is not there on ${other}`,
    fix: 'put the workdir on a filesystem every server mounts at the same path (an NFS home, say), or run one campaign per server',
  });
}
