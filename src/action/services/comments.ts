/**
 * A pull request's comments as the plan comment needs them: found by a marker line, created,
 * updated. Through the REST issues API (a pull request is an issue); the token needs
 * `pull-requests: write` to write.
 */
import { z } from 'zod';
import type { GitHubRest, RunContext } from './rest.js';

export interface PullRequestComment {
  id: number;
  body: string;
}

export interface PullRequestComments {
  /** The first comment of the pull request that this token's own identity wrote with `marker` as its first line. */
  find(marker: string): Promise<PullRequestComment | undefined>;
  create(body: string): Promise<PullRequestComment>;
  update(id: number, body: string): Promise<void>;
}

const comment = z.object({
  id: z.number(),
  body: z.string().nullish(),
  user: z.object({ login: z.string() }).nullish(),
});

const PER_PAGE = 100;
const PERMISSION = 'pull-requests: write';

export class IssueComments implements PullRequestComments {
  private login: Promise<string> | undefined;

  constructor(
    private readonly ctx: RunContext,
    private readonly rest: GitHubRest,
    private readonly pullRequest: number,
  ) {}

  private get repoPath(): string {
    return `/repos/${this.ctx.owner}/${this.ctx.repo}`;
  }

  async find(marker: string): Promise<PullRequestComment | undefined> {
    this.login ??= this.rest.viewerLogin();
    const mine = await this.login;
    for (let page = 1; ; page++) {
      const list = await this.rest.call(
        {
          method: 'GET',
          path: `${this.repoPath}/issues/${this.pullRequest}/comments?per_page=${PER_PAGE}&page=${page}`,
          permission: 'pull-requests: read',
        },
        z.array(comment),
      );
      // The token's own only: a token that may write pull requests may edit anyone's comment on
      // them, so a person, or another bot or app, who posts the marker would otherwise have
      // the plan written into their comment, under their name.
      const hit = list.find((existing) => existing.user?.login === mine && existing.body?.split('\n', 1)[0] === marker);
      if (hit) return { id: hit.id, body: hit.body ?? '' };
      if (list.length < PER_PAGE) return undefined;
    }
  }

  async create(body: string): Promise<PullRequestComment> {
    const existing = await this.rest.call(
      {
        method: 'POST',
        path: `${this.repoPath}/issues/${this.pullRequest}/comments`,
        body: { body },
        permission: PERMISSION,
      },
      comment,
    );
    return { id: existing.id, body: existing.body ?? '' };
  }

  async update(id: number, body: string): Promise<void> {
    await this.rest.call(
      { method: 'PATCH', path: `${this.repoPath}/issues/comments/${id}`, body: { body }, permission: PERMISSION },
      comment,
    );
  }
}
