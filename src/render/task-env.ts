/** The environment a task runs with: every template variable as CAMPAIGN_* (see manifest/template.ts). */
import type { TaskSpec } from '../manifest/expand.js';
import type { Manifest } from '../manifest/schema.js';
import { envName } from '../manifest/template.js';
import { taskInputs } from './task-script.js';

export function taskEnv(
  campaign: string,
  task: TaskSpec,
  attempt: number,
  workdir: string,
  inputs: readonly string[] = [],
): Record<string, string> {
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
  inputs.forEach((path, i) => (env[`CAMPAIGN_INPUT_${i}`] = path));
  env.CAMPAIGN_WORKDIR = workdir;
  // The task may record it with its own results; a Slurm task table keeps it to find the attempt again.
  if (task.definition !== undefined) env.CAMPAIGN_DEFINITION = task.definition;
  return env;
}

/** The environment of a manifest's task, its rendered preconditions included. */
export function manifestTaskEnv(
  manifest: Manifest,
  task: TaskSpec,
  attempt: number,
  workdir: string,
): Record<string, string> {
  return taskEnv(manifest.campaign, task, attempt, workdir, taskInputs(manifest, task));
}
