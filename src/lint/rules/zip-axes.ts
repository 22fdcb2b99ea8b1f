import type { Rule, RuleFinding } from '../rule.js';

/**
 * Zipped axes are taken in step, so their lists pair item by item: lists of different lengths
 * leave values without a partner, and an axis both zipped and crossed would mean two things.
 */
export const zipAxes: Rule = {
  id: 'zip-axes',
  severity: 'error',
  description: 'zipped lists of different lengths, or an axis both under zip and beside it',
  needs: 'manifest',
  check({ manifest, source }) {
    const findings: RuleFinding[] = [];
    manifest.phases.forEach((phase, i) => {
      const zip = Object.entries(phase.grid?.zip ?? {});
      if (zip.length === 0) return;
      const [first, length] = [zip[0]![0], zip[0]![1].length];
      for (const [axis, list] of zip.slice(1)) {
        if (list.length === length) continue;
        findings.push({
          message: `zipped axis "${axis}" of phase "${phase.name}" has ${list.length} values and "${first}" has ${length}: zipped values are taken in step, item by item`,
          position: source.at(['phases', i, 'grid', 'zip', axis]),
          fix: `give "${axis}" ${length} values, one for each of "${first}", or cross it instead (move it out of zip)`,
        });
      }
      for (const [axis] of zip) {
        if (!(axis in (phase.grid ?? {}))) continue;
        findings.push({
          message: `axis "${axis}" of phase "${phase.name}" is both zipped and crossed`,
          position: source.at(['phases', i, 'grid', axis], { key: true }),
          fix: `keep "${axis}" in one place: under zip to pair its values, or beside it to cross them`,
        });
      }
    });
    return findings;
  },
};
