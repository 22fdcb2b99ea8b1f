import type { Rule, RuleFinding } from '../rule.js';

const EXAMPLE = 'smoke: { tasks: 2, trigger: [{ check: all_completed }, { check: output_exists }] }';

/** DESIGN rule 6: every phase runs a smoke stage whose checklist is written before it runs. */
export const noSmokeTrigger: Rule = {
  id: 'no-smoke-trigger',
  severity: 'warning',
  description: 'a phase with no smoke stage, or a smoke stage with no trigger checklist',
  needs: 'manifest',
  check({ manifest, source }) {
    const findings: RuleFinding[] = [];
    manifest.phases.forEach((phase, i) => {
      if (!phase.smoke) {
        findings.push({
          message: `phase "${phase.name}" has no smoke stage: its full arrays are released without a cheap first run`,
          position: source.at(['phases', i, 'name']),
          fix: `add ${EXAMPLE}`,
        });
      } else if (!phase.smoke.trigger || phase.smoke.trigger.length === 0) {
        findings.push({
          message: `the smoke stage of phase "${phase.name}" has no trigger checklist: nothing decides whether the full arrays may start`,
          position: phase.smoke.trigger
            ? source.at(['phases', i, 'smoke', 'trigger'])
            : source.at(['phases', i, 'smoke'], { key: true }),
          fix: 'add trigger: [{ check: all_completed }, { check: output_exists, otherwise: "<what a failure means>" }]',
        });
      }
    });
    return findings;
  },
};
