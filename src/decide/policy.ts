/** The retry policy a manifest declares, as applying events asks for it (decide/apply.ts, decide/retry.ts). */
import type { TaskSpec } from '../manifest/expand.js';
import type { Manifest, Phase } from '../manifest/schema.js';
import { formatDuration, parseDuration } from '../manifest/units.js';
import type { ArrayPlan, Plan } from '../plan/plan.js';
import { grownBudget, remainingBudget, type Budget } from '../plan/walltime.js';
import { placement } from '../state/placement.js';
import { retryRule, type NextWalltime, type RetryPolicy } from './retry.js';

/** The phase a task id belongs to (`<phase>/...`). */
export const phaseOfTask = (taskId: string): string => taskId.slice(0, taskId.indexOf('/'));

/**
 * The policy of a manifest. With its plan, a timeout or a preemption also says the next
 * attempt's walltime: a continuation's remaining work where the phase declares `checkpoint`,
 * else, after a timeout, the last walltime times `retry.timeout.time_factor`.
 */
export function retryPolicy(manifest: Manifest, plan?: Plan): RetryPolicy {
  const phases = new Map(manifest.phases.map((p) => [p.name, p]));
  const cluster = manifest.cluster;
  const oom = cluster.executor === 'ssh-gpu' ? cluster.oom?.retry : undefined;
  return (taskId, cls) => {
    const phase = phases.get(phaseOfTask(taskId));
    const rule = retryRule(phase?.retry, manifest.defaults?.retry, cls);
    if (cls === 'out_of_memory' && oom && rule.attempts === 0) {
      return { ...rule, attempts: oom.attempts, delaySeconds: oom.delay === undefined ? 0 : parseDuration(oom.delay)! };
    }
    if (cls !== 'timeout' && cls !== 'preempted') return rule;
    const at = plan && placement(plan, taskId);
    if (!phase || !at) return rule;
    if (phase.checkpoint) {
      return {
        ...rule,
        resume: true,
        walltime: ({ units }) => {
          const b = remainingBudget(budgetInput(manifest, phase, at), units);
          const why =
            units === undefined
              ? `as planned, ${formatDuration(b.seconds)} (no progress to go by)`
              : `after ${units} ${phase.cost?.unit ?? 'unit'}s: ${b.arithmetic}`;
          return next(b, why);
        },
      };
    }
    const factor = (phase.retry?.timeout ?? manifest.defaults?.retry?.timeout)?.time_factor;
    if (cls !== 'timeout' || factor === undefined || factor <= 1) return rule;
    return {
      ...rule,
      walltime: ({ walltimeSeconds }) => {
        const b = grownBudget(
          cluster,
          walltimeSeconds ?? at.array.budget.seconds,
          factor,
          at.array.resources.partition,
        );
        return next(b, `walltime grown after a timeout: ${b.arithmetic}`);
      },
    };
  };
}

const next = (b: Budget, why: string): NextWalltime => ({
  seconds: b.seconds,
  ...(b.partition === undefined ? {} : { partition: b.partition }),
  why,
});

/** What the plan budgets a task's array from (plan/plan.ts), for the task alone. */
function budgetInput(manifest: Manifest, phase: Phase, at: { spec: TaskSpec; array: ArrayPlan }) {
  const overrides = at.spec.stage === 'smoke' ? phase.smoke?.overrides : undefined;
  return {
    phase,
    cluster: manifest.cluster,
    cell: at.spec.values,
    ...(at.spec.units === undefined ? {} : { units: at.spec.units }),
    ...(overrides?.walltime === undefined ? {} : { walltime: overrides.walltime }),
    ...(manifest.defaults?.walltime === undefined ? {} : { defaultWalltime: manifest.defaults.walltime }),
    ...(at.array.resources.partition === undefined ? {} : { partition: at.array.resources.partition }),
  };
}
