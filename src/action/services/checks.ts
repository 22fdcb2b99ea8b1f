/**
 * The smoke gate as a check run with a stable name that branch protection can require. Only a
 * `success` report completes it as success; `pending` is an in-progress check, which a required
 * check never counts as passed. Each publication is a new check run: GitHub shows the newest of
 * a name on the commit.
 */
import { z } from 'zod';
import type { GitHubRest, RunContext } from './rest.js';
import type { GateChecks, GateReport } from './index.js';

/** GitHub refuses a check run whose output text or summary is longer. */
const OUTPUT_LIMIT = 65_535;

const created = z.object({ id: z.number(), name: z.string() });

export class CheckRunGate implements GateChecks {
  constructor(
    private readonly ctx: RunContext,
    private readonly rest: GitHubRest,
  ) {}

  async publish(r: GateReport): Promise<void> {
    const { owner, repo, sha } = this.ctx;
    const status =
      r.conclusion === 'pending' ? { status: 'in_progress' } : { status: 'completed', conclusion: r.conclusion };
    await this.rest.call(
      {
        method: 'POST',
        path: `/repos/${owner}/${repo}/check-runs`,
        body: {
          name: gateCheckName(r.campaign, r.phase),
          head_sha: sha,
          ...status,
          output: { title: r.title, summary: clip(r.title), text: clip(r.text) },
        },
        permission: 'checks: write',
      },
      created,
    );
  }
}

/** The stable name branch protection can require. */
export function gateCheckName(campaign: string, phase: string): string {
  return `campaign/${campaign}/${phase}/smoke-gate`;
}

function clip(s: string): string {
  const note = '\n\n… (cut at GitHub’s limit; the job summary has the rest)';
  return s.length <= OUTPUT_LIMIT ? s : s.slice(0, OUTPUT_LIMIT - note.length) + note;
}
