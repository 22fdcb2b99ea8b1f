import { closest } from '../../manifest/suggest.js';
import type { Rule, RuleFinding } from '../rule.js';

/** Results averaged over an axis the grid lacks would put every task in a cell of its own, silently. */
export const resultsReplicatesNotAxis: Rule = {
  id: 'results-replicates-not-axis',
  severity: 'error',
  description: 'results.replicates naming no grid axis of its phase',
  // The axes are read from the expanded tasks, whatever form the grid takes.
  needs: 'tasks',
  check({ manifest, source, tasks }) {
    const findings: RuleFinding[] = [];
    manifest.phases.forEach((phase, i) => {
      const axis = phase.results?.replicates;
      if (axis === undefined) return;
      const axes = [...new Set((tasks.get(phase.name) ?? []).flatMap((t) => Object.keys(t.values)))];
      if (axes.includes(axis)) return;
      const near = closest(axis, axes);
      findings.push({
        message: `results.replicates names "${axis}", which is not a grid axis of phase "${phase.name}"${near ? `; did you mean "${near}"?` : ''}`,
        position: source.at(['phases', i, 'results', 'replicates']),
        fix: near
          ? `write "${near}"`
          : axes.length > 0
            ? `use the axis whose values are replicates (one of ${axes.join(', ')}), or remove replicates`
            : `add the replicate axis to the grid (e.g. ${axis}: [1, 2, 3]), or remove replicates`,
      });
    });
    return findings;
  },
};
