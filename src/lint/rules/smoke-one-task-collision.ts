import { cellCount, compileGrid, factorsOf, type Cell } from '../../manifest/grid.js';
import type { Phase, Scalar } from '../../manifest/schema.js';
import { COLLISION_CHECKS, needsTwo } from '../../plan/smoke.js';
import type { Rule, RuleFinding } from '../rule.js';

/**
 * How many cells a smoke `tasks` selection picks, up to two: from the product's factors alone
 * when the grid neither excludes nor includes, else by looking at its cells.
 */
function selected(phase: Phase, spec: Readonly<Record<string, Scalar | Scalar[]>>): number {
  const wanted = new Map(
    Object.entries(spec).map(([axis, want]) => [axis, new Set((Array.isArray(want) ? want : [want]).map(String))]),
  );
  const picks = (cell: Cell): boolean => [...wanted].every(([axis, set]) => set.has(String(cell[axis])));
  if (phase.grid?.exclude === undefined && phase.grid?.include === undefined) {
    return factorsOf(phase.grid).reduce((n, { names, columns, rows }) => {
      let matching = 0;
      for (let r = 0; r < rows; r++) {
        if (names.every((name, k) => wanted.get(name)?.has(String(columns[k]![r])) ?? true)) matching++;
      }
      return n * matching;
    }, 1);
  }
  const grid = compileGrid(phase.grid);
  let n = 0;
  for (let i = 0; i < grid.count && n < 2; i++) if (picks(grid.cellAt(i))) n++;
  return n;
}

/** DESIGN rule 6: at least two smoke tasks where a collision property is at stake. */
export const smokeOneTaskCollision: Rule = {
  id: 'smoke-one-task-collision',
  severity: 'warning',
  description: 'one smoke task while the trigger checks a collision property (the planner runs two)',
  needs: 'manifest',
  check({ manifest, source }) {
    const findings: RuleFinding[] = [];
    manifest.phases.forEach((phase, i) => {
      const smoke = phase.smoke;
      if (!smoke || !needsTwo(phase) || cellCount(phase.grid) < 2) return;
      const spec = smoke.tasks;
      const count = spec === undefined ? 1 : typeof spec === 'number' ? spec : selected(phase, spec);
      if (count !== 1) return;
      const checks = (smoke.trigger ?? [])
        .filter((check) => COLLISION_CHECKS.has(check.check))
        .map((check) => check.check);
      const what =
        spec === undefined ? 'runs 1 task (the default)' : typeof spec === 'number' ? 'runs 1 task' : 'selects 1 cell';
      findings.push({
        message: `the smoke stage of phase "${phase.name}" ${what}, but its trigger checks ${[...new Set(checks)].join(', ')}, which one task cannot fail: the planner raises it to two tasks`,
        position:
          spec === undefined
            ? source.at(['phases', i, 'smoke'], { key: true })
            : source.at(['phases', i, 'smoke', 'tasks']),
        fix:
          typeof spec === 'object'
            ? 'select two cells, e.g. list two values of one axis'
            : 'write tasks: 2 so the manifest says what runs',
      });
    });
    return findings;
  },
};
