import { recordedFields } from '../../judge/checklist.js';
import type { Rule, RuleFinding } from '../rule.js';

/**
 * The smoke `records` check says which fields every record holds; a metric outside them is
 * not checked before the full stage, so a misspelt one shows only as missing in every result.
 */
export const resultsMetricNotRecorded: Rule = {
  id: 'results-metric-not-recorded',
  severity: 'warning',
  description: "a results metric that the smoke records check's fields do not name",
  needs: 'manifest',
  check({ manifest, source }) {
    const findings: RuleFinding[] = [];
    manifest.phases.forEach((phase, i) => {
      const fields = recordedFields(phase);
      if (fields.length === 0 || phase.results === undefined) return;
      phase.results.metrics.forEach((metric, j) => {
        if (fields.includes(metric)) return;
        findings.push({
          message: `results metric "${metric}" of phase "${phase.name}" is not among the fields its smoke records check requires (${fields.join(', ')})`,
          position: source.at(['phases', i, 'results', 'metrics', j]),
          fix: `add ${metric} to the check's fields, so that the smoke stage proves the outputs hold it (or correct the name)`,
        });
      });
    });
    return findings;
  },
};
