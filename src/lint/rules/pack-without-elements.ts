import { traitsOf } from '../../plan/executor-kinds.js';
import type { Rule, RuleFinding } from '../rule.js';

/**
 * `pack` puts several tasks in one Slurm array element. The local and ssh-gpu executors run
 * every task as its own process or session, with no job to share: the tasks run as they would
 * without it. A warning, not an error: nothing runs wrongly, but the manifest says something
 * that does not happen.
 */
export const packWithoutElements: Rule = {
  id: 'pack-without-elements',
  severity: 'warning',
  description: '`pack` on an executor that submits no array elements (local, ssh-gpu): it changes nothing',
  needs: 'manifest',
  check({ manifest, source }) {
    if (traitsOf(manifest.cluster).packs) return [];
    const findings: RuleFinding[] = [];
    manifest.phases.forEach((phase, i) => {
      if (phase.pack === undefined) return;
      findings.push({
        message: `phase "${phase.name}" packs its tasks, but the ${manifest.cluster.executor} executor runs each task on its own (no array element to pack into): pack changes nothing here`,
        position: source.at(['phases', i, 'pack'], { key: true }),
        fix: 'remove pack (it packs Slurm array elements), or run the campaign on executor: slurm',
      });
    });
    return findings;
  },
};
