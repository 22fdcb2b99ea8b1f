/** The environment a task runs with: every template variable as CAMPAIGN_* (see manifest/template.ts). */
import type { TaskSpec } from '../manifest/expand.js';
import { envName } from '../manifest/template.js';

export function taskEnv(campaign: string, task: TaskSpec, attempt: number, workdir: string): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [axis, value] of Object.entries(task.values)) env[envName(axis)] = String(value);
  const builtins: Record<string, string | undefined> = {
    output: task.output ?? '',
    tag: task.tag,
    task: task.id,
    phase: task.phase,
    campaign,
    stage: task.stage,
    units: task.units === undefined ? '' : String(task.units),
    attempt: String(attempt),
  };
  for (const [name, value] of Object.entries(builtins)) env[envName(name)] = value ?? '';
  env.CAMPAIGN_WORKDIR = workdir;
  return env;
}
