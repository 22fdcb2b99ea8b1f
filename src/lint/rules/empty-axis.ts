import { axisPath, compileGrid, factorsOf } from '../../manifest/grid.js';
import type { Rule, RuleFinding } from '../rule.js';

/**
 * An empty axis makes the product of the grid empty, as does an exclude that removes every
 * cell: the phase would silently run nothing.
 */
export const emptyAxis: Rule = {
  id: 'empty-axis',
  severity: 'error',
  description:
    'a grid axis that is an empty list, or a grid whose every cell is excluded (the phase would have no tasks)',
  needs: 'manifest',
  check({ manifest, source }) {
    const findings: RuleFinding[] = [];
    manifest.phases.forEach((phase, i) => {
      let empty = false;
      for (const { names, columns } of factorsOf(phase.grid)) {
        names.forEach((axis, k) => {
          if (columns[k]!.length > 0) return;
          empty = true;
          findings.push({
            message: `axis "${axis}" of phase "${phase.name}" is an empty list: the grid has no cells and the phase would run no task`,
            position: source.at(['phases', i, ...axisPath(phase.grid, axis)]),
            fix: `list at least one value (e.g. ${axis}: [1]), or remove the axis`,
          });
        });
      }
      if (empty || phase.grid === undefined) return;
      const grid = compileGrid(phase.grid);
      if (grid.count > 0) return;
      const excluded = grid.product > 0;
      findings.push({
        message: excluded
          ? `the exclude of phase "${phase.name}" removes all ${grid.product} cells of its grid: the phase would run no task`
          : `the grid of phase "${phase.name}" has no axis and no included cell: the phase would run no task`,
        position: source.at(['phases', i, 'grid', ...(excluded ? ['exclude'] : [])], { key: true }),
        fix: excluded ? 'remove the selector that matches every cell' : 'list at least one cell under include',
      });
    });
    return findings;
  },
};
