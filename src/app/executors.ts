/** The executor a manifest asks for, opened with its transport, and the plan fitted to the cluster. */
import { existsSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { UserError } from '../errors.js';
import { KEY_ENV, KEY_FILE_ENV, PASSPHRASE_ENV } from '../exec/secrets.js';
import type { Executor } from '../exec/executor.js';
import { LocalExecutor } from '../exec/local/local-executor.js';
import { SlurmExecutor } from '../exec/slurm/slurm-executor.js';
import { SshGpuExecutor } from '../exec/ssh-gpu/ssh-gpu-executor.js';
import { LocalTransport } from '../exec/transport/local.js';
import { SshTransport } from '../exec/transport/ssh.js';
import type { Transport } from '../exec/transport/transport.js';
import type { Cluster } from '../manifest/schema.js';
import type { ClusterOf, ExecutorKind } from '../plan/executor-kinds.js';
import { planCampaign, type Plan } from '../plan/plan.js';
import { localWorkdir, type Campaign } from './load.js';

/** The SSH key (its text, or its file) and passphrase, handed over by the front end. */
export interface SshSecrets {
  key?: string;
  keyFile?: string;
  passphrase?: string;
}

/** The secrets as the environment gives them: CAMPAIGN_SSH_KEY, _KEY_FILE and _PASSPHRASE. */
export function sshSecretsFrom(env: NodeJS.ProcessEnv): SshSecrets {
  return {
    ...(env[KEY_ENV] ? { key: env[KEY_ENV] } : {}),
    ...(env[KEY_FILE_ENV] ? { keyFile: env[KEY_FILE_ENV] } : {}),
    ...(env[PASSPHRASE_ENV] ? { passphrase: env[PASSPHRASE_ENV] } : {}),
  };
}

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

function transportFor(c: Campaign, ssh: SshSecrets): Transport {
  const cluster = c.manifest.cluster;
  if (cluster.executor === 'local' || !cluster.login) return new LocalTransport();
  const base = dirname(c.file);
  const keyFile = ssh.keyFile ?? defaultKey();
  if (!ssh.key && !keyFile) {
    throw new UserError({
      message: `no SSH key for ${cluster.login}`,
      fix: `put the private key's text in ${KEY_ENV}, or its path in ${KEY_FILE_ENV}`,
    });
  }
  return new SshTransport({
    target: cluster.login,
    ...(cluster.host_key ? { hostKeyFingerprint: cluster.host_key } : {}),
    ...(cluster.known_hosts ? { knownHostsFile: resolve(base, cluster.known_hosts) } : {}),
    // Looked up in an environment of their own, never process.env: no child can inherit them.
    ...(ssh.key ? { keyEnv: KEY_ENV } : { keyFile: keyFile! }),
    passphraseEnv: PASSPHRASE_ENV,
    env: { [KEY_ENV]: ssh.key, [PASSPHRASE_ENV]: ssh.passphrase },
  });
}

function defaultKey(): string | undefined {
  return ['id_ed25519', 'id_ecdsa', 'id_rsa'].map((k) => join(homedir(), '.ssh', k)).find((p) => existsSync(p));
}
