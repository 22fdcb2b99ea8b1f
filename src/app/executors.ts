/** The executor a manifest asks for, opened with its transport, and the plan fitted to the cluster. */
import type { Executor } from '../exec/executor.js';
import { LocalExecutor } from '../exec/local/local-executor.js';
import { SlurmExecutor } from '../exec/slurm/slurm-executor.js';
import { SshGpuExecutor } from '../exec/ssh-gpu/ssh-gpu-executor.js';
import type { Cluster } from '../manifest/schema.js';
import type { ClusterOf, ExecutorKind } from '../plan/executor-kinds.js';
import { planCampaign, type Plan } from '../plan/plan.js';
import { localWorkdir, type Campaign } from './load.js';
import { type SshSecrets, transportFor } from './transport-for.js';

export interface OpenOptions {
  ssh: SshSecrets;
  /** When the campaign began (the state's creation): how far back the scheduler is asked. */
  since: () => string;
  warn: (message: string) => void;
  /** Read the cluster's limits and check the plan against them (before submitting). */
  checkCluster: boolean;
}

/** How a kind is opened, with its pre-flight (reading the cluster, fitting the plan to it). */
interface Opener<C extends Cluster> {
  open(c: Campaign, cluster: C, opts: OpenOptions): Promise<{ executor: Executor; plan: Plan }>;
}

/**
 * Every executor kind, keyed by `cluster.executor`: a kind the schema gains and this table
 * lacks is a compile error. Its traits for the core are in plan/executor-kinds.ts.
 */
const OPENERS: { [K in ExecutorKind]: Opener<ClusterOf<K>> } = {
  local: {
    open: async (c) => ({
      executor: new LocalExecutor({ manifest: c.manifest, workdir: localWorkdir(c) }),
      plan: c.plan,
    }),
  },
  'ssh-gpu': {
    async open(c, _cluster, opts) {
      const executor = new SshGpuExecutor({
        manifest: c.manifest,
        transport: transportFor(c, opts.ssh),
        warn: opts.warn,
      });
      if (opts.checkCluster) await closingOnError(executor, () => executor.check());
      return { executor, plan: c.plan };
    },
  },
  slurm: {
    async open(c, _cluster, opts) {
      const executor = new SlurmExecutor({
        manifest: c.manifest,
        transport: transportFor(c, opts.ssh),
        get since() {
          return opts.since();
        },
        warn: opts.warn,
      });
      if (!opts.checkCluster) return { executor, plan: c.plan };
      return closingOnError(executor, async () => {
        const limits = await executor.limits();
        const plan = planCampaign(c.manifest, undefined, limits.maxArraySize);
        SlurmExecutor.checkPlan(plan, limits);
        return { executor, plan };
      });
    },
  },
};

export function openExecutor(c: Campaign, opts: OpenOptions): Promise<{ executor: Executor; plan: Plan }> {
  const opener = OPENERS[c.manifest.cluster.executor] as Opener<Cluster>;
  return opener.open(c, c.manifest.cluster, opts);
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
