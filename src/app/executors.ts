/** The executor a manifest asks for, opened with its transport, and the plan fitted to the cluster. */
import type { GpuStatus } from '../decide/gpu.js';
import { UserError } from '../errors.js';
import type { Executor } from '../exec/executor.js';
import { LocalExecutor } from '../exec/local/local-executor.js';
import type { ClusterLimits } from '../exec/slurm/fit.js';
import { SlurmExecutor } from '../exec/slurm/slurm-executor.js';
import { chargesOf } from '../exec/slurm/submit-limit.js';
import { ARRAY_SIZE_OPTION, type Refusal } from '../exec/slurm/test-only.js';
import { SshGpuExecutor } from '../exec/ssh-gpu/ssh-gpu-executor.js';
import { LocalTransport } from '../exec/transport/local.js';
import type { Transport } from '../exec/transport/transport.js';
import { restriction, type Cluster } from '../manifest/schema.js';
import type { ClusterOf, ExecutorKind } from '../plan/executor-kinds.js';
import { planCampaign, type Plan } from '../plan/plan.js';
import { localWorkdir, type Campaign } from './load.js';
import { sharedOutputItems } from './shared-outputs.js';
import { failedItems, runPreflight, type PreflightItem } from './preflight.js';
import { queueLimitItem } from './queue-limit.js';
import { type SshSecrets, transportFor } from './transport-for.js';

export interface OpenOptions {
  ssh: SshSecrets;
  /** When the campaign began (the state's creation): how far back the scheduler is asked. */
  since: () => string;
  warn: (message: string) => void;
  /** Read the cluster's limits and check the plan against them (before submitting). */
  checkCluster: boolean;
}

/** An executor with the transport it reaches its machines by, and where its workdir is there. */
interface Made<E extends Executor = Executor> {
  executor: E;
  transport: Transport;
  /** Where the campaign's workdir is, how it is named in messages. */
  where: string;
}

/** How a kind is opened, and what it adds to the pre-flight. */
interface Opener<C extends Cluster, E extends Executor> {
  make(c: Campaign, cluster: C, opts: OpenOptions): Made<E>;
  /** Reads the cluster and fits the plan to it before anything is submitted; throws a UserError for what it refuses. */
  fit(made: Made<E>, c: Campaign): Promise<Plan>;
  /** The kind's own pre-flight checks, after the shared ones (`campaign check`). */
  preflight(made: Made<E>, c: Campaign): Promise<PreflightItem[]>;
}

/** The executor class of each kind. */
interface ExecutorOfKind {
  local: LocalExecutor;
  'ssh-gpu': SshGpuExecutor;
  slurm: SlurmExecutor;
}

function remote(c: Campaign, opts: OpenOptions): { transport: Transport; where: string } {
  const cluster = c.manifest.cluster;
  const login = cluster.executor === 'local' ? undefined : cluster.login;
  return { transport: transportFor(c, opts.ssh), where: login ?? 'this machine' };
}

/**
 * Every executor kind, keyed by `cluster.executor`: a kind the schema gains and this table
 * lacks is a compile error. Its traits for the core are in plan/executor-kinds.ts.
 */
