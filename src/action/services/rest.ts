/**
 * GitHub's REST API as the action reaches it: the run's environment read once and checked, and
 * one request helper, over Octokit, whose errors say which permission or setting is missing.
 * Octokit retries a call GitHub answered with a server error, and waits out a secondary rate
 * limit once; a spent primary limit is not waited for (its reset may be an hour away) but named.
 */
import { getOctokit } from '@actions/github';
import { retry } from '@octokit/plugin-retry';
import { throttling } from '@octokit/plugin-throttling';
import { z } from 'zod';
import { UserError } from '../../errors.js';
import { spentRateLimit } from '../../github/rate-limit.js';
import { workflowFilePath } from '../../github/state-artifacts.js';

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
  method: 'GET' | 'POST' | 'PATCH' | 'PUT';
  /** Path under the API root, e.g. `/repos/o/r/check-runs`. */
  path: string;
  body?: unknown;
  /** The permission the job needs for this call (`actions: read`), named in the error when it is refused. */
  permission: string;
  /** The fix for a refusal with this status that only this call can name (a 422 of a dispatch). */
  fixes?: Partial<Record<number, string>>;
}

export interface RestOptions {
  warn: (message: string) => void;
  /**
   * How long a second of the waits lasts, in ms: GitHub's retry-after and the backoff between
   * retries of a server error (1, 4, 9 units). 1000 but in tests.
   */
  waitUnitMs?: number;
}

/** How Octokit's RequestError carries GitHub's answer. */
const requestError = z.object({
  status: z.number(),
  response: z.object({ data: z.unknown(), headers: z.record(z.string(), z.unknown()) }).optional(),
});

export class GitHubRest {
  private readonly octokit: ReturnType<typeof getOctokit>;

  constructor(ctx: RunContext, token: string, o: RestOptions) {
    const unit = o.waitUnitMs ?? 1000;
    this.octokit = getOctokit(
      token,
      {
        // Given, not taken from the environment @actions/github read when it was first imported.
        baseUrl: ctx.apiUrl,
        userAgent: 'campaign-action',
        retry: { retryAfterBaseValue: unit },
        throttle: {
          retryAfterBaseValue: unit,
          onSecondaryRateLimit: (after: number, options: { method: string; url: string }, _: unknown, n: number) => {
            if (n > 0) return false;
            o.warn(`GitHub's secondary rate limit: waiting ${after} s before ${options.method} ${options.url} again`);
            return true;
          },
          onRateLimit: () => false,
        },
      },
      retry,
      throttling,
    );
  }

  /** Sends the call and parses the answer with `schema`; refusals become errors with the fix. */
  async call<T>(call: RestCall, schema: z.ZodType<T>): Promise<T> {
    let data: unknown;
    try {
      ({ data } = await this.octokit.request({
        method: call.method,
        url: call.path,
        headers: { 'x-github-api-version': '2022-11-28' },
        ...(call.body === undefined ? {} : { data: call.body }),
      }));
    } catch (e) {
      throw refusalOf(call, e);
    }
    const parsed = schema.safeParse(data === undefined || data === '' ? {} : data);
    if (!parsed.success) {
      throw new Error(`${call.method} ${call.path}: unexpected answer from GitHub: ${parsed.error.issues[0]?.message}`);
    }
    return parsed.data;
  }

  /**
   * The login the token acts as: `github-actions[bot]` for a job's own token, `<app>[bot]` for
   * an app's installation token, a person's login for theirs. From GraphQL's `viewer`, which
   * every token may ask; REST's `GET /user` refuses an app's token.
   */
  async viewerLogin(): Promise<string> {
    const call: RestCall = { method: 'POST', path: '/graphql', permission: 'pull-requests: read' };
    let answer: unknown;
    try {
      answer = await this.octokit.graphql('query { viewer { login } }');
    } catch (e) {
      throw refusalOf(call, e);
    }
    const parsed = z.object({ viewer: z.object({ login: z.string().min(1) }) }).safeParse(answer);
    if (!parsed.success) throw new Error(`${call.path}: GitHub did not say whom the token acts as`);
    return parsed.data.viewer.login;
  }
}

/** An error of octokit's: GitHub's refusal, with the fix, where it is one; else the error as it was. */
function refusalOf(call: RestCall, e: unknown): unknown {
  const refused = requestError.safeParse(e);
  if (!refused.success) return e;
  const { status, response } = refused.data;
  return refusal(call, status, response?.data, (h) => {
    const v = response?.headers[h];
    return v === undefined ? undefined : String(v);
  });
}

function refusal(call: RestCall, status: number, data: unknown, header: (name: string) => string | undefined): Error {
  const message = z.object({ message: z.string() }).safeParse(data);
  const said = message.success ? message.data.message : typeof data === 'string' ? data.slice(0, 200) : '';
  const what = `${call.method} ${call.path} was refused (${status}${said ? `: ${said}` : ''})`;
  // GitHub answers 403 or 429 when a rate limit is spent: that is no missing permission.
  const limit = spentRateLimit(status, said, header);
  if (limit?.secondary)
    return new UserError({
      message: `GitHub's secondary rate limit stopped this again after a wait: ${what}`,
      fix: 'run again in a few minutes',
    });
  if (limit)
    return new UserError({
      message: `GitHub's API rate limit is spent: ${what}${limit.when}`,
      fix: 'run again after the reset, or give the `token` input a token with a limit of its own',
    });
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
      fix: `the token lacks ${call.permission}; add \`${call.permission}\` under the job's \`permissions:\` (a token given as the \`token\` input needs it granted)`,
    });
  return new Error(what);
}
