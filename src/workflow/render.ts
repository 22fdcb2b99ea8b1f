/**
 * The GitHub Actions workflow for a campaign, pure: one job per phase stage (smoke, gate,
 * release), `needs:` edges following `depends_on` alone, so independent phases run at once
 * (their jobs' saves of the state merge on restore: decide/parallel-states.ts), a gate job that
 * runs unless the run is cancelled or handed over and fails unless the checklist passed, least
 * permissions per job, and no `run:` step at all, so no expression can reach a shell.
 */
import { stringify } from 'yaml';
import { z } from 'zod';
import { UserError } from '../errors.js';
import { formatDuration, parseDuration } from '../manifest/units.js';
import type { Plan } from '../plan/plan.js';
import { dependenciesFirst } from '../plan/dependency-order.js';

export const workflowOptions = z.object({
  /** The manifest's path from the repository root, as the workflow's steps see it. */
  manifest: z.string(),
  /**
   * The campaign action, `owner/repo@ref` (its lint sub-action is `owner/repo/lint@ref`) or a
   * local `./path`; pinned, `owner/repo@<full commit SHA> # <tag>`, as the workflow writes it.
   */
  uses: z.string(),
  /** The branch whose pushes of the manifest start the campaign. */
  branch: z.string(),
  /** How long one job drives the campaign before it saves and hands over: a duration such as `5h`. */
  budget: z.string(),
  /** A GitHub environment the release jobs wait in, for a person to approve the full arrays. */
  environment: z.string().optional(),
  runsOn: z.string(),
  /**
   * `dispatch`: a job whose budget runs out starts the workflow again (it needs `actions: write`);
   * `none`: a schedule or a person does, and no job may write to the repository's Actions.
   */
  handover: z.enum(['dispatch', 'none']).default('dispatch'),
});
export type WorkflowOptions = z.input<typeof workflowOptions>;

/** The first lines of every generated workflow: the options are kept so a check can render it again. */
export const HEADER =
  '# Written by `campaign workflow`; do not edit it: change the manifest and run that command again.';
const OPTIONS_PREFIX = '# campaign-workflow-options: ';

/** Where the workflow for a campaign is committed, from the repository root. */
export function workflowPath(campaign: string): string {
  return `.github/workflows/campaign-${campaign}.yml`;
}

/**
 * Where the campaign's scheduled resume is committed: a workflow of its own, so that the jobs
 * that park can enable it and the last resume disable it, and no runner starts on a schedule
 * while nothing is parked (GitHub enables and disables whole workflows, never one trigger).
 */
export function resumeWorkflowPath(campaign: string): string {
  return `.github/workflows/campaign-${campaign}-resume.yml`;
}

const fileName = (path: string): string => path.slice(path.lastIndexOf('/') + 1);

/** The options a generated workflow was written with, or undefined when the text is not one. */
export function readOptions(text: string): WorkflowOptions | undefined {
  const line = text.split('\n').find((l) => l.startsWith(OPTIONS_PREFIX));
  if (!line) return undefined;
  try {
    const parsed = workflowOptions.safeParse(JSON.parse(line.slice(OPTIONS_PREFIX.length)));
    return parsed.success ? parsed.data : undefined;
  } catch {
    return undefined;
  }
}

export function lintAction(uses: string): string {
  const at = uses.lastIndexOf('@');
  return at < 0 ? `${uses.replace(/\/$/, '')}/lint` : `${uses.slice(0, at)}/lint${uses.slice(at)}`;
}

/**
 * The `uses:` value of the campaign action and the tag to comment it with: `owner/repo@<SHA> #
 * <tag>` is pinned to the commit, the tag saying which release that is.
 */
function pinnedUses(uses: string): { uses: string; tag?: string } {
  const m = /^(\S+@[0-9a-f]{40})\s+#\s*(\S+)$/.exec(uses);
  if (m) return { uses: m[1]!, tag: m[2]! };
  if (/\s/.test(uses))
    throw new UserError({
      message: `--uses "${uses}" is neither OWNER/REPO@REF nor OWNER/REPO@<full commit SHA> # TAG`,
      fix: "name the action by its commit and the tag that commit is, e.g. --uses 'campaign-tools/campaign@<40 hex digits> # v0'",
    });
  return { uses };
}

/**
 * Actions other than campaign's, pinned by commit with the tag each commit is: a tag can be
 * moved to other code, which would then run in jobs that hold the cluster's key.
 */
const PINNED_TAGS = new Map([['actions/checkout@08c6903cd8c0fde910a37f88322edcfb5dd907a8', 'v5.0.0']]);
const CHECKOUT = {
  uses: 'actions/checkout@08c6903cd8c0fde910a37f88322edcfb5dd907a8',
  with: { 'persist-credentials': false },
};
/**
 * A job with tasks still out and nothing due for this long saves and ends (parks), and the
 * schedule resumes what parked: runners are held for the passes, not while the cluster works.
 * Every 15 minutes, a run that finds nothing to do ends within its first billed minute.
 */
