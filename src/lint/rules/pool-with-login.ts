import type { Rule, RuleFinding } from '../rule.js';

/** The keys a pool's servers each give for themselves. */
const PER_SERVER = ['login', 'host_key', 'known_hosts', 'ssh_config', 'jump', 'gpus'] as const;

/**
 * An ssh-gpu pool (`cluster.servers`) names its servers' logins, host keys and GPUs in each
 * server: the same keys beside it would leave open which one is meant. Handles name a server
 * by its login, so two servers with one login would be one server.
 */
export const poolWithLogin: Rule = {
  id: 'pool-with-login',
  severity: 'error',
  description: 'cluster.servers beside a single server’s login, host key or gpus, or two servers with one login',
  needs: 'manifest',
  check({ manifest, source }) {
    const cluster = manifest.cluster;
    if (cluster.executor !== 'ssh-gpu' || cluster.servers === undefined) return [];
    const findings: RuleFinding[] = [];
    for (const key of PER_SERVER) {
      if (cluster[key] === undefined) continue;
      findings.push({
        message: `cluster.${key} is given beside cluster.servers: a pool's servers each give their own`,
        position: source.at(['cluster', key]),
        fix: `move ${key} into the server of cluster.servers it belongs to, or remove cluster.servers to use one server`,
      });
    }
    const seen = new Set<string>();
    cluster.servers.forEach((s, i) => {
      if (seen.has(s.login))
        findings.push({
          message: `cluster.servers lists ${s.login} twice: a task is recorded on a server by its login`,
          position: source.at(['cluster', 'servers', i, 'login']),
          fix: 'list each server once (for two logins to one machine, use two Host aliases of the SSH config)',
        });
      seen.add(s.login);
    });
    return findings;
  },
};
