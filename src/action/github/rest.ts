/**
 * GitHub's REST API as the action reaches it: the run's environment read once and checked, and
 * one request helper whose errors say which permission or setting is missing.
 */
import { HttpClient } from '@actions/http-client';
import type { IncomingHttpHeaders } from 'node:http';
import { z } from 'zod';
import { UserError } from '../../errors.js';

const envSchema = z.object({
  GITHUB_API_URL: z.string().url().default('https://api.github.com'),
  GITHUB_REPOSITORY: z.string().regex(/^[^/\s]+\/[^/\s]+$/, 'owner/name'),
  GITHUB_RUN_ID: z.string().regex(/^\d+$/, 'a number'),
  GITHUB_RUN_ATTEMPT: z.string().regex(/^\d+$/, 'a number').default('1'),
  GITHUB_SHA: z.string().regex(/^[0-9a-f]{40}$/, 'a commit id'),
  // owner/repo/.github/workflows/file.yml@ref: the workflow this run came from.
  GITHUB_WORKFLOW_REF: z.string().optional(),
  GITHUB_REF: z.string().optional(),
});

export interface RunContext {
  apiUrl: string;
  owner: string;
  repo: string;
  runId: number;
  runAttempt: number;
  sha: string;
  /** The workflow file's name (e.g. `campaign.yml`), when the runner named it. */
  workflow?: string;
  /** The workflow file's path in the repository (`.github/workflows/campaign.yml`), when the runner named it. */
  workflowPath?: string;
  /** The ref this run is on (e.g. `refs/heads/main`). */
  ref?: string;
}

/** The workflow file's path in a workflow ref or a run's `path` (`owner/repo/.github/workflows/x.yml@ref`, or bare). */
export function workflowFilePath(ref: string): string | undefined {
  return /(?:^|\/)(\.github\/workflows\/[^@/]+)(?:@|$)/.exec(ref)?.[1];
}

/** The run's coordinates from the variables the runner sets; throws naming the missing one. */
export function runContext(env: NodeJS.ProcessEnv): RunContext {
  const parsed = envSchema.safeParse(env);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw new UserError({
      message: `${String(issue.path[0])} is ${env[String(issue.path[0])] === undefined ? 'not set' : `not ${issue.message}`}`,
      fix: 'run this inside a GitHub Actions job, where the runner sets GITHUB_* variables',
    });
  }
  const e = parsed.data;
  const [owner, repo] = e.GITHUB_REPOSITORY.split('/') as [string, string];
  const workflowPath = e.GITHUB_WORKFLOW_REF === undefined ? undefined : workflowFilePath(e.GITHUB_WORKFLOW_REF);
  const workflow = workflowPath?.slice('.github/workflows/'.length);
  return {
    apiUrl: e.GITHUB_API_URL.replace(/\/+$/, ''),
    owner,
    repo,
    runId: Number(e.GITHUB_RUN_ID),
    runAttempt: Number(e.GITHUB_RUN_ATTEMPT),
    sha: e.GITHUB_SHA,
    ...(workflow ? { workflow, workflowPath } : {}),
    ...(e.GITHUB_REF ? { ref: e.GITHUB_REF } : {}),
  };
}

export interface RestCall {
  method: 'GET' | 'POST' | 'PATCH';
  /** Path under the API root, e.g. `/repos/o/r/check-runs`. */
  path: string;
  body?: unknown;
  /** The permission the job needs for this call (`actions: read`), named in the error when it is refused. */
  permission: string;
  /** The fix for a refusal with this status that only this call can name (a 422 of a dispatch). */
  fixes?: Partial<Record<number, string>>;
}

export class GitHubRest {
  private readonly http = new HttpClient('campaign-action');

  constructor(
    private readonly ctx: RunContext,
    private readonly token: string,
  ) {}

  /** Sends the call and parses the answer with `schema`; non-2xx statuses become errors with the fix. */
  async call<T>(call: RestCall, schema: z.ZodType<T>): Promise<T> {
    const url = `${this.ctx.apiUrl}${call.path}`;
    const res = await this.http.request(call.method, url, call.body === undefined ? null : JSON.stringify(call.body), {
      accept: 'application/vnd.github+json',
      authorization: `Bearer ${this.token}`,
      'x-github-api-version': '2022-11-28',
      ...(call.body === undefined ? {} : { 'content-type': 'application/json' }),
    });
    const status = res.message.statusCode ?? 0;
    const text = await res.readBody();
    if (status < 200 || status >= 300) throw refusal(call, status, text, res.message.headers);
    const parsed = schema.safeParse(text === '' ? {} : JSON.parse(text));
    if (!parsed.success) {
      throw new Error(`${call.method} ${call.path}: unexpected answer from GitHub: ${parsed.error.issues[0]?.message}`);
    }
    return parsed.data;
  }
}

function refusal(call: RestCall, status: number, body: string, headers: IncomingHttpHeaders): Error {
  let said: string;
  try {
    said = z.object({ message: z.string() }).parse(JSON.parse(body)).message;
  } catch {
    said = body.slice(0, 200);
  }
  const what = `${call.method} ${call.path} was refused (${status}${said ? `: ${said}` : ''})`;
  // GitHub answers 403 or 429 when a rate limit is spent: that is no missing permission.
  if ((status === 403 || status === 429) && (headers['x-ratelimit-remaining'] === '0' || /rate limit/i.test(said))) {
    const reset = Number(headers['x-ratelimit-reset']);
    const when = Number.isFinite(reset) && reset > 0 ? ` (it resets at ${new Date(reset * 1000).toISOString()})` : '';
    return new UserError({
      message: `GitHub's API rate limit is spent: ${what}${when}`,
      fix: 'run again after the reset, or give the `token` input a token with a limit of its own',
    });
  }
  const fix = call.fixes?.[status];
  if (fix !== undefined) return new UserError({ message: what, fix });
  if (status === 401)
    return new UserError({
      message: what,
      fix: "the token is invalid or expired: give the `token` input a valid one (by default it is the job's own token)",
    });
  if (status === 403 || status === 404)
    return new UserError({
      message: what,
      fix: `the token lacks ${call.permission}; add \`${call.permission}\` under the job's \`permissions:\``,
    });
  return new Error(what);
}
