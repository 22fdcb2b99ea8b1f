import { packShape } from '../../plan/pack.js';
import type { Rule, RuleFinding } from '../rule.js';

/**
 * `pack: { tasks, parallel: K }` runs K tasks side by side within the element's CPUs and GPUs
 * (the phase's resources): each needs one CPU at least, and its own whole GPUs, the same number
 * for each, or the devices gate of the tasks that got fewer would fail every time.
 */
export const packParallelBeyondElement: Rule = {
  id: 'pack-parallel-beyond-element',
  severity: 'error',
  description: 'pack.parallel beyond what the element’s CPUs and GPUs hold (a CPU each, the same whole GPUs each)',
  needs: 'plan',
  check({ manifest, source, plan }) {
    const findings: RuleFinding[] = [];
    plan.phases.forEach((phasePlan) => {
      const i = manifest.phases.findIndex((p) => p.name === phasePlan.name);
      const pack = manifest.phases[i]?.pack;
      if (pack === undefined) return;
      const { parallel } = packShape(pack);
      if (parallel === 1) return;
      const seen = new Set<string>();
      for (const array of phasePlan.arrays) {
        const { cpus, gpus } = array.resources;
        const problem =
          parallel > cpus
            ? `${cpus} CPU${cpus === 1 ? '' : 's'} cannot run ${parallel} tasks side by side`
            : gpus > 0 && gpus % parallel !== 0
              ? `${gpus} GPU${gpus === 1 ? '' : 's'} do not split into ${parallel} tasks of whole GPUs`
              : undefined;
        if (problem === undefined || seen.has(problem)) continue;
        seen.add(problem);
        findings.push({
          message: `phase "${phasePlan.name}" runs ${parallel} packed tasks at once in each element, but its element's ${problem}`,
          position: source.at(['phases', i, 'pack', 'parallel']),
          fix:
            gpus > 0
              ? `run at most ${largestDivisor(gpus, cpus)} side by side, or ask for ${parallel * Math.max(1, Math.ceil(gpus / parallel))} GPUs and ${Math.max(cpus, parallel)} CPUs per element in resources`
              : `run at most ${cpus} side by side, or ask for ${parallel} CPUs per element in resources.cpus`,
        });
      }
    });
    return findings;
  },
};

/** The most tasks that split `gpus` GPUs into equal whole shares, with a CPU each. */
function largestDivisor(gpus: number, cpus: number): number {
  for (let k = Math.min(gpus, cpus); k > 1; k--) if (gpus % k === 0) return k;
  return 1;
}
