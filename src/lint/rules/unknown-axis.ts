import { axesOf, axisNames, parseSelector } from '../../manifest/grid.js';
import type { Phase, Scalar } from '../../manifest/schema.js';
import type { Path } from '../../manifest/source.js';
import { closest } from '../../manifest/suggest.js';
import type { Rule, RuleFinding } from '../rule.js';

const RESOURCE_FIELDS = [
  'gpus',
  'gpu_type',
  'cpus',
  'mem',
  'mem_per_cpu',
  'account',
  'qos',
  'constraint',
  'reservation',
  'exclude',
] as const;

function perStratumKeys(field: unknown): string[] {
  return field !== null && typeof field === 'object' && !Array.isArray(field) ? Object.keys(field) : [];
}

/**
 * Strata, per-stratum selectors and smoke cells name grid axes of their phase; a name that is
 * not one (a typo, or an axis of another phase) silently matches nothing.
 */
export const unknownAxis: Rule = {
  id: 'unknown-axis',
  severity: 'error',
  description:
    'a strata entry, selector, exclude entry or smoke cell naming no grid axis of its phase, or a smoke value the axis lacks',
  needs: 'manifest',
  check({ manifest, source }) {
    const findings: RuleFinding[] = [];
    const unknown = (phase: Phase, axis: string, where: string, position: Path, key: boolean): void => {
      const axes = axisNames(phase.grid);
      const suggestion = closest(axis, axes);
      findings.push({
        message: `${where} names axis "${axis}", which is not a grid axis of phase "${phase.name}"${suggestion ? `; did you mean "${suggestion}"?` : ''}`,
        position: source.at(position, { key }),
        fix: suggestion
          ? `write "${suggestion}"`
          : axes.length > 0
            ? `use one of the grid axes: ${axes.join(', ')}`
            : `add a grid with axis "${axis}" to phase "${phase.name}", or remove this`,
      });
    };
    const checkSelectors = (
      phase: Phase,
      field: unknown,
      where: string,
      path: Path,
      axes: ReadonlySet<string>,
    ): void => {
      for (const key of perStratumKeys(field)) {
        for (const [axis] of parseSelector(key)) {
          if (!axes.has(axis)) unknown(phase, axis, `${where} selector "${key}"`, [...path, key], true);
        }
      }
    };
    manifest.phases.forEach((phase, i) => {
      const grid = new Map(axesOf(phase.grid));
      const axes = new Set(grid.keys());
      phase.strata?.forEach((axis, k) => {
        if (!axes.has(axis)) unknown(phase, axis, 'strata', ['phases', i, 'strata', k], false);
      });
      for (const f of ['per_unit', 'units'] as const) {
        checkSelectors(phase, phase.cost?.[f], `cost.${f}`, ['phases', i, 'cost', f], axes);
      }
      for (const f of RESOURCE_FIELDS) {
        checkSelectors(phase, phase.resources?.[f], `resources.${f}`, ['phases', i, 'resources', f], axes);
      }
      // An exclude selector naming no axis would remove nothing; include cells are include-cell's.
      phase.grid?.exclude?.forEach((selector, k) => {
        for (const axis of Object.keys(selector)) {
          if (!axes.has(axis))
            unknown(phase, axis, `exclude entry ${k + 1}`, ['phases', i, 'grid', 'exclude', k, axis], true);
        }
      });
      const cells = phase.smoke?.tasks;
      if (cells !== undefined && typeof cells === 'object') {
        for (const [axis, want] of Object.entries(cells)) {
          const path: Path = ['phases', i, 'smoke', 'tasks', axis];
          const values = grid.get(axis);
          if (values === undefined) {
            unknown(phase, axis, 'smoke.tasks', path, true);
            continue;
          }
          const have = new Set(values.map(String));
          const list: readonly Scalar[] = Array.isArray(want) ? want : [want as Scalar];
          list.forEach((v, k) => {
            if (have.has(String(v))) return;
            const suggestion = closest(String(v), have);
            findings.push({
              message: `smoke.tasks selects ${axis}=${String(v)}, which is not a value of axis "${axis}" (${values.map(String).join(', ')}): it selects no cell`,
              position: source.at(Array.isArray(want) ? [...path, k] : path),
              fix: suggestion ? `write ${suggestion}` : `use one of: ${values.map(String).join(', ')}`,
            });
          });
        }
      }
    });
    // Defaults apply to every phase that does not set the field itself.
    const base = manifest.defaults?.resources;
    for (const f of RESOURCE_FIELDS) {
      const keys = perStratumKeys(base?.[f]);
      const users = manifest.phases.filter((p) => p.resources?.[f] === undefined);
      if (keys.length === 0 || users.length === 0) continue;
      const axes = new Set(users.flatMap((p) => axisNames(p.grid)));
      for (const key of keys) {
        for (const [axis] of parseSelector(key)) {
          if (axes.has(axis)) continue;
          const suggestion = closest(axis, axes);
          findings.push({
            message: `defaults.resources.${f} selector "${key}" names axis "${axis}", which no phase using this default has${suggestion ? `; did you mean "${suggestion}"?` : ''}`,
            position: source.at(['defaults', 'resources', f, key], { key: true }),
            fix: suggestion
              ? `write "${suggestion}"`
              : axes.size > 0
                ? `use one of: ${[...axes].join(', ')}`
                : 'give one value for all tasks',
          });
        }
      }
    }
    return findings;
  },
};
