// The test cluster and its login nodes as the bench scripts reach them: the variables the
// env files of scripts/cluster/up, scripts/sshd/up and scripts/automation-node/up export.
import { readFileSync } from 'node:fs';

const envFile = (file) =>
  Object.fromEntries(
    [...readFileSync(file, 'utf8').matchAll(/^export (\w+)='?([^'\n]*)'?$/gm)].map((m) => [m[1], m[2]]),
  );

export const cluster = envFile('/tmp/campaign-cluster/env');
export const sshd = envFile('/tmp/campaign-sshd/env');
/** This process's environment with the cluster's: what Slurm's commands here need. */
export const slurmEnv = { ...process.env, ...cluster };

/** The login node with a shell (scripts/sshd/up): how a manifest and SshTransport reach it. */
export const shellLogin = {
  target: sshd.CAMPAIGN_SSH_TARGET,
  fingerprint: sshd.CAMPAIGN_SSH_FINGERPRINT,
  keyFile: sshd.CAMPAIGN_SSH_KEY_FILE,
  restricted: false,
};

/**
 * The automation node of scripts/automation-node/up in `dir` (the `all` key: Slurm's commands,
 * listing, SFTP), read when asked: only the benches that use it start it.
 */
export function automationLogin(dir) {
  const node = envFile(`${dir}/env`);
  return {
    target: node.CAMPAIGN_AUTOMATION_TARGET,
    fingerprint: node.CAMPAIGN_AUTOMATION_FINGERPRINT,
    keyFile: node.CAMPAIGN_AUTOMATION_KEY_ALL,
    restricted: true,
    log: node.CAMPAIGN_AUTOMATION_LOG,
  };
}

/** A manifest's head for a campaign on the test cluster over SSH: everything up to `phases:`. */
export const clusterHead = (name, workdir, maxParallel, login = shellLogin) => `campaign: ${name}
cluster:
  executor: slurm
  name: campaign-test
  login: ${login.target}
  host_key: ${login.fingerprint}
${login.restricted ? '  restricted: true\n' : ''}  partitions: [{ name: debug, max_time: 30m }]
  max_parallel: ${maxParallel}
workdir: ${workdir}
defaults:
  resources: { cpus: 1, mem: 100M }
`;
