import { formatDuration } from '../../manifest/units.js';
import { minJobSeconds, packShape } from '../../plan/pack.js';
import type { Rule, RuleFinding } from '../rule.js';

/**
 * A packed element's walltime is the sum of its waves' budgets: one the partitions cannot hold,
 * or `auto` without a cost model to size it, would fail at submission (or pack nothing): refused
 * at lint, on the phase's `pack`.
 */
export const packBudget: Rule = {
  id: 'pack-budget',
  severity: 'error',
  description: 'a packed element whose walltime no partition holds, or pack: auto without a cost model',
  needs: 'plan',
  check({ manifest, source, plan }) {
    const findings: RuleFinding[] = [];
    plan.phases.forEach((phasePlan) => {
      const i = manifest.phases.findIndex((p) => p.name === phasePlan.name);
      const phase = manifest.phases[i];
      if (phase?.pack === undefined) return;
      const seen = new Set<string>();
      for (const array of phasePlan.arrays) {
        const packing = array.packing;
        // The task's own budget error is walltime-budget's to report.
        if (packing?.budget.error === undefined || array.budget.error !== undefined) continue;
        const error = packing.budget.error;
        if (seen.has(error)) continue;
        seen.add(error);
        const shape = packShape(phase.pack);
        const auto = shape.tasks === 'auto';
        findings.push({
          message: `${array.stage} stage of phase "${phase.name}", stratum ${array.stratum}: the packed element ${error} (${packing.budget.arithmetic})`,
          position: source.at(['phases', i, 'pack']),
          fix: auto
            ? error.startsWith('has no cost model')
              ? 'add a cost model (cost: { unit, units, per_unit }) so auto can size the element, or write the tasks per element (pack: N)'
              : `declare a partition with a larger max_time, or a smaller cluster.min_job (now ${formatDuration(minJobSeconds(manifest.cluster))})`
            : `pack fewer tasks per element, run them side by side (pack: { tasks: ${packing.tasks}, parallel: K }), or write pack: auto, which packs no more than the largest partition holds`,
        });
      }
    });
    return findings;
  },
};
