import { templateNames } from '../../manifest/template.js';
import type { Rule, RuleFinding } from '../rule.js';

/** A smoke units override reaches the program only through `${units}`; otherwise it only shrinks the walltime. */
export const smokeUnitsUnused: Rule = {
  id: 'smoke-units-unused',
  severity: 'warning',
  description: 'smoke.overrides.units set but the command never uses ${units}',
  needs: 'manifest',
  check({ manifest, source }) {
    const findings: RuleFinding[] = [];
    manifest.phases.forEach((phase, i) => {
      const units = phase.smoke?.overrides?.units;
      if (units === undefined) return;
      const texts = [phase.command, phase.setup, phase.smoke?.overrides?.args, manifest.setup];
      if (texts.some((t) => t !== undefined && templateNames(t).includes('units'))) return;
      const unit = phase.cost?.unit ?? 'unit';
      findings.push({
        message: `smoke.overrides.units is ${units}, but the command of phase "${phase.name}" never uses \${units}: the smoke tasks run the full work in a walltime budgeted for ${units} ${unit}${units === 1 ? '' : 's'}`,
        position: source.at(['phases', i, 'smoke', 'overrides', 'units']),
        fix: `pass it to the program in the command, e.g. --${unit}s \${units}, or remove overrides.units`,
      });
    });
    return findings;
  },
};
