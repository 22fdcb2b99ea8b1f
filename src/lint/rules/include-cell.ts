import { axisNames, compileGrid, type Cell } from '../../manifest/grid.js';
import { closest } from '../../manifest/suggest.js';
import type { Rule, RuleFinding } from '../rule.js';

/**
 * An included cell is a whole task: it names every axis of its grid with one value, and no
 * other name. A missing axis would leave `${axis}` without a value; an unknown name would never
 * reach the task; a cell the grid already has would run twice under one tag.
 */
export const includeCell: Rule = {
  id: 'include-cell',
  severity: 'error',
  description: 'an included cell that lacks an axis, names one the grid lacks, or repeats a cell of the grid',
  needs: 'manifest',
  check({ manifest, source }) {
    const findings: RuleFinding[] = [];
    manifest.phases.forEach((phase, i) => {
      const include = phase.grid?.include;
      if (include === undefined) return;
      const axes = axisNames(phase.grid);
      const known = new Set(axes);
      const at = (j: number): (string | number)[] => ['phases', i, 'grid', 'include', j];
      const key = (cell: Cell): string => JSON.stringify(axes.map((a) => String(cell[a])));
      let whole = true;
      include.forEach((cell, j) => {
        for (const name of Object.keys(cell)) {
          if (known.has(name)) continue;
          whole = false;
          const suggestion = closest(name, axes);
          findings.push({
            message: `included cell ${j + 1} of phase "${phase.name}" names "${name}", which is not an axis of its grid (${axes.join(', ')})${suggestion ? `; did you mean "${suggestion}"?` : ''}`,
            position: source.at([...at(j), name], { key: true }),
            fix: suggestion ? `write "${suggestion}"` : `remove "${name}", or add it as an axis of the grid`,
          });
        }
        const missing = axes.filter((a) => !(a in cell));
        if (missing.length === 0) return;
        whole = false;
        findings.push({
          message: `included cell ${j + 1} of phase "${phase.name}" lacks ${missing.map((a) => `"${a}"`).join(', ')}: an included cell gives every axis one value`,
          position: source.at(at(j)),
          fix: `add ${missing.map((a) => `${a}: <value>`).join(', ')} to this cell`,
        });
      });
      if (!whole) return;
      // Cells given twice: the grid's own (after exclusion), then each included one in turn.
      const grid = compileGrid(phase.grid);
      const kept = grid.count - grid.included;
      const wanted = new Map<string, number>();
      include.forEach((cell, j) => {
        if (!wanted.has(key(cell))) wanted.set(key(cell), j);
      });
      const inGrid = new Set<string>();
      for (let p = 0; p < kept && inGrid.size < wanted.size; p++) {
        const k = key(grid.cellAt(p));
        if (wanted.has(k)) inGrid.add(k);
      }
      const seen = new Set<string>();
      include.forEach((cell, j) => {
        const k = key(cell);
        const earlier = seen.has(k) ? `included cell ${wanted.get(k)! + 1}` : inGrid.has(k) ? 'a cell of the grid' : '';
        seen.add(k);
        if (earlier === '') return;
        findings.push({
          message: `included cell ${j + 1} of phase "${phase.name}" (${axes.map((a) => `${a}=${String(cell[a])}`).join(', ')}) is ${earlier} already: two tasks would be one cell`,
          position: source.at(at(j)),
          fix: 'remove this cell, or write the values you meant',
        });
      });
    });
    return findings;
  },
};
