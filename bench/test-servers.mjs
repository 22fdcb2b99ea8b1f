// The test cluster and its login node as the bench scripts reach them: the variables the
// env files of scripts/cluster/up and scripts/sshd/up export.
import { readFileSync } from 'node:fs';

const envFile = (file) =>
  Object.fromEntries(
    [...readFileSync(file, 'utf8').matchAll(/^export (\w+)='?([^'\n]*)'?$/gm)].map((m) => [m[1], m[2]]),
  );

export const cluster = envFile('/tmp/campaign-cluster/env');
export const sshd = envFile('/tmp/campaign-sshd/env');
/** This process's environment with the cluster's: what Slurm's commands here need. */
export const slurmEnv = { ...process.env, ...cluster };

/** A manifest's head for a campaign on the test cluster over SSH: everything up to `phases:`. */
export const clusterHead = (name, workdir, maxParallel) => `campaign: ${name}
cluster:
  executor: slurm
  name: campaign-test
  login: ${sshd.CAMPAIGN_SSH_TARGET}
  host_key: ${sshd.CAMPAIGN_SSH_FINGERPRINT}
  partitions: [{ name: debug, max_time: 30m }]
  max_parallel: ${maxParallel}
workdir: ${workdir}
defaults:
  resources: { cpus: 1, mem: 100M }
`;
