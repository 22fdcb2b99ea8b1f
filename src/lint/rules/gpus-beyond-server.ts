import type { Path } from '../../manifest/source.js';
import type { Rule, RuleFinding } from '../rule.js';

/**
 * On a GPU server without a scheduler, a task asking more GPUs than `cluster.gpus` lists would
 * wait for them forever: refused before the campaign starts.
 */
export const gpusBeyondServer: Rule = {
  id: 'gpus-beyond-server',
  severity: 'error',
  description: 'an ssh-gpu task asking for more GPUs than cluster.gpus lists',
  needs: 'plan',
  check({ manifest, source, plan }) {
    const c = manifest.cluster;
    if (c.executor !== 'ssh-gpu' || c.gpus === undefined) return [];
    const have = c.gpus.length;
    const findings: RuleFinding[] = [];
    for (const phasePlan of plan.phases) {
      const i = manifest.phases.findIndex((p) => p.name === phasePlan.name);
      const most = Math.max(0, ...phasePlan.arrays.map((a) => a.resources.gpus));
      if (most <= have) continue;
      const own = manifest.phases[i]?.resources?.gpus !== undefined;
      const path: Path = own ? ['phases', i, 'resources', 'gpus'] : ['defaults', 'resources', 'gpus'];
      findings.push({
        message: `phase "${phasePlan.name}" asks for ${most} GPUs per task, but cluster.gpus lists ${have}: its tasks could never start`,
        position: source.at(path),
        fix: `ask for at most ${have} GPUs per task, or list more GPUs in cluster.gpus`,
      });
    }
    return findings;
  },
};
