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
    const cluster = manifest.cluster;
    if (cluster.executor !== 'slurm' || cluster.max_jobs === undefined || cluster.max_parallel === undefined) return [];
    if (cluster.max_parallel <= cluster.max_jobs) return [];
    return [
      {
        message: `cluster.max_parallel is ${cluster.max_parallel}, but at most ${cluster.max_jobs} tasks may be queued and running (cluster.max_jobs): it can never be reached`,
        position: source.at(['cluster', 'max_parallel']),
        fix: `lower max_parallel to ${cluster.max_jobs} or less, or raise max_jobs if the site allows more`,
      },
    ];
  },
};
