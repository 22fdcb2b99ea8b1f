import { valueSites } from '../../manifest/grid.js';
import type { Rule, RuleFinding } from '../rule.js';

/**
 * A grid value reaches its task through the environment and, on Slurm, through a task table of
 * NUL-separated pairs: a NUL byte can travel through neither (the environment would cut the
 * value short, the table would split it), so the task would run with another value than its
 * name says (DESIGN rule 9).
 */
export const valueNotCarried: Rule = {
  id: 'value-not-carried',
  severity: 'error',
  description: 'a grid value holding a NUL byte, which no task environment can carry',
  needs: 'manifest',
  check({ manifest, source }) {
    const findings: RuleFinding[] = [];
    manifest.phases.forEach((phase, i) => {
      const reported = new Set<string>();
      for (const { axis, value, path } of valueSites(phase.grid)) {
        if (typeof value !== 'string' || !value.includes('\0') || reported.has(axis)) continue;
        reported.add(axis);
        const k = path.at(-1);
        findings.push({
          message: `${typeof k === 'number' ? `value ${k + 1}` : 'the value'} of axis "${axis}" in phase "${phase.name}"${path.includes('include') ? ` (included cell ${Number(path[2]) + 1})` : ''} holds a NUL byte, which a task's environment cannot carry`,
          position: source.at(['phases', i, ...path]),
          fix: 'remove the NUL byte (write the value another way, e.g. as an escape the program decodes)',
        });
      }
    });
    return findings;
  },
};
