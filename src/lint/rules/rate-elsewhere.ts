import type { Rule, RuleFinding } from '../rule.js';

/** DESIGN rule 1: a rate measured on another cluster, or at another configuration, is an estimate. */
export const rateElsewhere: Rule = {
  id: 'rate-elsewhere',
  severity: 'warning',
  description: 'a cost rate measured on another cluster or at another configuration',
  needs: 'manifest',
  check({ manifest, source }) {
    const findings: RuleFinding[] = [];
    const here = manifest.cluster.name;
    manifest.phases.forEach((phase, i) => {
      const cost = phase.cost;
      if (!cost) return;
      if (cost.measured_on !== undefined && cost.measured_on !== here) {
        findings.push({
          message:
            here === undefined
              ? `the rate of phase "${phase.name}" was measured on "${cost.measured_on}", but the cluster has no name to compare: the walltime is an estimate, not a calibration`
              : `the rate of phase "${phase.name}" was measured on "${cost.measured_on}", but this campaign runs on "${here}": the walltime is an estimate, not a calibration`,
          position: source.at(['phases', i, 'cost', 'measured_on']),
          fix:
            here === undefined
              ? `set cluster.name: ${cost.measured_on} if this is that cluster, else measure the rate here`
              : `measure the rate on "${here}" and write measured_on: ${here}`,
        });
      }
      if (phase.config !== undefined && cost.config !== undefined && phase.config !== cost.config) {
        findings.push({
          message: `the rate of phase "${phase.name}" was measured at config "${cost.config}", but the phase runs at "${phase.config}": the walltime is an estimate, not a calibration`,
          position: source.at(['phases', i, 'cost', 'config']),
          fix: `measure the rate at "${phase.config}" and write config: "${phase.config}" in cost`,
        });
      }
    });
    return findings;
  },
};
