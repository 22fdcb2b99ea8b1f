/** Handing a long campaign over to a fresh run of the same workflow before this job's time runs out. */
import { z } from 'zod';
import { UserError } from '../../errors.js';
import type { GitHubRest, RunContext } from './rest.js';
import type { Handover } from './services.js';

export class WorkflowDispatch implements Handover {
  constructor(
    private readonly ctx: RunContext,
    private readonly rest: GitHubRest,
  ) {}

  async dispatchAgain(inputs: Record<string, string>): Promise<void> {
    const { owner, repo, workflow, ref } = this.ctx;
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
