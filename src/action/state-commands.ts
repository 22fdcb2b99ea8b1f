/**
 * The campaign action's commands that reach a cluster or read a campaign's state (check,
 * advance, gate, summary), which main.ts loads only when one of them runs.
 */
import { core } from './toolkit.js';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { openExecutor, preflightCampaign } from '../app/executors.js';
import { renderPreflight } from '../app/preflight.js';
import { sshSecretsFrom, type SshSecrets } from '../app/transport-for.js';
import type { Campaign } from '../app/load.js';
import { systemClock } from '../app/drive.js';
import { recordDrove } from '../app/merge-saves.js';
import { runCampaign, type RunOptions } from '../app/run.js';
import { storedState } from '../app/stored-state.js';
import { gatherSummary } from '../app/write-summary.js';
import { UserError } from '../errors.js';
import type { Executor } from '../exec/executor.js';
import type { Plan } from '../plan/plan.js';
import { gateView, jobOutcome, jobSummary } from '../report/job-summary.js';
import { codeBlock } from '../report/markdown.js';
import type { Scope } from '../decide/scope.js';
import type { CampaignState } from '../state/state.js';
import { renderSummary, type SummaryInput } from '../report/summary.js';
import type { GitHubServices, StateArtifactRef } from './services/index.js';
import type { RunContext } from './main.js';
import { annotate, problemFindings, writeSummary } from './report.js';
import type { MainSettings } from './settings.js';

/** Runs `s.command` (not plan nor plan-comment) on the loaded campaign `c`; as main.ts's `run`. */
export async function runOnState(
  s: MainSettings,
  c: Campaign,
  services: GitHubServices,
  ctx: RunContext,
): Promise<string | undefined> {
  const ssh: SshSecrets = {
    ...sshSecretsFrom(process.env),
    ...(s['ssh-key'] === undefined ? {} : { key: s['ssh-key'] }),
    ...(s['ssh-passphrase'] === undefined ? {} : { passphrase: s['ssh-passphrase'] }),
  };
  switch (s.command) {
    case 'check': {
      // The pre-flight as a check of its own (a pull request's, where the repository gives it
      // the secrets): what would block which phase, before anything is submitted.
      const items = await preflightCampaign(c, {
        ssh,
        since: () => new Date().toISOString(),
        warn: (m) => core.warning(m),
      });
      const text = renderPreflight(items, c.plan.phases);
      core.info(text);
      await writeSummary(`## Pre-flight of ${c.manifest.campaign}\n\n${codeBlock(text.trimEnd()).join('\n')}\n`);
      const failed = items.filter((i) => i.status === 'fail');
      return failed.length === 0
        ? undefined
        : `the pre-flight found ${failed.length} ${failed.length === 1 ? 'problem' : 'problems'} (see the job summary)`;
    }
    case 'advance':
      return advance(s, c, services, ctx, ssh);
    case 'gate':
      return gate(s.phase!, c, services);
    case 'summary':
      return summary(c, services, ssh);
  }
}

/** The newest state, and the artifact it came from (undefined when there was none). */
async function restore(
  c: Campaign,
  services: GitHubServices,
): Promise<{ state: CampaignState; ref: StateArtifactRef | undefined }> {
  const ref = await services.state.restoreNewest(c.manifest.campaign, c.stateDir);
  const merged = ref?.merged?.length
    ? `, merged with ${ref.merged.join(', ')} (jobs of that run that ran beside it)${ref.uncovered ? `; no job of it drove ${ref.uncovered.join(', ')}, kept as ${ref.name} holds them` : ''}`
    : '';
  core.info(
    ref ? `restored the state from ${ref.name} (run ${ref.runId})${merged}` : 'no earlier state: the campaign starts',
  );
  return { state: await storedState(c), ref };
}

