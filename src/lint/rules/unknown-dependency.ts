import { dependsOn } from '../../manifest/expand.js';
import { closest } from '../../manifest/suggest.js';
import type { Rule, RuleFinding } from '../rule.js';

/** `depends_on` must name phases of this manifest; a typo would block the phase forever. */
export const unknownDependency: Rule = {
  id: 'unknown-dependency',
  severity: 'error',
  description: 'a depends_on entry that names no phase',
  needs: 'manifest',
  check({ manifest, source }) {
    const findings: RuleFinding[] = [];
    const names = manifest.phases.map((p) => p.name);
    const known = new Set(names);
    manifest.phases.forEach((phase, i) => {
      const others = names.filter((n) => n !== phase.name);
      dependsOn(phase).forEach((dep, j) => {
        if (known.has(dep)) return;
        const suggestion = closest(dep, others);
        findings.push({
          message: `depends_on names "${dep}", which is no phase of this campaign${suggestion ? `; did you mean "${suggestion}"?` : ''}`,
          position: source.at(
            Array.isArray(phase.depends_on) ? ['phases', i, 'depends_on', j] : ['phases', i, 'depends_on'],
          ),
          fix: suggestion
            ? `write "${suggestion}"`
            : others.length > 0
              ? `name one of: ${others.join(', ')}`
              : 'remove depends_on: this is the only phase',
        });
      });
    });
    return findings;
  },
};
