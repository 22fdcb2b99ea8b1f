import type { Path } from '../../manifest/source.js';
import type { Rule, RuleFinding } from '../rule.js';

/** What only a Slurm job can ask for: elsewhere nothing reads it. */
const SLURM_ONLY = ['gpu_type', 'account', 'qos', 'constraint', 'reservation', 'exclude', 'mem_per_cpu'] as const;

/**
 * A QOS, a feature or an sbatch option on the local or ssh-gpu executor is silently nothing:
 * the user believes the task runs on an H100 under a QOS, and it runs wherever it is started.
 */
export const slurmOptionElsewhere: Rule = {
  id: 'slurm-option-elsewhere',
  severity: 'warning',
  description: 'a Slurm-only resource or slurm_args on an executor that is not Slurm, where nothing reads it',
  needs: 'manifest',
  check({ manifest, source }) {
    const executor = manifest.cluster.executor;
    if (executor === 'slurm') return [];
    const findings: RuleFinding[] = [];
    const found = (path: Path, what: string) =>
      findings.push({
        message: `${what} is for Slurm; the ${executor} executor ignores it`,
        position: source.at(path, { key: true }),
        fix: `remove it, or run the campaign with executor: slurm`,
      });
    const places: { resources?: Record<string, unknown>; slurm_args?: unknown; at: Path }[] = [
      { ...manifest.defaults, at: ['defaults'] },
      ...manifest.phases.map((p, i) => ({ ...p, at: ['phases', i] as Path })),
    ];
    for (const { resources, slurm_args, at } of places) {
      for (const key of SLURM_ONLY)
        if (resources?.[key] !== undefined) found([...at, 'resources', key], `resources.${key}`);
      if (Array.isArray(slurm_args) && slurm_args.length > 0) found([...at, 'slurm_args'], 'slurm_args');
    }
    return findings;
  },
};