const PARK = '5m';
const RESUME_CRON = '*/15 * * * *';
/** Slack over the controller's budget for restoring, saving and the summary. */
const JOB_SLACK_MINUTES = 20;
/** GitHub-hosted runners end a job after 6 hours. */
const HOSTED_LIMIT_MINUTES = 360;

/** A job id GitHub accepts, unique per phase and stage. */
function jobIds(plan: Plan): Map<string, string> {
  const ids = new Map<string, string>();
  const owner = new Map<string, string>();
  for (const p of plan.phases) {
    const id = p.name.replace(/[^A-Za-z0-9_-]/g, '_').replace(/^(?=[0-9-])/, '_');
    const other = owner.get(id);
    if (other !== undefined) {
      throw new UserError({
        message: `phases "${other}" and "${p.name}" would be the same workflow job "${id}"`,
        fix: 'rename one of the phases (job ids keep letters, digits, "_" and "-")',
      });
    }
    owner.set(id, p.name);
    ids.set(p.name, id);
  }
  return ids;
}

/** The labels of GitHub-hosted runners: each job of a run gets a fresh machine. */
const GITHUB_HOSTED = /^(ubuntu|windows|macos)-/i;

/**
 * Why a local-executor campaign cannot finish under its generated workflow, or undefined when it
 * can. Each job checks the repository out afresh and the local executor keeps outputs on the
 * runner, so outputs reach the next job only on a self-hosted runner, in a workdir outside the
 * checkout (which actions/checkout cleans): otherwise the next job finds them gone.
 */
export function localOutputsLost(
  plan: Pick<Plan, 'executor' | 'workdir'>,
  runsOn: string,
): { message: string; fix: string; at: 'cluster' | 'workdir' } | undefined {
  if (plan.executor !== 'local') return undefined;
  const fix =
    'run it on a self-hosted runner (campaign workflow --runs-on self-hosted) with an absolute workdir outside the checkout, or use the slurm or ssh-gpu executor';
  if (GITHUB_HOSTED.test(runsOn))
    return {
      message: `the local executor keeps outputs on the runner, and on a GitHub-hosted runner (runs-on ${runsOn}) every job is a fresh machine: each job would find the outputs of the one before it gone, so the campaign can never finish`,
      fix,
      at: 'cluster',
    };
  // `~` is the runner's home directory, outside any checkout (as the local executor reads it).
  const w = plan.workdir;
  if (!(w.startsWith('/') || w === '~' || w.startsWith('~/')))
    return {
      message: `workdir "${w}" is relative to the manifest's place in the checkout, and every job of the workflow checks the repository out afresh, cleaning away what is not committed: each job would find the outputs of the one before it gone, so the campaign can never finish`,
      fix,
      at: 'workdir',
    };
  return undefined;
}

/**
 * The repository paths whose push changes what the campaign's tasks run (its phases' code
 * paths, plan/code.ts), as a push filter names them: a folder with everything under it.
 */
function codePaths(plan: Plan): string[] {
  const paths = new Set(plan.phases.flatMap((p) => p.code?.paths ?? []));
  return [...paths].sort().map((p) => (p.endsWith('/') ? `${p}**` : p));
}

/** What both of a campaign's workflows are made of: the options checked, the action pinned, the step. */
function parts(plan: Plan, options: WorkflowOptions) {
  const opts = workflowOptions.parse(options);
  refuseExpressions(opts);
  const action = pinnedUses(opts.uses);
  const tags = new Map(PINNED_TAGS);
  if (action.tag !== undefined) {
    tags.set(action.uses, action.tag);
    tags.set(lintAction(action.uses), action.tag);
  }
  const lost = localOutputsLost(plan, opts.runsOn);
  if (lost) throw new UserError({ message: lost.message, fix: lost.fix });
  const budgetMinutes = Math.ceil(budgetSeconds(opts.budget) / 60);
  const ssh = {
    'ssh-key': '${{ secrets.CAMPAIGN_SSH_KEY }}',
    'ssh-passphrase': '${{ secrets.CAMPAIGN_SSH_PASSPHRASE }}',
  };
  const step = (command: string, extra: Record<string, string>) => ({
    id: 'campaign',
    uses: action.uses,
    with: { command, manifest: opts.manifest, ...extra },
  });
  // Each advance names the other workflow of the pair: its state artifacts are the campaign's too.
  const advance = (extra: Record<string, string>) =>
    step('advance', {
      budget: opts.budget,
      park: PARK,
      ...(opts.handover === 'none' ? { handover: 'none' } : {}),
      ...extra,
      ...ssh,
    });
  return {
    opts,
    action,
    advance,
    step,
    outputs: (names: string[]) => Object.fromEntries(names.map((n) => [n, `\${{ steps.campaign.outputs.${n} }}`])),
    advanceMinutes: Math.min(HOSTED_LIMIT_MINUTES, budgetMinutes + JOB_SLACK_MINUTES),
    // actions: read lists earlier runs' state artifacts, write also starts the next run and
    // enables or disables the scheduled resume.
    actions: opts.handover === 'dispatch' ? 'write' : 'read',
    // One run drives a campaign at a time, whichever of the two workflows it belongs to; a newer
    // run waits instead of cancelling a running one.
    concurrency: { group: `campaign-${plan.campaign}`, 'cancel-in-progress': false },
    text: (workflow: object): string => {
      // The default handover is left out, so workflows written before the option stay current.
      const { handover, ...kept } = opts;
      const header = JSON.stringify(handover === 'dispatch' ? kept : opts);
      const yaml = stringify(workflow, { lineWidth: 0, aliasDuplicateObjects: false }).replace(
        /^(\s*(?:- )?uses: )(\S+)$/gm,
        (line: string, _key: string, value: string) => (tags.has(value) ? `${line} # ${tags.get(value)!}` : line),
      );
      return `${HEADER}\n${OPTIONS_PREFIX}${header}\n${yaml}`;
    },
  };
}

