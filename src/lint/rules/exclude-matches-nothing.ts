import { axisNames, compileGrid } from '../../manifest/grid.js';
import type { Rule, RuleFinding } from '../rule.js';

/**
 * An exclude selector that matches no cell of the product removes nothing: most often a value
 * written another way than on its axis, so the cell meant to be left out still runs.
 */
export const excludeMatchesNothing: Rule = {
  id: 'exclude-matches-nothing',
  severity: 'warning',
  description: 'an exclude selector that matches no cell of the grid',
  needs: 'manifest',
  check({ manifest, source }) {
    const findings: RuleFinding[] = [];
    manifest.phases.forEach((phase, i) => {
      const exclude = phase.grid?.exclude;
      if (exclude === undefined) return;
      const axes = new Set(axisNames(phase.grid));
      const { removedBy } = compileGrid(phase.grid);
      exclude.forEach((selector, k) => {
        // A selector naming no axis is unknown-axis's error.
        if (removedBy[k]! > 0 || Object.keys(selector).some((a) => !axes.has(a))) return;
        const pairs = Object.entries(selector).map(([a, v]) => `${a}=${String(v)}`);
        findings.push({
          message: `exclude entry ${k + 1} of phase "${phase.name}" (${pairs.join(', ')}) matches no cell of the grid: it removes nothing`,
          position: source.at(['phases', i, 'grid', 'exclude', k]),
          fix: 'write values as the axes list them (every pair must hold in one cell), or remove the entry',
        });
      });
    });
    return findings;
  },
};
