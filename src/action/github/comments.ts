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
  /** The first comment of the pull request that a bot wrote with `marker` as its first line. */
  find(marker: string): Promise<PullRequestComment | undefined>;
  create(body: string): Promise<PullRequestComment>;
  update(id: number, body: string): Promise<void>;
}

const comment = z.object({
  id: z.number(),
  body: z.string().nullish(),
  user: z.object({ type: z.string() }).nullish(),
});

const PER_PAGE = 100;
const PERMISSION = 'pull-requests: write';

export class IssueComments implements PullRequestComments {
  constructor(
    private readonly ctx: RunContext,
    private readonly rest: GitHubRest,
    private readonly pullRequest: number,
  ) {}

  private get repoPath(): string {
    return `/repos/${this.ctx.owner}/${this.ctx.repo}`;
  }

  async find(marker: string): Promise<PullRequestComment | undefined> {
    for (let page = 1; ; page++) {
      const list = await this.rest.call(
        {
          method: 'GET',
          path: `${this.repoPath}/issues/${this.pullRequest}/comments?per_page=${PER_PAGE}&page=${page}`,
          permission: 'pull-requests: read',
        },
        z.array(comment),
      );
      // A bot's only: a person who pastes the marker into a comment does not capture it.
      const hit = list.find((c) => c.user?.type === 'Bot' && c.body?.split('\n', 1)[0] === marker);
      if (hit) return { id: hit.id, body: hit.body ?? '' };
      if (list.length < PER_PAGE) return undefined;
    }
  }

  async create(body: string): Promise<PullRequestComment> {
    const c = await this.rest.call(
      {
        method: 'POST',
        path: `${this.repoPath}/issues/${this.pullRequest}/comments`,
        body: { body },
        permission: PERMISSION,
      },
      comment,
    );
    return { id: c.id, body: c.body ?? '' };
  }

  async update(id: number, body: string): Promise<void> {
    await this.rest.call(
      { method: 'PATCH', path: `${this.repoPath}/issues/comments/${id}`, body: { body }, permission: PERMISSION },
      comment,
    );
  }
}
