import type { Rule } from '../rule.js';

/**
 * A Slurm campaign never has more tasks running than it may have queued (`max_jobs`, each array
 * task one job): a larger max_parallel can never be reached, and says the campaign expects a
 * width it will not get.
 */
export const maxParallelOverMaxJobs: Rule = {
  id: 'max-parallel-over-max-jobs',
  severity: 'warning',
  description: 'a Slurm cluster.max_parallel above cluster.max_jobs, which it can never reach',
  needs: 'manifest',
  check({ manifest, source }) {
    const c = manifest.cluster;
    if (c.executor !== 'slurm' || c.max_jobs === undefined || c.max_parallel === undefined) return [];
    if (c.max_parallel <= c.max_jobs) return [];
    return [
      {
        message: `cluster.max_parallel is ${c.max_parallel}, but at most ${c.max_jobs} tasks may be queued and running (cluster.max_jobs): it can never be reached`,
        position: source.at(['cluster', 'max_parallel']),
        fix: `lower max_parallel to ${c.max_jobs} or less, or raise max_jobs if the site allows more`,
      },
    ];
  },
};
