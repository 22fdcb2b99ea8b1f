/**
 * `command: plan-comment`: on a pull request, each manifest's plan against the plan of the same
 * file at the pull request's base commit, as one comment per campaign that each push updates.
 * The base manifest is read from the checkout's history (`git show`), so the checkout must hold
 * the base commit. A pull request from a fork gets a read-only token: there the difference goes
 * to the job summary only, and the step still passes.
 */
import { core } from './toolkit.js';
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { normalize } from 'node:path';
import { promisify } from 'node:util';
import { z } from 'zod';
import { manifestFiles } from '../app/lint-files.js';
import { readManifest } from '../app/load.js';
import { UserError } from '../errors.js';
import { lintText } from '../lint/lint.js';
import type { Plan } from '../plan/plan.js';
import {
  commentMarker,
  diffPlans,
  renderPlanComment,
  unchangedPlan,
  type CommentOptions,
} from '../report/plan-diff.js';
import { IssueComments, type PullRequestComments } from './services/comments.js';
import { GitHubRest, runContext } from './services/rest.js';
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
  await requireCommit(pr.base.sha);
  const head = existsSync(o.manifest) ? await manifestFiles([o.manifest], 'input "manifest"') : [];
  const base = await baseFiles(o.manifest, pr.base.sha);
  // A required check may run where there are no manifests yet: there it has nothing to say.
  if (head.length + base.length === 0) {
    core.info(`no plan comment: ${o.manifest} holds no manifest, here or at the base commit`);
    return undefined;
  }
  const fork = pr.head.repo?.full_name !== pr.base.repo.full_name;
  if (fork)
    core.notice(
      "a pull request from a fork gets a read-only token: the plan's difference is in the job summary only, not a comment",
    );
  const headFiles = new Set(head.map((f) => normalize(f)));
  const deleted = base.filter((f) => !headFiles.has(f));
  let comments: PullRequestComments | undefined;
  for (const file of [...head, ...deleted]) {
    const compared = await comparison(file, pr.base.sha, headFiles.has(normalize(file)));
    if (compared === undefined) continue;
    const diff = diffPlans(compared.base, compared.head);
    const body = renderPlanComment(diff, { file, ...(compared.missing ? { missing: compared.missing } : {}) });
    await writeSummary(body);
    if (fork) continue;
    comments ??= o.comments(pr.number);
    const found = await comments.find(commentMarker(diff.campaign));
    if (found) {
      if (found.body !== body) await comments.update(found.id, body);
      core.info(`${diff.campaign}: the plan comment is updated`);
    } else if (!unchangedPlan(diff)) {
      await comments.create(body);
      core.info(`${diff.campaign}: the plan comment is written`);
    } else core.info(`${diff.campaign}: the plan is unchanged; no comment`);
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

/** The two plans of one manifest; undefined where there is nothing to compare (said in the log). */
async function comparison(
  file: string,
  sha: string,
  inHead: boolean,
): Promise<{ base?: Plan; head: Plan; missing?: CommentOptions['missing'] } | undefined> {
  const before = await basePlan(file, sha);
  if (!inHead) {
    if (before.plan) return { base: before.plan, head: { ...before.plan, phases: [] }, missing: 'deleted' };
    core.info(`no plan comment for ${file}: deleted, and it did not load at the base commit either`);
    return undefined;
  }
  const result = lintText(file, await readManifest(file));
  if (!result.context || result.findings.some((f) => f.severity === 'error')) {
    core.warning(`no plan comment for ${file}: it does not load (the lint check says why)`);
    return undefined;
  }
  const head = result.context.plan;
  return before.plan ? { base: before.plan, head } : { head, missing: before.missing };
}

/** The manifests `path` names at the base commit (a file, or the `.yml` files of a directory), as paths from here. */
async function baseFiles(path: string, sha: string): Promise<string[]> {
  // ls-tree names paths from the directory it runs in; with a trailing slash, a directory's entries.
  const blobs = async (p: string): Promise<string[]> =>
    (await run('git', ['ls-tree', '-z', sha, '--', p])).stdout
      .split('\0')
      .map((entry) => /^\d+ blob \S+\t(.+)$/s.exec(entry)?.[1])
      .filter((f): f is string => f !== undefined);
  const inside = (await blobs(`${path.replace(/\/+$/, '')}/`)).filter((f) => /\.ya?ml$/.test(f));
  return (inside.length > 0 ? inside : await blobs(path)).map((f) => normalize(f));
}

/** The plan of `file` at the base commit, or why there is none. */
async function basePlan(file: string, sha: string): Promise<{ plan?: Plan; missing?: 'new' | 'base does not load' }> {
  // `./path` is relative to the directory git runs in (this one), wherever the repository's root is.
  const object = `${sha}:./${normalize(file)}`;
  const present = await run('git', ['cat-file', '-e', object]).then(
    () => true,
    () => false,
  );
  if (!present) return { missing: 'new' };
  const { stdout } = await run('git', ['show', object], { maxBuffer: 64 * 2 ** 20 });
  const result = lintText(file, stdout);
  try {
    if (result.context) return { plan: result.context.plan };
  } catch (e) {
    if (!(e instanceof UserError)) throw e;
  }
  return { missing: 'base does not load' };
}
