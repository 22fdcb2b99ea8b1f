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
import { planCampaign, type Plan } from '../plan/plan.js';
import { localWorkdir, type Campaign } from './load.js';

export { KEY_ENV, KEY_FILE_ENV, PASSPHRASE_ENV };

export interface OpenOptions {
  /** When the campaign began (the state's creation): how far back the scheduler is asked. */
  since: () => string;
  warn: (message: string) => void;
  /** Read the cluster's limits and check the plan against them (before submitting). */
  checkCluster: boolean;
}

export async function openExecutor(c: Campaign, opts: OpenOptions): Promise<{ executor: Executor; plan: Plan }> {
  const cluster = c.manifest.cluster;
  if (cluster.executor === 'local') {
    return { executor: new LocalExecutor({ manifest: c.manifest, workdir: localWorkdir(c) }), plan: c.plan };
  }
  const transport = transportFor(c);
  if (cluster.executor === 'ssh-gpu') {
    const executor = new SshGpuExecutor({ manifest: c.manifest, transport, warn: opts.warn });
    if (opts.checkCluster)
      await executor.check().catch(async (e: unknown) => {
        await executor.close();
        throw e;
      });
    return { executor, plan: c.plan };
  }
  const executor = new SlurmExecutor({
    manifest: c.manifest,
    transport,
    get since() {
      return opts.since();
    },
    warn: opts.warn,
  });
  if (!opts.checkCluster) return { executor, plan: c.plan };
  try {
    const limits = await executor.limits();
    const plan = planCampaign(c.manifest, undefined, limits.maxArraySize);
    SlurmExecutor.checkPlan(plan, limits);
    return { executor, plan };
  } catch (e) {
    await executor.close();
    throw e;
  }
}

function transportFor(c: Campaign): Transport {
  const cluster = c.manifest.cluster;
  if (cluster.executor === 'local' || !cluster.login) return new LocalTransport();
  const base = dirname(c.file);
  const keyFile = process.env[KEY_FILE_ENV] ?? defaultKey();
  if (!process.env[KEY_ENV] && !keyFile) {
    throw new UserError({
      message: `no SSH key for ${cluster.login}`,
      fix: `put the private key's text in ${KEY_ENV}, or its path in ${KEY_FILE_ENV}`,
    });
  }
  return new SshTransport({
    target: cluster.login,
    ...(cluster.host_key ? { hostKeyFingerprint: cluster.host_key } : {}),
    ...(cluster.known_hosts ? { knownHostsFile: resolve(base, cluster.known_hosts) } : {}),
    ...(process.env[KEY_ENV] ? { keyEnv: KEY_ENV } : { keyFile: keyFile! }),
    passphraseEnv: PASSPHRASE_ENV,
  });
}

function defaultKey(): string | undefined {
  return ['id_ed25519', 'id_ecdsa', 'id_rsa'].map((k) => join(homedir(), '.ssh', k)).find((p) => existsSync(p));
}
