import type { Rule, RuleFinding } from '../rule.js';

/** An empty axis makes the product of the grid empty: the phase would silently run nothing. */
export const emptyAxis: Rule = {
  id: 'empty-axis',
  severity: 'error',
  description: 'a grid axis that is an empty list (the phase would have no tasks)',
  needs: 'manifest',
  check({ manifest, source }) {
    const findings: RuleFinding[] = [];
    manifest.phases.forEach((phase, i) => {
      for (const [axis, values] of Object.entries(phase.grid ?? {})) {
        if (!Array.isArray(values) || values.length > 0) continue;
        findings.push({
          message: `axis "${axis}" of phase "${phase.name}" is an empty list: the grid has no cells and the phase would run no task`,
          position: source.at(['phases', i, 'grid', axis]),
          fix: `list at least one value (e.g. ${axis}: [1]), or remove the axis`,
        });
      }
    });
    return findings;
  },
};
