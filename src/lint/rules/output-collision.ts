import { axisNames } from '../../manifest/grid.js';
import type { Rule, RuleFinding } from '../rule.js';

/** Two tasks writing one path clobber each other: the output template must name every varying axis. */
export const outputCollision: Rule = {
  id: 'output-collision',
  severity: 'error',
  description: 'two tasks of a campaign with the same output path',
  needs: 'tasks',
  check({ manifest, source, tasks }) {
    const findings: RuleFinding[] = [];
    const owner = new Map<string, string>();
    manifest.phases.forEach((phase, i) => {
      let clashes = 0;
      let first: [string, string, string] | undefined;
      for (const t of tasks.get(phase.name) ?? []) {
        if (t.output === undefined) continue;
        const other = owner.get(t.output);
        if (other === undefined) owner.set(t.output, t.id);
        else {
          clashes++;
          first ??= [other, t.id, t.output];
        }
      }
      if (first) {
        const axes = axisNames(phase.grid);
        findings.push({
          message: `tasks ${first[0]} and ${first[1]} both write ${first[2]}${clashes > 1 ? ` (${clashes} collisions in all)` : ''}`,
          position: source.at(['phases', i, 'output']),
          fix: `put every grid axis in the output path, e.g. ${axes.map((a) => `${a}\${${a}}`).join('_') || '${tag}'}, or use \${tag}`,
        });
      }
    });
    return findings;
  },
};
