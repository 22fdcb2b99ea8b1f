import { MAX_TASKS_PER_PHASE } from '../../manifest/expand.js';
import { axesOf, cellCount } from '../../manifest/grid.js';
import type { Rule, RuleFinding } from '../rule.js';

/** A grid above the limit is refused from its size alone, before anything is expanded. */
export const gridTooLarge: Rule = {
  id: 'grid-too-large',
  severity: 'error',
  description: `a grid with more than ${MAX_TASKS_PER_PHASE.toLocaleString('en-US')} cells in one phase`,
  needs: 'manifest',
  check({ manifest, source }) {
    const findings: RuleFinding[] = [];
    manifest.phases.forEach((phase, i) => {
      const n = cellCount(phase.grid);
      if (!(n > MAX_TASKS_PER_PHASE)) return;
      const sizes = axesOf(phase.grid).map(([axis, values]) => `${values.length} ${axis}`);
      findings.push({
        message: `the grid of phase "${phase.name}" has ${sizes.join(' × ')} = ${n.toLocaleString('en-US')} cells, above the limit of ${MAX_TASKS_PER_PHASE.toLocaleString('en-US')} tasks per phase`,
        position: source.at(['phases', i, 'grid'], { key: true }),
        fix: `remove axis values or split the phase so that each grid has at most ${MAX_TASKS_PER_PHASE.toLocaleString('en-US')} cells`,
      });
    });
    return findings;
  },
};