/**
 * The campaign's workflow: lint, then a job per phase stage, started by a push of the manifest
 * or its code, or by hand. What parks is resumed by the other workflow, renderResumeWorkflow's.
 */
export function renderWorkflow(plan: Plan, options: WorkflowOptions): string {
  const { opts, action, advance, step, outputs, advanceMinutes, actions, concurrency, text } = parts(plan, options);
  const ids = jobIds(plan);
  const resume = fileName(resumeWorkflowPath(plan.campaign));
  const advancePhase = (phase: string, stage: string) =>
    advance({
      phase,
      stage,
      'resume-workflow': resume,
      'retry-failed': '${{ inputs.retry_failed || false }}',
      'keep-changed': '${{ inputs.keep_changed || false }}',
    });

  const jobs: Record<string, unknown> = {
    lint: {
      name: 'lint',
      'runs-on': opts.runsOn,
      'timeout-minutes': 10,
      permissions: { contents: 'read' },
      steps: [CHECKOUT, { uses: lintAction(action.uses), with: { manifests: opts.manifest } }],
    },
  };
  const last = new Map<string, string>();
  for (const p of dependenciesFirst(plan.phases, (phase) => phase.dependsOn)) {
    const id = ids.get(p.name)!;
    const deps = p.dependsOn.map((d) => last.get(d)!);
    // A dependency whose job parked has not completed: the resume reaches this phase later.
    const first =
      deps.length > 0
        ? { needs: deps, if: deps.map((d) => `needs.${d}.outputs.parked != 'true'`).join(' && ') }
        : { needs: ['lint'] };
    // checks: write publishes the gate, which only the smoke stage and the gate job do.
    const advancing = (checks: boolean) => ({
      'runs-on': opts.runsOn,
      'timeout-minutes': advanceMinutes,
      permissions: { contents: 'read', actions, ...(checks ? { checks: 'write' } : {}) },
    });
    if (p.smoke.length === 0) {
      jobs[id] = {
        name: `${p.name}`,
        ...first,
        ...advancing(true),
        outputs: outputs(['complete', 'phase-status', 'state-artifact', 'parked']),
        steps: [CHECKOUT, advancePhase(p.name, 'all')],
      };
      last.set(p.name, id);
      continue;
    }
    jobs[`${id}-smoke`] = {
      name: `${p.name}: smoke stage`,
      ...first,
      ...advancing(true),
      outputs: outputs(['phase-status', 'state-artifact', 'handed-over', 'parked']),
      steps: [CHECKOUT, advancePhase(p.name, 'smoke')],
    };
    jobs[`${id}-gate`] = {
      name: `${p.name}: smoke gate`,
      needs: [`${id}-smoke`],
      // A skipped job counts as a success on GitHub: the gate runs whatever happened before it
      // and fails unless the checklist passed. Not in a cancelled run, and not after a smoke
      // job that handed over: the next run reaches the checklist, and a gate failed meanwhile
      // would show a healthy campaign red.
      if: `!cancelled() && needs.${id}-smoke.outputs.handed-over != 'true' && needs.${id}-smoke.outputs.parked != 'true'`,
      'runs-on': opts.runsOn,
      'timeout-minutes': 15,
      permissions: { contents: 'read', actions: 'read', checks: 'write' },
      outputs: outputs(['passed']),
      steps: [CHECKOUT, step('gate', { phase: p.name, 'resume-workflow': resume })],
    };
    jobs[`${id}-full`] = {
      name: `${p.name}: full arrays`,
      needs: [`${id}-gate`],
      if: `needs.${id}-gate.outputs.passed == 'true'`,
      ...(opts.environment ? { environment: opts.environment } : {}),
      ...advancing(false),
      outputs: outputs(['complete', 'phase-status', 'state-artifact', 'parked']),
      steps: [CHECKOUT, advancePhase(p.name, 'full')],
    };
    last.set(p.name, `${id}-full`);
  }
  jobs.summary = {
    name: 'summary',
    needs: Object.keys(jobs),
    // Whatever the jobs before it did, but not once the run is cancelled.
    if: '!cancelled()',
    'runs-on': opts.runsOn,
    'timeout-minutes': 15,
    permissions: { contents: 'read', actions: 'read' },
    steps: [CHECKOUT, step('summary', { 'resume-workflow': resume })],
  };

  return text({
    name: `campaign ${plan.campaign}`,
    on: {
      push: { branches: [opts.branch], paths: [opts.manifest, ...codePaths(plan)] },
      workflow_dispatch: {
        inputs: {
          retry_failed: {
            description: 'Run failed tasks and failed smoke stages again, with their retry allowances afresh',
            type: 'boolean',
            default: false,
          },
          keep_changed: {
            description:
              'Keep the results of tasks whose definition changed (a change declared harmless), recorded with each result',
            type: 'boolean',
            default: false,
          },
        },
      },
    },
    concurrency,
    permissions: {},
    jobs,
  });
}

