/**
 * The retry policy and what it makes of an attempt's end: the rule of each failure class
 * (attempts, delay, memory, walltime, resuming from a checkpoint), the built-in defaults under
 * the manifest's, and the task's record once an attempt has ended (completed, retrying or
 * failed). decide/policy.ts makes a manifest's policy; decide/apply.ts applies it to events.
 */
import type { Retry } from '../manifest/schema.js';
import { parseDuration } from '../manifest/units.js';
import type { TaskEvent } from '../state/events.js';
import type { Attempt, FailureClass, TaskState } from '../state/state.js';
import { renewed } from './copies.js';

/** A walltime chosen for one attempt, where it is not the plan's, with how it was chosen. */
export interface NextWalltime {
  seconds: number;
  partition?: string;
  why: string;
}

export interface RetryRule {
  attempts: number;
  delaySeconds: number;
  memFactor?: number;
  /** The next attempt continues from the task's checkpoint (CAMPAIGN_RESUME=1). */
  resume?: boolean;
  /** The next attempt's walltime, from the one that ended and the units it did. */
  walltime?: (ended: { walltimeSeconds?: number; units?: number }) => NextWalltime;
}
export type RetryPolicy = (taskId: string, cls: FailureClass) => RetryRule;

/**
 * Retries per class when the manifest says nothing: a vanished task, a failed node or a
 * preemption is not the task's fault.
 */
const DEFAULT_ATTEMPTS: Partial<Record<FailureClass, number>> = { lost: 2, node_fail: 2, preempted: 3, shortfall: 2 };

/** The manifest retry entry a class is governed by. */
const ruleKey = (cls: 'completed' | FailureClass): string => (cls === 'unverified' ? 'failed' : cls);

/** The retry rule for a class, phase settings over defaults over built-in defaults. */
export function retryRule(phaseRetry: Retry | undefined, defaults: Retry | undefined, cls: FailureClass): RetryRule {
  // Sent again as it is, an unschedulable task would only wait for ever again.
  if (cls === 'gate' || cls === 'cancelled' || cls === 'disk_full' || cls === 'unschedulable')
    return { attempts: 0, delaySeconds: 0 };
  const key = cls === 'unverified' ? 'failed' : cls;
  const rule = phaseRetry?.[key] ?? defaults?.[key];
  const memFactor = key === 'out_of_memory' ? (rule as Retry['out_of_memory'])?.mem_factor : undefined;
  return {
    attempts: rule?.attempts ?? DEFAULT_ATTEMPTS[cls] ?? 0,
    delaySeconds: rule?.delay === undefined ? 0 : parseDuration(rule.delay)!,
    ...(memFactor === undefined ? {} : { memFactor }),
  };
}

const addSeconds = (iso: string, s: number): string => new Date(Date.parse(iso) + s * 1000).toISOString();

/**
 * A task's record once an attempt has ended (`a`, as `e` ended it, already in `attempts`):
 * completed, or after a failure retrying, with the next attempt's delay, memory and walltime,
 * while the rule of its class allows another, else failed.
 */
export function afterEnd(
  t: TaskState,
  attempts: Attempt[],
  a: Attempt,
  e: Extract<TaskEvent, { type: 'finished' }>,
  policy: RetryPolicy,
): TaskState {
  if (e.class === 'completed') return renewed(t, { status: 'completed', attempts });
  const rule = policy(e.task, e.class);
  // Classes that share a rule share its allowance (`unverified` is counted with `failed`).
  const since = t.retryFrom ?? 0;
  const used =
    attempts.filter(
      (x) => x.n > since && x.class !== undefined && !x.unstarted && ruleKey(x.class) === ruleKey(e.class),
    ).length - 1;
  const why = `${e.class}${e.reason ? `: ${e.reason}` : ''}`;
  if (used >= rule.attempts) {
    return renewed(t, {
      status: 'failed',
      attempts,
      reason: rule.attempts > 0 ? `${why} (after ${rule.attempts} retries)` : why,
    });
  }
  const mem = rule.memFactor && a.memBytes ? Math.ceil(a.memBytes * rule.memFactor) : undefined;
  const wall = rule.walltime?.({
    ...(a.walltimeSeconds === undefined ? {} : { walltimeSeconds: a.walltimeSeconds }),
    ...(e.units === undefined ? {} : { units: e.units }),
  });
  return renewed(t, {
    status: 'retrying',
    attempts,
    reason: why,
    notBefore: addSeconds(e.at, rule.delaySeconds),
    ...(mem === undefined ? {} : { nextMemBytes: mem }),
    ...(wall === undefined ? {} : { nextWalltime: wall }),
    ...(rule.resume ? { resume: true } : {}),
  });
}