const OPENERS: { [K in ExecutorKind]: Opener<ClusterOf<K>, ExecutorOfKind[K]> } = {
  local: {
    make: (c) => ({
      executor: new LocalExecutor({ manifest: c.manifest, workdir: localWorkdir(c) }),
      transport: new LocalTransport({ environment: 'inherited' }),
      where: 'this machine',
    }),
    fit: async (_made, c) => c.plan,
    preflight: async () => [],
  },
  'ssh-gpu': {
    make(c, cluster, opts) {
      if (cluster.servers) return poolMade(c, cluster.servers, opts);
      const { transport, where } = remote(c, opts);
      const executor = new SshGpuExecutor({ manifest: c.manifest, transport, warn: opts.warn });
      return { executor, transport, where };
    },
    async fit(made, c) {
      await made.executor.check();
      return c.plan;
    },
    async preflight(made, c) {
      if (c.manifest.cluster.executor === 'ssh-gpu' && c.manifest.cluster.servers) return poolPreflight(made.executor);
      let gpus;
      try {
        gpus = await made.executor.check();
      } catch (e) {
        return failedItems('gpus', e);
      }
      return [gpusItem(gpus)];
    },
  },
  slurm: {
    make(c, _cluster, opts) {
      const { transport, where } = remote(c, opts);
      const executor = new SlurmExecutor({
        manifest: c.manifest,
        transport,
        get since() {
          return opts.since();
        },
        warn: opts.warn,
      });
      return { executor, transport, where };
    },
    async fit(made, c) {
      const { executor } = made;
      const { plan, refusals } = await testedPlan(executor, c, await slurmPlan(executor, c));
      if (refusals.length > 0) throw SlurmExecutor.refused(refusals);
      return plan;
    },
    async preflight(made, c) {
      const { executor } = made;
      let fitted: SlurmPlan;
      try {
        fitted = await slurmPlan(executor, c);
      } catch (e) {
        return failedItems('cluster', e);
      }
      const { plan, refusals } = await testedPlan(executor, c, fitted);
      const items: PreflightItem[] = [
        { check: 'cluster', status: 'ok', detail: 'partitions, walltime caps and MaxArraySize fit the plan' },
        queueLimitItem(
          fitted.limits,
          plan,
          c.manifest.cluster.max_parallel,
          restriction(c.manifest.cluster) !== undefined,
        ),
      ];
      for (const r of refusals) items.push(...failedItems('submission', SlurmExecutor.refused([r]), [r.phase]));
      const arrays = plan.phases.reduce((n, p) => n + p.arrays.length, 0);
      if (refusals.length === 0)
        items.push({ check: 'submission', status: 'ok', detail: `sbatch --test-only accepts the ${arrays} arrays` });
      return items;
    },
  },
};

/** What the GPUs of a server are, as `campaign check` says it; `on` names the server of a pool. */
function gpusItem(gpus: readonly GpuStatus[], on = ''): PreflightItem {
  const free = gpus.filter((g) => g.free);
  const busy = gpus.filter((g) => !g.free).map((g) => `GPU ${g.index}: ${g.why}`);
  return {
    check: 'gpus',
    // Busy GPUs only delay tasks: they start as GPUs come free.
    status: free.length === 0 ? 'warn' : 'ok',
    detail: `${on}${free.length} of ${gpus.length} GPUs free${busy.length > 0 ? ` (${busy.join('; ')})` : ''}`,
    ...(free.length === 0 ? { fix: 'tasks wait until a GPU is free; see what holds them with nvidia-smi' } : {}),
  };
}

type PoolServer = NonNullable<Extract<Cluster, { executor: 'ssh-gpu' }>['servers']>[number];

/** A pool's executor, a transport per server, each made as for a single server's login; the first stands for the pool. */
function poolMade(c: Campaign, servers: readonly PoolServer[], opts: OpenOptions): Made<SshGpuExecutor> {
  const transports = servers.map((s) => {
    const access = {
      login: s.login,
      ...(s.host_key === undefined ? {} : { host_key: s.host_key }),
      ...(s.known_hosts === undefined ? {} : { known_hosts: s.known_hosts }),
      ...(s.ssh_config === undefined ? {} : { ssh_config: s.ssh_config }),
      ...(s.jump === undefined ? {} : { jump: s.jump }),
    };
    return transportFor({ ...c, manifest: { ...c.manifest, cluster: { executor: 'ssh-gpu', ...access } } }, opts.ssh);
  });
  const executor = new SshGpuExecutor({ manifest: c.manifest, servers: transports, warn: opts.warn });
  return { executor, transport: transports[0]!, where: servers[0]!.login };
}

