import { factorsOf } from '../../manifest/grid.js';
import type { Rule, RuleFinding } from '../rule.js';

const COMMAS = /^[^,[\]{}]+(,[^,[\]{}]+)+$/;

/**
 * `seed: 1,2,3` is one value, the text "1,2,3", in YAML: one task where three were meant. A
 * quoted value says the comma is meant, so only a plain one is reported.
 */
export const commaList: Rule = {
  id: 'comma-list',
  severity: 'warning',
  description: 'a grid axis given as one comma-separated value where a list was meant',
  needs: 'manifest',
  check({ manifest, source }) {
    const findings: RuleFinding[] = [];
    const lines = source.text.split('\n');
    manifest.phases.forEach((phase, i) => {
      for (const { names } of factorsOf(phase.grid)) {
        const axis = names[0]!;
        const value = phase.grid?.[axis];
        if (names.length > 1 || typeof value !== 'string' || !COMMAS.test(value)) continue;
        const position = source.at(['phases', i, 'grid', axis]);
        const first = lines[position.line - 1]?.[position.column - 1];
        if (first === '"' || first === "'") continue;
        const list = value.split(',').map((v) => v.trim());
        findings.push({
          message: `axis "${axis}" of phase "${phase.name}" is one value, the text "${value}": a comma does not make a list in YAML, so the grid has one ${axis}`,
          position,
          fix: `write ${axis}: [${list.join(', ')}] for ${list.length} values, or quote it ('${value}') if it is one`,
        });
      }
    });
    return findings;
  },
};
