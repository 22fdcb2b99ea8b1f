import { matchesSelector, type Cell } from '../../manifest/grid.js';
import type { Manifest, Phase } from '../../manifest/schema.js';
import type { Path } from '../../manifest/source.js';
import { closest } from '../../manifest/suggest.js';
import type { ArrayPlan } from '../../plan/plan.js';
import { partitionCaps } from '../../plan/walltime.js';
import type { Rule, RuleFinding } from '../rule.js';

/** Where the number that decided a budget is written, and what to write instead. */
function locate(
  manifest: Manifest,
  phase: Phase,
  i: number,
  array: ArrayPlan,
  cell: Cell | undefined,
): { path: Path; key?: boolean; fix: string } {
  const error = array.budget.error ?? '';
  const caps = partitionCaps(manifest.cluster).map((partitionCap) => partitionCap.name);
  if (error.startsWith('partition ')) {
    const own = phase.resources?.partition !== undefined;
    const forced = array.resources.partition ?? '';
    const suggestion = closest(forced, caps);
    return {
      path: own ? ['phases', i, 'resources', 'partition'] : ['defaults', 'resources', 'partition'],
      fix: suggestion
        ? `write "${suggestion}"`
        : caps.length > 0
          ? `force one of: ${caps.join(', ')}, or declare "${forced}" in cluster.partitions`
          : `declare "${forced}" in cluster.partitions, or remove the forced partition`,
    };
  }
  if (error.startsWith('no cost.')) {
    const field = error.startsWith('no cost.per_unit') ? 'per_unit' : 'units';
    return {
      path: ['phases', i, 'cost', field],
      fix: `add an entry for this stratum, e.g. "${array.stratum}: ${field === 'per_unit' ? '<measured seconds>' : '<units per task>'}" in cost.${field}`,
    };
  }
  const split = 'split the work into more tasks (fewer units per task), or declare a partition with a larger max_time';
  if (array.budget.source === 'walltime') {
    const smoke = array.stage === 'smoke' && phase.smoke?.overrides?.walltime !== undefined;
    return {
      path: smoke ? ['phases', i, 'smoke', 'overrides', 'walltime'] : ['phases', i, 'walltime'],
      fix: `ask at most the largest partition cap, or ${split}`,
    };
  }
  if (array.budget.source === 'cost' && phase.cost) {
    const perUnit = phase.cost.per_unit;
    if (typeof perUnit === 'object' && cell) {
      const key = Object.keys(perUnit).find((k) => matchesSelector(cell, k));
      if (key !== undefined) return { path: ['phases', i, 'cost', 'per_unit', key], key: true, fix: split };
    }
    return { path: ['phases', i, 'cost', 'per_unit'], fix: split };
  }
  return { path: ['phases', i, 'name'], fix: 'add a cost model or a walltime that fits a partition' };
}

/** A walltime the cluster cannot grant (or cannot compute) fails at submission: refuse it at lint. */
export const walltimeBudget: Rule = {
  id: 'walltime-budget',
  severity: 'error',
  description:
    'a walltime budget above the largest partition cap, with no rate for a stratum, or in an unknown partition',
  needs: 'plan',
  check({ manifest, source, plan }) {
    const findings: RuleFinding[] = [];
    const seen = new Set<string>();
    plan.phases.forEach((phasePlan) => {
      const i = manifest.phases.findIndex((p) => p.name === phasePlan.name);
      const phase = manifest.phases[i];
      if (!phase) return;
      // Made only when a budget has an error: 100,000 tasks whose budgets all fit need no lookup.
      let cells: Map<string, Cell> | undefined;
      const cellOf = (id: string): Cell | undefined =>
        (cells ??= new Map([...phasePlan.tasks, ...phasePlan.smoke].map((t) => [t.id, t.values]))).get(id);
      for (const array of phasePlan.arrays) {
        const error = array.budget.error;
        if (error === undefined) continue;
        const { path, key, fix } = locate(manifest, phase, i, array, cellOf(array.tasks[0] ?? ''));
        const position = source.at(path, { key: key === true });
        const arithmetic = error.startsWith('no cost.') ? '' : ` (${array.budget.arithmetic})`;
        const message = `${array.stage} stage of phase "${phase.name}", stratum ${array.stratum}: ${error}${arithmetic}`;
        const id = `${position.line}:${position.column}:${error}`;
        if (seen.has(id)) continue;
        seen.add(id);
        findings.push({ message, position, fix });
      }
    });
    return findings;
  },
};
