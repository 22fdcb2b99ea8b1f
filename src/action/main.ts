/**
 * The campaign action's commands, thin: the decisions are the core's and the controller's.
 *   plan     the plan into the job summary
 *   advance  restore the newest state → open the executor → controller passes (confined to a
 *            phase and stage when given) for the time budget → save the state artifact →
 *            publish the gate → summary and outputs; hands over to a new run when the budget
 *            runs out first. Without a phase it drives the whole campaign (a resume).
 *   gate     publish a phase's smoke gate from the newest state; fails unless it passed
 *   summary  the campaign's summary from the newest state; fails if a phase failed or is blocked
 *   plan-comment  on a pull request, the plan against the base commit's as one comment (plan-comment.ts)
 * `run` takes its services as an argument, so tests call it in-process as well as via the bundle.
 * Every command but `plan` is in state-commands.ts, loaded when one runs.
 */
import { core } from './toolkit.js';
import { join } from 'node:path';
import type { Clock } from '../app/drive.js';
import { loadCampaign } from '../app/load.js';
import { renderPlanText } from '../app/plan-table.js';
import { UserError } from '../errors.js';
import type { GitHubServices } from './services/index.js';
import { annotate, writeSummary } from './report.js';
import type { MainSettings } from './settings.js';

export interface RunContext {
  /** The job's id (GITHUB_JOB): part of the state artifact's name. */
  job: string;
  /** Where the state directory goes when no `state-dir` is given (RUNNER_TEMP on a runner). */
  tempDir: string;
  /** The commit the workflow runs (GITHUB_SHA): recorded with each attempt sent. */
  commit?: string;
  /** The clock between passes; tests may drive it. */
  clock?: Clock;
}

/** Runs one command; returns a failure message for the step, or undefined when it succeeded. */
export async function run(s: MainSettings, services: GitHubServices, ctx: RunContext): Promise<string | undefined> {
  // Masked before anything could print them; handed to the executor, never put in process.env.
  for (const value of [s['ssh-key'], s['ssh-passphrase']]) {
    if (value === undefined) continue;
    core.setSecret(value);
    for (const line of value.split('\n')) if (line.trim().length > 8) core.setSecret(line.trim());
  }
  // Before a campaign is loaded: its manifest input may be a directory, and it reads no state.
  if (s.command === 'plan-comment') {
    const token = s.token ?? process.env.GITHUB_TOKEN ?? '';
    const eventPath = process.env.GITHUB_EVENT_PATH;
    // Loaded only here: the REST client is a chunk of the bundle that no other command reads.
    const { planComment, restComments } = await import('./plan-comment.js');
    return planComment({ manifest: s.manifest, eventPath, comments: restComments(process.env, token) });
  }
  const loaded = await loadCampaign(s.manifest, s['state-dir']);
  // The runner's temp directory, not the checkout: the state must not end up in a commit.
  const c = s['state-dir']
    ? loaded
    : { ...loaded, stateDir: join(ctx.tempDir, 'campaign-state', loaded.manifest.campaign) };
  annotate(c.warnings);
  if (s.phase !== undefined && !c.plan.phases.some((p) => p.name === s.phase)) {
    throw new UserError({
      message: `input "phase": ${c.manifest.campaign} has no phase "${s.phase}"`,
      fix: `use one of ${c.plan.phases.map((p) => p.name).join(', ')}`,
    });
  }
  if (s.command === 'plan') {
    await writeSummary(`## Plan of ${c.manifest.campaign}\n\n\`\`\`\n${renderPlanText(c.plan)}\`\`\`\n`);
    core.setOutput('gpu-hours', c.plan.phases.reduce((n, p) => n + p.gpuHours + p.smokeGpuHours, 0).toFixed(2));
    return undefined;
  }
  // Loaded only here: the executors, the SSH transport, the controller, the state store and the
  // summary's pictures are half of the bundle, a chunk that `plan` never reads.
  const { runOnState } = await import('./state-commands.js');
  return runOnState(s, c, services, ctx);
}
