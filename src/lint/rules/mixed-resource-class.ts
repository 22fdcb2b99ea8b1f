import { parseSelector } from '../../manifest/grid.js';
import type { Manifest, Phase } from '../../manifest/schema.js';
import type { Path } from '../../manifest/source.js';
import type { ArrayPlan, TaskResources } from '../../plan/plan.js';
import type { Rule, RuleFinding } from '../rule.js';

const FIELDS = ['gpus', 'cpus', 'mem'] as const;
type Field = (typeof FIELDS)[number];

const valueOf = (r: TaskResources, f: Field): string => String(f === 'mem' ? (r.memBytes ?? '-') : r[f]);

/** Where a resource field of a phase is written (its own, else the default) and its selector axes. */
function fieldSource(manifest: Manifest, phase: Phase, i: number, f: Field): { path: Path; axes: string[] } {
  const own = phase.resources?.[f];
  const field = own ?? manifest.defaults?.resources?.[f];
  const path: Path = own !== undefined ? ['phases', i, 'resources', f] : ['defaults', 'resources', f];
  const axes =
    field !== undefined && typeof field === 'object'
      ? [...new Set(Object.keys(field).flatMap((k) => parseSelector(k).map(([a]) => a)))]
      : [];
  return { path, axes };
}

/** DESIGN rule 2: one resource class per job; a CPU-only arm never holds GPUs. */
export const mixedResourceClass: Rule = {
  id: 'mixed-resource-class',
  severity: 'warning',
  description: 'a stratum split into arrays of different resource classes, or GPU and CPU-only tasks in one phase',
  needs: 'plan',
  check({ manifest, source, plan }) {
    const findings: RuleFinding[] = [];
    plan.phases.forEach((phasePlan) => {
      const i = manifest.phases.findIndex((p) => p.name === phasePlan.name);
      const phase = manifest.phases[i];
      if (!phase) return;
      const reported = new Set<string>();
      for (const stage of ['full', 'smoke'] as const) {
        const byStratum = new Map<string, ArrayPlan[]>();
        for (const a of phasePlan.arrays.filter((x) => x.stage === stage)) {
          byStratum.set(a.stratum, [...(byStratum.get(a.stratum) ?? []), a]);
        }
        for (const [stratum, arrays] of byStratum) {
          for (const f of FIELDS) {
            const values = [...new Set(arrays.map((a) => valueOf(a.resources, f)))];
            if (values.length < 2 || reported.has(f)) continue;
            reported.add(f);
            const { path, axes } = fieldSource(manifest, phase, i, f);
            const strata = phasePlan.strata;
            const missing = axes.filter((a) => !strata.includes(a));
            const add = missing.length > 0 ? missing : ['<the axis it varies along>'];
            findings.push({
              message: `${stage} stage of phase "${phase.name}": stratum ${stratum} is split into ${values.length} arrays because ${f} differs inside it (${values.join(' / ')})`,
              position: source.at(path),
              fix: `add ${add.map((a) => `"${a}"`).join(', ')} to strata: [${[...strata, ...add].join(', ')}]`,
            });
          }
        }
      }
      const gpus = new Set(phasePlan.arrays.filter((a) => a.stage === 'full').map((a) => a.resources.gpus));
      if (gpus.has(0) && [...gpus].some((g) => g > 0)) {
        findings.push({
          message: `phase "${phase.name}" mixes CPU-only tasks (gpus 0) with GPU tasks (gpus ${[...gpus].filter((g) => g > 0).join(', ')})`,
          position: source.at(fieldSource(manifest, phase, i, 'gpus').path),
          fix: 'split the CPU-only cells into a phase of their own, or give every selector a gpus value (tasks no selector matches get 0)',
        });
      }
    });
    return findings;
  },
};