async function advance(
  s: MainSettings,
  c: Campaign,
  services: GitHubServices,
  ctx: RunContext,
  ssh: SshSecrets,
): Promise<string | undefined> {
  const clock = ctx.clock ?? systemClock;
  const deadline = clock.now() + s.budget * 1000;
  const scope: Scope = { ...(s.phase === undefined ? {} : { phase: s.phase }), stage: s.stage };
  const { state: restored } = await restore(c, services);
  await recordDrove(c.stateDir, s.phase);
  // A scheduled resume drives what parked jobs left, never a stage no job of the workflow began
  // (a gate, a release waiting for approval, a phase whose dependencies just completed).
  const scopes: Scope[] = s.resume ? (restored.parked?.scopes ?? []) : [scope];
  if (scopes.length === 0) {
    core.notice(`campaign ${c.manifest.campaign}: no job parked, so there is nothing to resume`);
    core.setOutput('parked', 'false');
    await switchResume(s, services, false);
    return undefined;
  }
  let passes = 0;
  let saved = false;
  // A cancelled job gets SIGINT, then SIGTERM, seconds before it is killed: stop after the
  // current pass and save, instead of losing what this job did.
  const cancelling = new AbortController();
  const cancel = (): void => {
    if (!cancelling.signal.aborted) core.warning('the job is being cancelled: saving the state after this pass');
    cancelling.abort();
  };
  process.on('SIGINT', cancel);
  process.on('SIGTERM', cancel);
  try {
    const options: RunOptions = {
      holder: `campaign action advance ${s.manifest}`,
      ssh,
      clock,
      deadline,
      signal: cancelling.signal,
      ...(ctx.commit === undefined ? {} : { commit: ctx.commit }),
      retryFailed: s['retry-failed'],
      keepChanged: s['keep-changed'],
      job: { scopes, resume: s.resume, ...(s.park === undefined ? {} : { park: s.park }) },
      retryFix: 'run the workflow again with retry-failed: true',
      note: (m) => core.notice(m),
      warn: (m) => core.warning(m),
      onPass: () => passes++,
    };
    return await runCampaign(c, options, async ({ plan, state, driven, continues, executor }) => {
      core.setOutput('parked', String(driven.parked !== undefined && !continues));
      if (driven.parked && !continues)
        core.notice(
          `nothing is due for ${s.park! / 60} min: the state is saved and this job ends; a scheduled resume goes on`,
        );
      // The summary travels in the state artifact too: a download that reads without the run's page.
      const summary = await summaryInput(c, plan, state, executor);
      await writeFile(join(c.stateDir, 'summary.md'), renderSummary(summary));
      const artifact = await services.state.save(c.manifest.campaign, c.stateDir, ctx.job);
      saved = true;
      core.setOutput('state-artifact', artifact.name);
      // The budget ran out, or a resumed stage came to rest and the workflow's jobs take the next one.
      const handOver =
        s.handover === 'dispatch' &&
        !cancelling.signal.aborted &&
        (continues || (!driven.atRest && driven.parked === undefined));
      // A refused handover is the user's to fix (a workflow without workflow_dispatch): said once
      // the state is saved, with the gates and the summary still written.
      const refused = handOver
        ? await handOverRun(
            services,
            continues
              ? 'a resumed stage came to rest: a new run of the workflow begins the next'
              : 'the budget of this job ran out before its part of the campaign came to rest: a new run goes on',
            s['campaign-workflow'],
          )
        : undefined;
      if (continues && !handOver)
        core.notice('a resumed stage came to rest: the next one begins with the next push or "Run workflow"');
      core.setOutput('handed-over', String(handOver && refused === undefined));
      // The schedule runs while something is parked, and only then: a job that parked switches it
      // on, the resume that leaves nothing parked switches it off.
      let unscheduled: string | undefined;
      if (state.parked && !s.resume) unscheduled = await switchResume(s, services, true);
      else if (!state.parked && s.resume) unscheduled = await switchResume(s, services, false);
      await publishGates(c, plan, state, services, scope);
      const failure = await report(c, scope, summary, artifact);
      return refused ?? unscheduled ?? failure;
    });
  } catch (e) {
    // What the passes did must outlive this job: the next one starts from the newest artifact.
    if (passes > 0 && !saved) {
      await services.state
        .save(c.manifest.campaign, c.stateDir, ctx.job)
        .catch((err: unknown) => core.warning(`the state could not be saved either: ${(err as Error).message}`));
    }
    throw e;
  } finally {
    process.off('SIGINT', cancel);
    process.off('SIGTERM', cancel);
  }
}

/**
 * Switches the campaign's scheduled resume on or off, where the step names it and may write to
 * the repository's Actions (`handover: dispatch`). A schedule left off would leave what parked
 * waiting for ever: that failure is the step's. One left on costs runner minutes: a warning.
 */
async function switchResume(s: MainSettings, services: GitHubServices, on: boolean): Promise<string | undefined> {
  const workflow = s['resume-workflow'];
  if (workflow === undefined || s.handover !== 'dispatch') return undefined;
  try {
    await services.schedule.set(workflow, on);
    core.info(on ? `${workflow} enabled: its schedule resumes what parked` : `${workflow} disabled: nothing is parked`);
    return undefined;
  } catch (e) {
    if (!(e instanceof UserError)) throw e;
    if (!on) {
      core.warning(`nothing is parked, and ${workflow} could not be disabled (${e.message}): its schedule runs on`);
      return undefined;
    }
    annotate(problemFindings(e));
    return `the job parked, and its scheduled resume could not be enabled: ${e.message}; the state is saved: enable ${workflow} in the repository's Actions tab, or run it by hand`;
  }
}

