import { formatDuration, parseDuration } from '../../manifest/units.js';
import { DEFAULT_WALLTIME_SECONDS } from '../../plan/walltime.js';
import type { Rule, RuleFinding } from '../rule.js';

/** DESIGN rule 1: walltime is budgeted from a rate measured on a named cluster, not guessed. */
export const walltimeNotMeasured: Rule = {
  id: 'walltime-not-measured',
  severity: 'warning',
  description: 'a phase whose walltime does not come from a measured rate',
  needs: 'manifest',
  check({ manifest, source }) {
    const findings: RuleFinding[] = [];
    const example = `cost: { unit: epoch, units: 10, per_unit: 90s, measured_on: ${manifest.cluster.name ?? '<cluster name>'} }`;
    manifest.phases.forEach((phase, i) => {
      const shown = (d: string | number): string => formatDuration(parseDuration(d) ?? 0);
      if (phase.walltime !== undefined && !phase.cost) {
        findings.push({
          message: `phase "${phase.name}" asks a fixed walltime of ${shown(phase.walltime)}, not a budget from a measured rate`,
          position: source.at(['phases', i, 'walltime']),
          fix: `replace walltime with a cost model measured on the cluster, e.g. ${example}`,
        });
      } else if (phase.walltime !== undefined) {
        findings.push({
          message: `phase "${phase.name}" has a cost model, but its fixed walltime of ${shown(phase.walltime)} overrides the budget from the measured rate`,
          position: source.at(['phases', i, 'walltime']),
          fix: 'remove walltime so the planner budgets each stratum from cost',
        });
      } else if (!phase.cost) {
        findings.push({
          message: `phase "${phase.name}" has neither cost nor walltime: the planner asks ${
            manifest.defaults?.walltime === undefined
              ? `a default of ${formatDuration(DEFAULT_WALLTIME_SECONDS)}`
              : `defaults.walltime (${shown(manifest.defaults.walltime)})`
          }`,
          position: source.at(['phases', i, 'name']),
          fix: `add a measured cost model, e.g. ${example}`,
        });
      } else if (phase.cost.measured_on === undefined) {
        findings.push({
          message: `the cost of phase "${phase.name}" does not say where its rate was measured`,
          position: source.at(['phases', i, 'cost'], { key: true }),
          fix: `add measured_on: ${manifest.cluster.name ?? '<the cluster the rate was measured on>'} to cost`,
        });
      }
    });
    return findings;
  },
};