/** Every server of a pool probed, one item each, and whether they share the workdir. */
async function poolPreflight(executor: SshGpuExecutor): Promise<PreflightItem[]> {
  const items: PreflightItem[] = [];
  for (const ch of await executor.checkServers()) {
    if (ch.gpus) items.push(gpusItem(ch.gpus, `${ch.where}: `));
    else if (ch.error instanceof UserError) items.push(...failedItems('gpus', ch.error));
    else
      items.push({
        check: 'gpus',
        status: 'fail',
        detail: `${ch.where} does not answer: ${(ch.error as Error).message}`,
        fix: 'check that the server is up and reachable; the campaign waits for it when another server answers',
      });
  }
  try {
    await executor.checkShared();
    items.push({ check: 'workdir', status: 'ok', detail: 'the servers that answer share the workdir' });
  } catch (e) {
    items.push(...failedItems('workdir', e));
  }
  return items;
}

interface SlurmPlan {
  plan: Plan;
  limits: ClusterLimits;
}

/** The plan checked against the cluster's partitions and caps (and MaxArraySize, where known). */
async function slurmPlan(executor: SlurmExecutor, c: Campaign): Promise<SlurmPlan> {
  const cluster = c.manifest.cluster;
  const limits = await executor.limits(chargesOf(c.plan, cluster.executor === 'slurm' ? cluster.account : undefined));
  return { plan: fitted(c, limits), limits };
}

/** The plan with arrays within `limits.maxArraySize`, checked against the limits. */
function fitted(c: Campaign, limits: ClusterLimits): Plan {
  const plan = planCampaign(c.manifest, undefined, limits.maxArraySize, c.code?.facts);
  SlurmExecutor.checkPlan(plan, limits);
  return plan;
}

/**
 * The plan with what `sbatch --test-only` refuses of it. An array over the cluster's
 * MaxArraySize is refused there, and only then is the configuration read (it costs slurmctld
 * two RPCs) and the plan's arrays cut to fit.
 */
async function testedPlan(
  executor: SlurmExecutor,
  c: Campaign,
  { plan, limits }: SlurmPlan,
): Promise<{ plan: Plan; refusals: Refusal[] }> {
  const refusals = await executor.testSubmissions(plan);
  if (limits.maxArraySize !== undefined || !refusals.some((r) => r.option === ARRAY_SIZE_OPTION))
    return { plan, refusals };
  const cut = fitted(c, { ...limits, maxArraySize: await executor.maxArraySize() });
  return { plan: cut, refusals: await executor.testSubmissions(cut) };
}

function opener(c: Campaign): Opener<Cluster, Executor> {
  return OPENERS[c.manifest.cluster.executor] as unknown as Opener<Cluster, Executor>;
}

/**
 * The executor, the plan fitted to the cluster where `checkCluster`, and the transport the
 * executor reaches its (first) machine by.
 */
export async function openExecutor(
  c: Campaign,
  opts: OpenOptions,
): Promise<{ executor: Executor; plan: Plan; transport: Transport }> {
  const kind = opener(c);
  const made = kind.make(c, c.manifest.cluster, opts);
  const opened = { executor: made.executor, transport: made.transport };
  if (!opts.checkCluster) return { ...opened, plan: c.plan };
  return { ...opened, plan: await closingOnError(made.executor, () => kind.fit(made, c)) };
}

/** `campaign check`: the shared pre-flight, then the kind's own; nothing is submitted. */
export async function preflightCampaign(
  c: Campaign,
  opts: Omit<OpenOptions, 'checkCluster'>,
): Promise<PreflightItem[]> {
  const kind = opener(c);
  const made = kind.make(c, c.manifest.cluster, { ...opts, checkCluster: false });
  try {
    const items = await runPreflight(c, c.plan, made, () => kind.preflight(made, c));
    // Another campaign beside this one writing the same files would have its smoke stage refused.
    return [...items, ...(await sharedOutputItems(c.file))];
  } finally {
    await made.executor.close();
  }
}

/** `work`'s result; the executor closed when it throws (its connection would hold the process). */
async function closingOnError<T>(executor: Executor, work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (e) {
    await executor.close();
    throw e;
  }
}
