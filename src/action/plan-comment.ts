/**
 * `command: plan-comment`: on a pull request, each manifest's plan against the plan of the same
 * file at the pull request's base commit, as one comment per campaign that each push updates.
 * The base manifest is read from the checkout's history (`git show`), so the checkout must hold
 * the base commit. A pull request from a fork gets a read-only token: there the difference goes
 * to the job summary only, and the step still passes.
 */
import * as core from '@actions/core';
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { basename, dirname } from 'node:path';
import { promisify } from 'node:util';
import { z } from 'zod';
import { manifestFiles } from '../app/lint-files.js';
import { readManifest } from '../app/load.js';
import { UserError } from '../errors.js';
import { lintText } from '../lint/lint.js';
import type { Plan } from '../plan/plan.js';
import { commentMarker, diffPlans, renderPlanComment, unchangedPlan } from '../report/plan-diff.js';
import { IssueComments, type PullRequestComments } from './github/comments.js';
import { GitHubRest, runContext } from './github/rest.js';
import { writeSummary } from './report.js';

const run = promisify(execFile);

/** The fields of a pull_request event's payload that say which pull request, on what base, from where. */
const pullRequestEvent = z.object({
  pull_request: z.object({
    number: z.number(),
    base: z.object({ sha: z.string().regex(/^[0-9a-f]{40}$/), repo: z.object({ full_name: z.string() }) }),
    // Null where the fork's repository was deleted.
    head: z.object({ repo: z.object({ full_name: z.string() }).nullable() }),
  }),
});

export interface PlanCommentOptions {
  /** The manifest file, or a directory of them, as the `manifest` input gives it. */
  manifest: string;
  /** The event payload's file (GITHUB_EVENT_PATH). */
  eventPath: string | undefined;
  /** The comments of a pull request, made only where one is written. */
  comments: (pullRequest: number) => PullRequestComments;
}

/** The REST adapter for the run's repository (GITHUB_* variables) with `token`. */
export function restComments(env: NodeJS.ProcessEnv, token: string): (pullRequest: number) => PullRequestComments {
  return (n) => {
    const ctx = runContext(env);
    return new IssueComments(ctx, new GitHubRest(ctx, token, { warn: (m) => core.warning(m) }), n);
  };
}

export async function planComment(o: PlanCommentOptions): Promise<string | undefined> {
  const event = await pullRequestOf(o.eventPath);
  const pr = event.pull_request;
  // A required check may run where there are no manifests yet: there it has nothing to say.
  if (!existsSync(o.manifest)) {
    core.info(`no plan comment: ${o.manifest} does not exist`);
    return undefined;
  }
  await requireCommit(pr.base.sha);
  const fork = pr.head.repo?.full_name !== pr.base.repo.full_name;
  if (fork)
    core.notice(
      "a pull request from a fork gets a read-only token: the plan's difference is in the job summary only, not a comment",
    );
  let comments: PullRequestComments | undefined;
  for (const file of await manifestFiles([o.manifest], 'input "manifest"')) {
    const head = lintText(file, await readManifest(file));
    if (!head.context || head.findings.some((f) => f.severity === 'error')) {
      core.warning(`no plan comment for ${file}: it does not load (the lint check says why)`);
      continue;
    }
    const plan = head.context.plan;
    const base = await basePlan(file, pr.base.sha);
    const diff = diffPlans(base.plan, plan);
    const body = renderPlanComment(diff, { file, ...(base.why === undefined ? {} : { noBase: base.why }) });
    await writeSummary(body);
    if (fork) continue;
    comments ??= o.comments(pr.number);
    const marker = commentMarker(plan.campaign);
    const found = await comments.find(marker);
    if (found) {
      if (found.body !== body) await comments.update(found.id, body);
      core.info(`${plan.campaign}: the plan comment is updated`);
    } else if (!unchangedPlan(diff)) {
      await comments.create(body);
      core.info(`${plan.campaign}: the plan comment is written`);
    } else core.info(`${plan.campaign}: the plan is unchanged; no comment`);
  }
  return undefined;
}

async function pullRequestOf(eventPath: string | undefined): Promise<z.infer<typeof pullRequestEvent>> {
  const refuse = (): never => {
    throw new UserError({
      message: 'command plan-comment needs the event of a pull request',
      fix: 'run it in a job of a workflow `on: pull_request`',
    });
  };
  if (eventPath === undefined) return refuse();
  const parsed = pullRequestEvent.safeParse(JSON.parse(await readFile(eventPath, 'utf8')));
  return parsed.success ? parsed.data : refuse();
}

async function requireCommit(sha: string): Promise<void> {
  try {
    await run('git', ['cat-file', '-e', `${sha}^{commit}`]);
  } catch {
    throw new UserError({
      message: `the pull request's base commit ${sha} is not in the checkout`,
      fix: 'check out with `fetch-depth: 0` (actions/checkout), so that the base manifest can be read',
    });
  }
}

/** The plan of `file` at the base commit, or why there is none. */
async function basePlan(file: string, sha: string): Promise<{ plan?: Plan; why?: string }> {
  // `./name` is the path relative to the directory git runs in, wherever the repository's root is.
  const object = `${sha}:./${basename(file)}`;
  const cwd = dirname(file);
  const present = await run('git', ['cat-file', '-e', object], { cwd }).then(
    () => true,
    () => false,
  );
  if (!present) return { why: `${file} is new in this pull request` };
  const { stdout } = await run('git', ['show', object], { cwd, maxBuffer: 64 * 2 ** 20 });
  const result = lintText(file, stdout);
  try {
    if (result.context) return { plan: result.context.plan };
  } catch (e) {
    if (!(e instanceof UserError)) throw e;
  }
  return { why: `${file} does not load at the base commit` };
}
