import type { Path } from '../../manifest/source.js';
import type { Rule, RuleFinding } from '../rule.js';

/**
 * On a GPU server without a scheduler, a task asking more GPUs than `cluster.gpus` lists would
 * wait for them forever: refused before the campaign starts. In a pool a task runs on one
 * server, so the largest server's list is the bound (known only when every server lists its GPUs).
 */
export const gpusBeyondServer: Rule = {
  id: 'gpus-beyond-server',
  severity: 'error',
  description: 'an ssh-gpu task asking for more GPUs than cluster.gpus (or the largest server’s gpus) lists',
  needs: 'plan',
  check({ manifest, source, plan }) {
    const cluster = manifest.cluster;
    if (cluster.executor !== 'ssh-gpu') return [];
    const lists = cluster.servers ? cluster.servers.map((s) => s.gpus) : [cluster.gpus];
    if (lists.some((l) => l === undefined)) return [];
    const have = Math.max(...lists.map((l) => l!.length));
    const where = cluster.servers ? 'the largest server of cluster.servers lists' : 'cluster.gpus lists';
    const findings: RuleFinding[] = [];
    for (const phasePlan of plan.phases) {
      const i = manifest.phases.findIndex((p) => p.name === phasePlan.name);
      const most = Math.max(0, ...phasePlan.arrays.map((a) => a.resources.gpus));
      if (most <= have) continue;
      const own = manifest.phases[i]?.resources?.gpus !== undefined;
      const path: Path = own ? ['phases', i, 'resources', 'gpus'] : ['defaults', 'resources', 'gpus'];
      findings.push({
        message: `phase "${phasePlan.name}" asks for ${most} GPUs per task, but ${where} ${have}: its tasks could never start`,
        position: source.at(path),
        fix: cluster.servers
          ? `ask for at most ${have} GPUs per task, or list more GPUs in a server's gpus`
          : `ask for at most ${have} GPUs per task, or list more GPUs in cluster.gpus`,
      });
    }
    return findings;
  },
};