/** Starts the next run of the workflow; the failure to report when GitHub refused it. */
async function handOverRun(services: GitHubServices, why: string, workflow?: string): Promise<string | undefined> {
  try {
    // No inputs: a calling workflow may declare none, and GitHub refuses inputs it does not declare.
    await services.handover.dispatchAgain({}, workflow);
    core.notice(why);
    return undefined;
  } catch (e) {
    if (!(e instanceof UserError)) throw e;
    annotate(problemFindings(e));
    return `the budget ran out and the next run could not be started: ${e.message}; the state is saved, and a run started by hand (or by a schedule) goes on from it`;
  }
}

async function publishGates(
  c: Campaign,
  plan: Plan,
  state: CampaignState,
  services: GitHubServices,
  scope: Scope,
): Promise<void> {
  if (scope.stage === 'full') return;
  for (const p of plan.phases) {
    if (p.smoke.length === 0 || (scope.phase !== undefined && p.name !== scope.phase)) continue;
    const ps = state.phases[p.name];
    // A phase not yet reached has nothing to say yet.
    if (!ps || (ps.status === 'waiting' && !ps.gate)) continue;
    const view = gateView(p, state);
    await services.gate.publish({ campaign: c.manifest.campaign, phase: p.name, ...view });
  }
}

async function gate(phase: string, c: Campaign, services: GitHubServices): Promise<string | undefined> {
  const { state } = await restore(c, services);
  const p = c.plan.phases.find((x) => x.name === phase)!;
  if (p.smoke.length === 0) {
    core.setOutput('passed', 'true');
    return undefined;
  }
  const view = gateView(p, state);
  await services.gate.publish({ campaign: c.manifest.campaign, phase, ...view });
  core.setOutput('passed', String(view.conclusion === 'success'));
  await writeSummary(`## ${phase}: smoke gate\n\n**${view.title}**\n\n${view.text}\n`);
  return view.conclusion === 'success' ? undefined : `the smoke gate of ${phase} did not pass: ${view.title}`;
}

async function summary(c: Campaign, services: GitHubServices, ssh: SshSecrets): Promise<string | undefined> {
  const { state, ref } = await restore(c, services);
  let executor: Executor | undefined;
  try {
    executor = (
      await openExecutor(c, { ssh, since: () => state.created, warn: (m) => core.warning(m), checkCluster: false })
    ).executor;
  } catch (e) {
    core.warning(`no log tails in the summary: the cluster could not be reached (${(e as Error).message})`);
  }
  try {
    return await report(c, { stage: 'all' }, await summaryInput(c, c.plan, state, executor), ref);
  } finally {
    await executor?.close();
  }
}

/**
 * What the campaign's summary shows (log tails when the cluster can be read), with its pictures
 * and tables written beside it in the state directory (the artifact).
 */
async function summaryInput(
  c: Campaign,
  plan: Plan,
  state: CampaignState,
  executor: Executor | undefined,
): Promise<SummaryInput> {
  return gatherSummary({ campaign: c, plan, state, executor, beside: c.stateDir, warn: (m) => core.warning(m) });
}

/** The artifact's page on GitHub, where its zip is downloaded; undefined off a runner. */
function artifactPage(ref: StateArtifactRef): string | undefined {
  const repository = process.env.GITHUB_REPOSITORY;
  if (!repository) return undefined;
  const server = (process.env.GITHUB_SERVER_URL ?? 'https://github.com').replace(/\/+$/, '');
  return `${server}/${repository}/actions/runs/${ref.runId}/artifacts/${ref.id}`;
}

/**
 * The job summary and outputs; a failure message when a phase in scope failed or is blocked.
 * `artifact` is the state artifact the summary's files are in: the one saved, or the one restored.
 */
async function report(
  c: Campaign,
  scope: Scope,
  summary: SummaryInput,
  artifact: StateArtifactRef | undefined,
): Promise<string | undefined> {
  const { plan, state } = summary;
  const outcome = jobOutcome(plan, state, scope.phase);
  const where = scope.phase
    ? ` (${scope.phase}, ${scope.stage === 'all' ? 'every stage' : `${scope.stage} stage`})`
    : '';
  const url = artifact === undefined ? undefined : artifactPage(artifact);
  await writeSummary(
    jobSummary({
      heading: `## campaign ${c.manifest.campaign}${where}`,
      summary,
      ...(artifact === undefined ? {} : { artifact: { name: artifact.name, ...(url === undefined ? {} : { url }) } }),
      now: new Date().toISOString(),
    }),
  );
  core.setOutput('complete', String(outcome.complete));
  core.setOutput('counts', JSON.stringify(outcome.counts));
  if (scope.phase !== undefined) core.setOutput('phase-status', outcome.mine[0]?.status ?? 'waiting');
  return outcome.failure;
}