/**
 * The campaign's scheduled resume: one job that drives the scopes parked jobs left until they
 * park again or one comes to rest, when it starts the campaign's workflow for the jobs of the
 * next stage. With `handover: dispatch` the jobs that park enable it and it disables itself once
 * nothing is parked, so a day with nothing parked starts no runner; with `none` no job may write
 * to the repository's Actions, and it runs on every tick.
 */
export function renderResumeWorkflow(plan: Plan, options: WorkflowOptions): string {
  const { opts, advance, outputs, advanceMinutes, actions, concurrency, text } = parts(plan, options);
  return text({
    name: `campaign ${plan.campaign}: resume`,
    on: { schedule: [{ cron: RESUME_CRON }], workflow_dispatch: {} },
    concurrency,
    permissions: {},
    jobs: {
      resume: {
        name: 'resume',
        'runs-on': opts.runsOn,
        'timeout-minutes': advanceMinutes,
        permissions: { contents: 'read', actions, checks: 'write' },
        outputs: outputs(['complete', 'parked', 'state-artifact']),
        steps: [
          CHECKOUT,
          advance({
            resume: 'true',
            'resume-workflow': fileName(resumeWorkflowPath(plan.campaign)),
            'campaign-workflow': fileName(workflowPath(plan.campaign)),
          }),
        ],
      },
    },
  });
}

/** Both of a campaign's workflows, each with its path from the repository root. */
export function renderWorkflows(plan: Plan, options: WorkflowOptions): { path: string; text: string }[] {
  return [
    { path: workflowPath(plan.campaign), text: renderWorkflow(plan, options) },
    { path: resumeWorkflowPath(plan.campaign), text: renderResumeWorkflow(plan, options) },
  ];
}

/**
 * GitHub evaluates `${{ … }}` wherever the workflow holds it: a branch or a runner label holding
 * one would run an expression nobody wrote in the workflow (reading secrets, or the event's
 * text that a pull request's author controls).
 */
function refuseExpressions(opts: z.infer<typeof workflowOptions>): void {
  const names: Record<string, string> = {
    manifest: 'the manifest path',
    uses: '--uses',
    branch: '--branch',
    budget: '--budget',
    environment: '--environment',
    runsOn: '--runs-on',
  };
  for (const [key, name] of Object.entries(names)) {
    const value = opts[key as keyof typeof opts];
    if (typeof value === 'string' && value.includes('${{'))
      throw new UserError({
        message: `${name} holds "\${{", which GitHub would evaluate as an expression in the workflow: ${JSON.stringify(value)}`,
        fix: 'give the value itself, without ${{ … }}',
      });
  }
}

function budgetSeconds(budget: string): number {
  const seconds = parseDuration(budget);
  if (seconds === undefined || seconds <= 0 || seconds / 60 + JOB_SLACK_MINUTES > HOSTED_LIMIT_MINUTES) {
    throw new UserError({
      message: `budget "${budget}" is not a duration up to ${formatDuration((HOSTED_LIMIT_MINUTES - JOB_SLACK_MINUTES) * 60)} (e.g. 5h, 90m, 5h20m)`,
      fix: `a job on a GitHub-hosted runner ends after 6 hours, and saving takes up to ${JOB_SLACK_MINUTES} minutes`,
    });
  }
  return seconds;
}
