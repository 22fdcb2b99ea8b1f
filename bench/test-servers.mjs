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
