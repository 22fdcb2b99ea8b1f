import { axesOf } from '../../manifest/grid.js';
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
      for (const [axis, values] of axesOf(phase.grid)) {
        const k = values.findIndex((v) => typeof v === 'string' && v.includes('\0'));
        if (k < 0) continue;
        const many = Array.isArray(phase.grid?.[axis]);
        findings.push({
          message: `value ${k + 1} of axis "${axis}" in phase "${phase.name}" holds a NUL byte, which a task's environment cannot carry`,
          position: source.at(many ? ['phases', i, 'grid', axis, k] : ['phases', i, 'grid', axis]),
          fix: 'remove the NUL byte (write the value another way, e.g. as an escape the program decodes)',
        });
      }
    });
    return findings;
  },
};
