import { MAX_TASKS_PER_PHASE } from '../../manifest/expand.js';
import { factorsOf, productSize } from '../../manifest/grid.js';
import type { Rule, RuleFinding } from '../rule.js';

/** A grid above the limit is refused from its size alone, before anything is expanded. */
export const gridTooLarge: Rule = {
  id: 'grid-too-large',
  severity: 'error',
  description: `a grid (its product before exclusion, plus included cells) with more than ${thousands(MAX_TASKS_PER_PHASE)} cells in one phase`,
  needs: 'manifest',
  check({ manifest, source }) {
    const findings: RuleFinding[] = [];
    manifest.phases.forEach((phase, i) => {
      // The product before exclusion counts: excluded cells are found by enumerating them.
      const included = phase.grid?.include?.length ?? 0;
      const n = productSize(phase.grid) + included;
      if (!(n > MAX_TASKS_PER_PHASE)) return;
      const product = factorsOf(phase.grid)
        .map((f) => `${f.rows} ${f.names.join('+')}`)
        .join(' × ');
      const sizes = included > 0 ? `${product || 'no product'} + ${included} included` : product;
      findings.push({
        message: `the grid of phase "${phase.name}" has ${sizes} = ${thousands(n)} cells, above the limit of ${thousands(MAX_TASKS_PER_PHASE)} tasks per phase`,
        position: source.at(['phases', i, 'grid'], { key: true }),
        fix: `remove axis values or split the phase so that each grid has at most ${thousands(MAX_TASKS_PER_PHASE)} cells`,
      });
    });
    return findings;
  },
};

/** 100000 as 100,000. Not toLocaleString: loading the locale data costs every start of the tool 60 ms. */
function thousands(n: number): string {
  return String(n).replace(/\B(?=(\d{3})+(?!\d))/g, ',');
}
