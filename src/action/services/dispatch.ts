/**
 * Handing a long campaign over to a fresh run of its workflow before this job's time runs out,
 * and switching its scheduled resume on and off.
 */
import { z } from 'zod';
import { UserError } from '../../errors.js';
import type { GitHubRest, RunContext } from './rest.js';
import type { Handover, ResumeSchedule } from './index.js';

export class WorkflowDispatch implements Handover {
  constructor(
    private readonly ctx: RunContext,
    private readonly rest: GitHubRest,
  ) {}

  async dispatchAgain(inputs: Record<string, string>, other?: string): Promise<void> {
    const { owner, repo, ref } = this.ctx;
    const workflow = other ?? this.ctx.workflow;
    if (!workflow || !ref) {
      throw new UserError({
        message: 'cannot tell which workflow and ref to dispatch again: GITHUB_WORKFLOW_REF or GITHUB_REF is not set',
        fix: 'hand over from a job of a workflow run, or leave resuming to a `schedule:` trigger',
      });
    }
    await this.rest.call(
      {
        method: 'POST',
        path: `/repos/${owner}/${repo}/actions/workflows/${encodeURIComponent(workflow)}/dispatches`,
        body: { ref, inputs },
        permission: 'actions: write',
        fixes: {
          422: `add \`workflow_dispatch:\` to the \`on:\` of ${workflow} (\`campaign workflow\` writes it), or give the action \`handover: none\` and resume the campaign from a \`schedule:\``,
        },
      },
      z.unknown(),
    );
  }
}

export class WorkflowSwitch implements ResumeSchedule {
  constructor(
    private readonly ctx: RunContext,
    private readonly rest: GitHubRest,
  ) {}

  async set(workflow: string, enabled: boolean): Promise<void> {
    const { owner, repo } = this.ctx;
    await this.rest.call(
      {
        method: 'PUT',
        path: `/repos/${owner}/${repo}/actions/workflows/${encodeURIComponent(workflow)}/${enabled ? 'enable' : 'disable'}`,
        permission: 'actions: write',
        fixes: {
          404: `commit ${workflow} beside the campaign's workflow (\`campaign workflow\` writes both)`,
        },
      },
      z.unknown(),
    );
  }
}
