import type { Rule, RuleFinding } from '../rule.js';

/** A value listed twice on an axis makes two tasks of one cell, with the same tag and output. */
export const duplicateValue: Rule = {
  id: 'duplicate-value',
  severity: 'error',
  description: 'a grid axis that lists the same value twice',
  needs: 'manifest',
  check({ manifest, source }) {
    const findings: RuleFinding[] = [];
    manifest.phases.forEach((phase, i) => {
      for (const [axis, values] of Object.entries(phase.grid ?? {})) {
        if (!Array.isArray(values)) continue;
        const seen = new Map<string, number>();
        values.forEach((v, k) => {
          const key = String(v);
          const first = seen.get(key);
          if (first === undefined) {
            seen.set(key, k);
            return;
          }
          findings.push({
            message: `axis "${axis}" of phase "${phase.name}" lists ${JSON.stringify(key)} twice (items ${first + 1} and ${k + 1}): two tasks would be the same cell`,
            position: source.at(['phases', i, 'grid', axis, k]),
            fix: `remove this ${JSON.stringify(key)}, or write the value you meant`,
          });
        });
      }
    });
    return findings;
  },
};
