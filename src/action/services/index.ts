/**
 * What the action's entry points need from GitHub, as narrow interfaces: the campaign state
 * kept as workflow artifacts, the smoke gate published as a check run, and the handover of a
 * long campaign to a fresh workflow run. Entry points code against these;
 * `githubServices` gives the real adapters, which reach GitHub through the runner's environment
 * (GITHUB_API_URL, GITHUB_REPOSITORY, GITHUB_RUN_ID, GITHUB_SHA, ACTIONS_RUNTIME_TOKEN, …).
 * The token needs `actions: read` (earlier runs' artifacts), `checks: write` (the gate) and
 * `actions: write` (the handover, and switching the scheduled resume).
 * `companions` names the workflow files (the campaign's and its resume) whose runs' state
 * artifacts are trusted besides this run's own workflow's.
 */
import { ArtifactStateStore } from './artifacts.js';
import { CheckRunGate } from './checks.js';
import { WorkflowDispatch, WorkflowSwitch } from './dispatch.js';
import { GitHubRest, runContext, type RestOptions } from './rest.js';

export { gateCheckName } from './checks.js';

/** One stored copy of a campaign's state directory. */
export interface StateArtifactRef {
  /** `campaign-state.<campaign>.<run id>-<attempt>.<job>.<n>`: unique within a run. */
  name: string;
  id: number;
  /** The workflow run that uploaded it. */
  runId: number;
  /** Saves of jobs that ran beside it in its run, merged into the restored state (newest first). */
  merged?: string[];
  /** The phases no job of its run drove, kept as its newest save holds them. */
  uncovered?: string[];
}

export interface StateArtifacts {
  /**
   * Puts the newest intact state of `campaign` (this run's artifacts first, then earlier runs')
   * into `dir`, replacing its files only once a download proved whole; undefined when none exists.
   */
  restoreNewest(campaign: string, dir: string): Promise<StateArtifactRef | undefined>;
  /** Uploads the files of `dir` as a new artifact of this run for `job` (GITHUB_JOB); each save is kept. */
  save(campaign: string, dir: string, job: string): Promise<StateArtifactRef>;
}

export type GateConclusion = 'success' | 'failure' | 'pending';

export interface GateReport {
  campaign: string;
  phase: string;
  /** `pending` while the smoke stage runs; a gate that never ran is published as `failure`. */
  conclusion: GateConclusion;
  /** One line, e.g. "3 of 3 checks passed". */
  title: string;
  /** Markdown: the checklist with each failed check's interpretation. */
  text: string;
}

export interface GateChecks {
  /** Publishes the gate as the check run `campaign/<campaign>/<phase>/smoke-gate` on this commit. */
  publish(report: GateReport): Promise<void>;
}

export interface Handover {
  /**
   * Starts this workflow (or `other`, a workflow file of the repository by name) again on this
   * ref with these `workflow_dispatch` inputs (strings, as GitHub passes them).
   */
  dispatchAgain(inputs: Record<string, string>, other?: string): Promise<void>;
}

export interface ResumeSchedule {
  /** Enables or disables a workflow of the repository (its file name): its schedule with it. */
  set(workflow: string, enabled: boolean): Promise<void>;
}

export interface GitHubServices {
  state: StateArtifacts;
  gate: GateChecks;
  handover: Handover;
  schedule: ResumeSchedule;
}

/**
 * The adapters for this run, from the runner's environment; `token` is the job's GITHUB_TOKEN
 * (or another with the permissions above). Warnings go to `warn` (e.g. core.warning); `waits`
 * shortens the REST retries' waits in tests.
 */
export function githubServices(
  env: NodeJS.ProcessEnv,
  token: string,
  warn: (message: string) => void = () => {},
  waits: Pick<RestOptions, 'waitUnitMs'> = {},
  companions: readonly string[] = [],
): GitHubServices {
  const ctx = runContext(env);
  const rest = new GitHubRest(ctx, token, { warn, ...waits });
  return {
    state: new ArtifactStateStore({ ctx, rest, token, warn, companions }),
    gate: new CheckRunGate(ctx, rest),
    handover: new WorkflowDispatch(ctx, rest),
    schedule: new WorkflowSwitch(ctx, rest),
  };
}
