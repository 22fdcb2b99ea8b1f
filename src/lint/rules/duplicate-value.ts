import { axisPath, factorsOf } from '../../manifest/grid.js';
import type { Rule, RuleFinding } from '../rule.js';

/**
 * A value listed twice on an axis, or a row of zipped values given twice, makes two tasks of one
 * cell, with the same tag and output.
 */
export const duplicateValue: Rule = {
  id: 'duplicate-value',
  severity: 'error',
  description: 'a grid axis that lists the same value twice, or a zip that gives the same row twice',
  needs: 'manifest',
  check({ manifest, source }) {
    const findings: RuleFinding[] = [];
    manifest.phases.forEach((phase, i) => {
      for (const { names, columns, rows } of factorsOf(phase.grid)) {
        const zipped = names.length > 1;
        const path = axisPath(phase.grid, names[0]!);
        if (!zipped && !Array.isArray(phase.grid?.[names[0]!])) continue;
        const seen = new Map<string, number>();
        for (let r = 0; r < rows; r++) {
          const key = JSON.stringify(columns.map((column) => String(column[r])));
          const first = seen.get(key);
          if (first === undefined) {
            seen.set(key, r);
            continue;
          }
          const shown = zipped
            ? `row ${JSON.stringify(names.map((n, k) => `${n}=${String(columns[k]![r])}`).join(', '))}`
            : JSON.stringify(String(columns[0]![r]));
          findings.push({
            message: `${zipped ? `the zip of phase "${phase.name}"` : `axis "${names[0]}" of phase "${phase.name}"`} lists ${shown} twice (items ${first + 1} and ${r + 1}): two tasks would be the same cell`,
            position: source.at(['phases', i, ...path, r]),
            fix: zipped
              ? `remove item ${r + 1} from every list of the zip, or write the values you meant`
              : `remove this ${shown}, or write the value you meant`,
          });
        }
      }
    });
    return findings;
  },
};
