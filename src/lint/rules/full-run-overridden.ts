import type { Rule, RuleFinding } from '../rule.js';

/** A smoke task run with overrides is not a full run: counting its result would record a cut-down run as a finding. */
export const fullRunOverridden: Rule = {
  id: 'full-run-overridden',
  severity: 'error',
  description: 'smoke.full_run together with smoke.overrides',
  needs: 'manifest',
  check({ manifest, source }) {
    const findings: RuleFinding[] = [];
    manifest.phases.forEach((phase, i) => {
      const smoke = phase.smoke;
      if (!smoke?.full_run || !smoke.overrides || Object.keys(smoke.overrides).length === 0) return;
      findings.push({
        message: `phase "${phase.name}" counts its smoke tasks as full runs, but overrides them (${Object.keys(smoke.overrides).join(', ')})`,
        position: source.at(['phases', i, 'smoke', 'full_run']),
        fix: 'remove smoke.overrides, or set full_run: false so the full stage runs those cells at full size',
      });
    });
    return findings;
  },
};
