/** The retry policy a manifest declares, as the transition function asks for it. */
import type { Manifest } from '../manifest/schema.js';
import { parseDuration } from '../manifest/units.js';
import { retryRule, type RetryPolicy } from './transition.js';

/** The phase a task id belongs to (`<phase>/...`). */
export const phaseOfTask = (taskId: string): string => taskId.slice(0, taskId.indexOf('/'));

export function retryPolicy(manifest: Manifest): RetryPolicy {
  const phases = new Map(manifest.phases.map((p) => [p.name, p]));
  const c = manifest.cluster;
  const oom = c.executor === 'ssh-gpu' ? c.oom?.retry : undefined;
  return (taskId, cls) => {
    const rule = retryRule(phases.get(phaseOfTask(taskId))?.retry, manifest.defaults?.retry, cls);
    if (cls === 'out_of_memory' && oom && rule.attempts === 0) {
      return { ...rule, attempts: oom.attempts, delaySeconds: oom.delay === undefined ? 0 : parseDuration(oom.delay)! };
    }
    return rule;
  };
}
