import { axisNames, axisPath } from '../../manifest/grid.js';
import { BUILTINS } from '../../manifest/template.js';
import type { Rule, RuleFinding } from '../rule.js';

const RESERVED: ReadonlySet<string> = new Set(BUILTINS);

/** An axis named like a built-in would make `${name}` mean two things. */
export const reservedAxis: Rule = {
  id: 'reserved-axis',
  severity: 'error',
  description: `a grid axis named like a built-in variable (${BUILTINS.join(', ')})`,
  needs: 'manifest',
  check({ manifest, source }) {
    const findings: RuleFinding[] = [];
    manifest.phases.forEach((phase, i) => {
      for (const axis of axisNames(phase.grid)) {
        if (!RESERVED.has(axis)) continue;
        findings.push({
          message: `axis "${axis}" of phase "${phase.name}" has the name of a built-in: \${${axis}} would be ambiguous`,
          position: source.at(['phases', i, ...axisPath(phase.grid, axis)], { key: true }),
          fix: `rename the axis (e.g. "${axis}_value") here and in every \${${axis}} that means the axis`,
        });
      }
    });
    return findings;
  },
};
