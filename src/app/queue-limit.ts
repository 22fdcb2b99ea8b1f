/** `campaign check` on Slurm: the limit on jobs queued it found, where from, and how the plan fits it. */
import type { ClusterLimits } from '../exec/slurm/fit.js';
import type { Plan } from '../plan/plan.js';
import type { PreflightItem } from './preflight.js';

const plural = (n: number, word: string): string => `${n} ${word}${n === 1 ? '' : 's'}`;

/**
 * The max_jobs item: the limit and its source, the plan's tasks against the room it leaves
 * beside the user's other jobs; a warning where max_parallel can never be reached under it, or
 * the other jobs fill it now.
 */
export function queueLimitItem(
  limits: ClusterLimits,
  plan: Plan,
  maxParallel: number | undefined,
  restricted: boolean,
): PreflightItem {
  const tasks = plan.phases.reduce((n, p) => n + p.tasks.length + p.smoke.length, 0);
  const limit = limits.maxJobs;
  if (limit === undefined)
    return {
      check: 'max_jobs',
      status: 'ok',
      detail: restricted
        ? 'no limit on jobs queued is known (an automation node has no sacctmgr): cluster.max_jobs is not declared'
        : limits.accountingRead
          ? 'no limit on jobs queued: sacctmgr sets no MaxSubmitJobs for your associations or QOS, and cluster.max_jobs is not declared'
          : 'no limit on jobs queued is known (sacctmgr lists no association of yours): cluster.max_jobs is not declared',
    };
  const others = limits.othersQueued;
  const room = limit.limit - others;
  const fits =
    room <= 0
      ? `your ${plural(others, 'other job')} in the queue fill it now: the campaign waits for them to end`
      : tasks <= room
        ? `${plural(tasks, 'task')}: all fit in the queue at once`
        : `${plural(tasks, 'task')}; at most ${room} queued at once: sent in waves as room frees`;
  const beside = others > 0 && room > 0 ? ` (beside your ${plural(others, 'other job')} in the queue)` : '';
  const unreachable = maxParallel !== undefined && maxParallel > limit.limit;
  return {
    check: 'max_jobs',
    status: room <= 0 || unreachable ? 'warn' : 'ok',
    detail: `${limit.limit} jobs and array tasks queued at once (${limit.from}); ${fits}${beside}${unreachable ? `; max_parallel ${maxParallel} can never be reached` : ''}`,
    ...(unreachable
      ? { fix: `lower max_parallel to ${limit.limit}, or ask the site for a higher MaxSubmitJobs` }
      : room <= 0
        ? { fix: 'the campaign starts as your other jobs end; cancel those you no longer need to start sooner' }
        : {}),
  };
}
