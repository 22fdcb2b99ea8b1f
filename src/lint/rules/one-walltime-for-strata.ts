import { axesOf } from '../../manifest/grid.js';
import type { Phase } from '../../manifest/schema.js';
import { parseDuration } from '../../manifest/units.js';
import type { Rule, RuleFinding } from '../rule.js';

/** The distinct values of a per-stratum field, as `selector: value` texts, when they differ. */
function differing(field: unknown, norm: (v: unknown) => string): string[] {
  if (field === null || typeof field !== 'object' || Array.isArray(field)) return [];
  const entries = Object.entries(field as Record<string, unknown>);
  const distinct = new Set(entries.map(([, v]) => norm(v)));
  return distinct.size > 1 ? entries.map(([k, v]) => `${k}: ${String(v)}`) : [];
}

/** `N=384: <seconds>, N=512: <seconds>` for the first strata axis (or first grid axis). */
function example(phase: Phase): string {
  const grid = new Map(axesOf(phase.grid));
  const axis = phase.strata?.find((a) => grid.has(a)) ?? [...grid.keys()][0];
  const values = axis === undefined ? [] : grid.get(axis)!.slice(0, 3);
  return values.length > 0 ? values.map((v) => `${axis}=${String(v)}: <seconds>`).join(', ') : '<selector>: <seconds>';
}

/** DESIGN rule 1: one global walltime for strata of different cost wastes or kills tasks. */
export const oneWalltimeForStrata: Rule = {
  id: 'one-walltime-for-strata',
  severity: 'warning',
  description: 'one fixed walltime for strata whose cost differs',
  needs: 'manifest',
  check({ manifest, source }) {
    const findings: RuleFinding[] = [];
    manifest.phases.forEach((phase, i) => {
      if (phase.walltime === undefined) return;
      const reasons: string[] = [];
      const perUnit = differing(phase.cost?.per_unit, (v) => String(parseDuration(v as string | number) ?? v));
      if (perUnit.length > 0) reasons.push(`cost.per_unit differs (${perUnit.join(', ')})`);
      const units = differing(phase.cost?.units, (v) => String(v));
      if (units.length > 0) reasons.push(`cost.units differs (${units.join(', ')})`);
      if (phase.strata) {
        const grid = new Map(axesOf(phase.grid));
        const strata = phase.strata.filter((a) => grid.has(a));
        const count = strata.reduce((n, a) => n * grid.get(a)!.length, 1);
        if (count > 1) reasons.push(`strata [${strata.join(', ')}] make ${count} strata`);
      }
      if (reasons.length === 0) return;
      findings.push({
        message: `phase "${phase.name}" asks one walltime for all its strata, but ${reasons.join(' and ')}`,
        position: source.at(['phases', i, 'walltime']),
        fix: phase.cost
          ? 'remove walltime: the planner then budgets each stratum from its own cost'
          : `replace walltime with a cost model whose per_unit is measured per stratum, e.g. per_unit: { ${example(phase)} }`,
      });
    });
    return findings;
  },
};
