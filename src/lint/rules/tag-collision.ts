import type { TaskSpec } from '../../manifest/expand.js';
import { axisPath, compileGrid, tagsDistinct } from '../../manifest/grid.js';
import type { Rule, RuleFinding } from '../rule.js';

/**
 * Tags are derived from the values with every character other than letters, digits, ".", "+"
 * and "-" replaced: two values that differ only in such characters give two cells one tag,
 * hence one task id and (with `${tag}`) one output (DESIGN rule 7).
 */
export const tagCollision: Rule = {
  id: 'tag-collision',
  severity: 'error',
  description: 'two cells of a phase whose derived tags are equal',
  needs: 'tasks',
  check({ manifest, source, tasks }) {
    const findings: RuleFinding[] = [];
    manifest.phases.forEach((phase, i) => {
      // Known from the axes for most grids: no map of 100,000 tags is needed to say so.
      if (tagsDistinct(phase.grid)) return;
      const byTag = new Map<string, TaskSpec>();
      let clashes = 0;
      let example: [TaskSpec, TaskSpec] | undefined;
      for (const t of tasks.get(phase.name) ?? []) {
        const other = byTag.get(t.tag);
        if (other === undefined) byTag.set(t.tag, t);
        else {
          clashes++;
          example ??= [other, t];
        }
      }
      if (!example) return;
      const [a, b] = example;
      const grid = compileGrid(phase.grid);
      const axis = Object.keys(b.values).find((k) => String(a.values[k]) !== String(b.values[k]));
      const own = axis === undefined ? undefined : (phase.grid?.zip?.[axis] ?? phase.grid?.[axis]);
      const k = Array.isArray(own) ? own.findIndex((v) => String(v) === String(b.values[axis!])) : -1;
      const kept = grid.count - grid.included;
      const shown =
        axis === undefined ? '' : ` (${axis}: ${JSON.stringify(a.values[axis])} and ${JSON.stringify(b.values[axis])})`;
      const at: (string | number)[] =
        b.cell >= kept
          ? ['grid', 'include', b.cell - kept]
          : axis === undefined
            ? ['grid']
            : k >= 0
              ? [...axisPath(phase.grid, axis), k]
              : axisPath(phase.grid, axis);
      findings.push({
        message: `cells ${a.cell + 1} and ${b.cell + 1} of phase "${phase.name}"${shown} both get tag "${a.tag}"${clashes > 1 ? ` (${clashes} collisions in all)` : ''}: their task ids and \${tag} paths would be one`,
        position: source.at(['phases', i, ...at], { key: at.length === 1 }),
        fix: 'make the values differ in letters, digits, ".", "+" or "-" (other characters become "-" in a tag)',
      });
    });
    return findings;
  },
};
