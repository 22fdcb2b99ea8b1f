/**
 * The little of GitHub's REST API the CLI reads, through fetch: a repository's default branch,
 * its artifacts, a workflow run, and an artifact's zip. Refusals say which token to give, for a
 * person at a terminal (the Action's adapters say which input).
 */
import { z } from 'zod';
import { UserError } from '../errors.js';
import { spentRateLimit } from './rate-limit.js';
import { artifactList, workflowRun, type WorkflowRun } from './state-artifacts.js';

export interface ReaderOptions {
  /** The API's root, e.g. https://api.github.com or https://HOST/api/v3. */
  apiUrl: string;
  token: string;
  owner: string;
  repo: string;
}

const repository = z.object({ default_branch: z.string() });

export class GitHubReader {
  private readonly root: string;

  constructor(private readonly o: ReaderOptions) {
    this.root = o.apiUrl.replace(/\/+$/, '');
  }

  get fullName(): string {
    return `${this.o.owner}/${this.o.repo}`;
  }

  async defaultBranch(): Promise<string> {
    return (await this.json(`/repos/${this.fullName}`, repository)).default_branch;
  }

  /** One page (100 a page) of the repository's artifacts, newest first. */
  artifacts(page: number): Promise<z.infer<typeof artifactList>> {
    return this.json(`/repos/${this.fullName}/actions/artifacts?per_page=100&page=${page}`, artifactList);
  }

  run(id: number): Promise<WorkflowRun> {
    return this.json(`/repos/${this.fullName}/actions/runs/${id}`, workflowRun);
  }

  /**
   * The artifact's zip, no longer than `maxBytes` (the size the listing gave). GitHub answers
   * with a redirect to a short-lived storage URL, which is followed without the token: it is
   * for GitHub only.
   */
  async artifactZip(id: number, maxBytes: number): Promise<Buffer> {
    const path = `/repos/${this.fullName}/actions/artifacts/${id}/zip`;
    const res = await this.get(path, 'manual');
    const location = res.headers.get('location');
    if (res.status < 300 || res.status >= 400 || location === null) {
      throw new Error(`GET ${path} answered ${res.status} where GitHub redirects to the download`);
    }
    const blob = await fetch(new URL(location, this.root + path));
    if (!blob.ok) throw new Error(`downloading artifact ${id} failed (${blob.status} from its storage)`);
    const tooLong = (): Error =>
      new Error(`artifact ${id}'s download is longer than the ${maxBytes} bytes its listing gives`);
    if (Number(blob.headers.get('content-length') ?? 0) > maxBytes) {
      await blob.body?.cancel();
      throw tooLong();
    }
    const parts: Buffer[] = [];
    let length = 0;
    for await (const chunk of blob.body ?? []) {
      length += (chunk as Uint8Array).length;
      if (length > maxBytes) throw tooLong();
      parts.push(Buffer.from(chunk as Uint8Array));
    }
    return Buffer.concat(parts);
  }

  private async json<T>(path: string, schema: z.ZodType<T>): Promise<T> {
    const res = await this.get(path, 'follow');
    const parsed = schema.safeParse(await res.json());
    if (!parsed.success)
      throw new Error(`GET ${path}: unexpected answer from GitHub: ${parsed.error.issues[0]?.message}`);
    return parsed.data;
  }

  private async get(path: string, redirect: RequestRedirect): Promise<Response> {
    let res: Response;
    try {
      res = await fetch(this.root + path, {
        redirect,
        headers: {
          accept: 'application/vnd.github+json',
          authorization: `Bearer ${this.o.token}`,
          'x-github-api-version': '2022-11-28',
          'user-agent': 'campaign-cli',
        },
      });
    } catch (e) {
      throw new UserError({
        message: `cannot reach GitHub's API at ${this.root}: ${((e as Error).cause as Error | undefined)?.message ?? (e as Error).message}`,
        fix: 'check the network, or for GitHub Enterprise Server set GITHUB_API_URL to its API (https://HOST/api/v3)',
      });
    }
    if (res.status < 400) return res;
    const text = await res.text();
    let said = text.slice(0, 200);
    try {
      said = z.object({ message: z.string() }).parse(JSON.parse(text)).message;
    } catch {
      // Not GitHub's JSON error: its first characters say enough.
    }
    const what = `GET ${path} was refused (${res.status}${said ? `: ${said}` : ''})`;
    const limit = spentRateLimit(res.status, said, (h) => res.headers.get(h) ?? undefined);
    if (limit)
      throw new UserError({
        message: `GitHub's API rate limit is spent: ${what}${limit.when}`,
        fix: limit.secondary ? 'wait a few minutes and run again' : 'run again after the reset',
      });
    if (res.status === 401)
      throw new UserError({
        message: what,
        fix: 'the token is invalid or expired: set GITHUB_TOKEN to a valid one, or log in again with `gh auth login`',
      });
    if (res.status === 403 || res.status === 404)
      throw new UserError({
        message: what,
        fix: `the token cannot read ${this.fullName}'s Actions: give one that can (a fine-grained token with \`actions: read\`, or a classic one with \`repo\`), or check --repo`,
      });
    throw new Error(what);
  }
}
