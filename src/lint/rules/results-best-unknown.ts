import { closest } from '../../manifest/suggest.js';
import { recordedFields } from '../../judge/checklist.js';
import type { Rule, RuleFinding } from '../rule.js';

/** A best record chosen by a field no record is known to hold would be no record, in every task. */
export const resultsBestUnknown: Rule = {
  id: 'results-best-unknown',
  severity: 'error',
  description: 'results.record best:<field> naming neither a metric nor a field of the records checks',
  needs: 'manifest',
  check({ manifest, source }) {
    const findings: RuleFinding[] = [];
    manifest.phases.forEach((phase, i) => {
      const m = /^best:(.+):(min|max)$/.exec(phase.results?.record ?? '');
      if (!m || phase.results === undefined) return;
      const known = [...new Set([...phase.results.metrics, ...recordedFields(phase)])];
      const field = m[1]!;
      if (known.includes(field)) return;
      const near = closest(field, known);
      findings.push({
        message: `results.record chooses the best record by "${field}", which is not a metric of phase "${phase.name}"${near ? `; did you mean "${near}"?` : ''}`,
        position: source.at(['phases', i, 'results', 'record']),
        fix: near
          ? `write best:${near}:${m[2]!}`
          : `add ${field} to results.metrics (or to the fields of a smoke records check)`,
      });
    });
    return findings;
  },
};
