import type { Rule, RuleFinding } from '../rule.js';

/** A phase name identifies its tasks, arrays, outputs and dependencies: it must be unique. */
export const duplicatePhase: Rule = {
  id: 'duplicate-phase',
  severity: 'error',
  description: 'two phases with the same name',
  needs: 'manifest',
  check({ manifest, source }) {
    const findings: RuleFinding[] = [];
    const first = new Map<string, number>();
    manifest.phases.forEach((phase, i) => {
      const j = first.get(phase.name);
      if (j === undefined) {
        first.set(phase.name, i);
        return;
      }
      const line = source.at(['phases', j, 'name']).line;
      findings.push({
        message: `phase "${phase.name}" is already defined at line ${line}: task ids, arrays and depends_on would be ambiguous`,
        position: source.at(['phases', i, 'name']),
        fix: `give this phase its own name, e.g. "${phase.name}_${i + 1}", or merge it into the one at line ${line}`,
      });
    });
    return findings;
  },
};
