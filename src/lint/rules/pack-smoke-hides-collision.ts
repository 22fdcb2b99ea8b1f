import { packShape } from '../../plan/pack.js';
import { needsTwo } from '../../plan/smoke.js';
import type { Rule, RuleFinding } from '../rule.js';

/**
 * DESIGN rule 6: where the smoke stage checks a collision property, its tasks must be able to
 * collide. Packed one after another into one element they never run at the same time: two
 * tasks writing one scratch file, or one output, in turn would pass a check that the full
 * stage, running them side by side, fails. `pack: auto` keeps the smoke stage in two elements
 * itself (plan/plan.ts); a number the manifest writes is its own, so it is refused here.
 */
export const packSmokeHidesCollision: Rule = {
  id: 'pack-smoke-hides-collision',
  severity: 'error',
  description:
    'a smoke stage that checks a collision property with all its tasks packed one after another in one element',
  needs: 'plan',
  check({ manifest, source, plan }) {
    const findings: RuleFinding[] = [];
    plan.phases.forEach((phasePlan) => {
      const i = manifest.phases.findIndex((p) => p.name === phasePlan.name);
      const phase = manifest.phases[i];
      if (phase?.pack === undefined || !needsTwo(phase)) return;
      const smoke = phasePlan.arrays.filter((a) => a.stage === 'smoke');
      const hidden = smoke.find(
        (a) =>
          a.tasks.length >= 2 &&
          a.packing !== undefined &&
          a.packing.parallel === 1 &&
          a.packing.tasks >= a.tasks.length,
      );
      if (hidden === undefined) return;
      const { tasks } = packShape(phase.pack);
      findings.push({
        message: `the smoke stage of phase "${phase.name}" packs its ${hidden.tasks.length} tasks of stratum ${hidden.stratum} into one element, one after another: they never run at the same time, so distinct_outputs cannot see them collide`,
        position: source.at(['phases', i, 'pack']),
        fix: `run them side by side (pack: { tasks: ${tasks}, parallel: 2 }), give the smoke stage more tasks than one element holds (smoke.tasks: ${typeof tasks === 'number' ? tasks + 1 : 'more'}), or write pack: auto, which packs a smoke stage into two elements at least`,
      });
    });
    return findings;
  },
};
