/**
 * What runs in a campaign's workflows is named by commit: a tag can be moved to other code, which
 * would then run in jobs that hold the cluster's key. The generated workflow pins every action
 * by its full commit SHA with the tag as a comment (campaign's own too, given so); the reusable
 * workflow runs the campaign action of the very commit it was called at.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { UserError } from '../../src/errors.js';
import { lintText } from '../../src/lint/lint.js';
import { readOptions, renderWorkflow } from '../../src/workflow/render.js';
import { REPO } from '../helpers/cli.js';

const SHA = /^[\w.-]+\/[\w.-]+(?:\/[\w./-]+)?@[0-9a-f]{40}$/;
const CAMPAIGN_SHA = 'c0ffee00c0ffee00c0ffee00c0ffee00c0ffee00';

/** Each `uses:` line of a workflow: the value and the comment after it. */
function usesLines(text: string): { value: string; comment?: string }[] {
  return [...text.matchAll(/^\s*(?:- )?uses: (\S+)(?: # (\S+))?$/gm)].map((m) => ({
    value: m[1]!,
    ...(m[2] ? { comment: m[2] } : {}),
  }));
}

async function distillPlan() {
  const r = lintText('examples/distill.yml', await readFile(join(REPO, 'examples/distill.yml'), 'utf8'));
  return r.context!.plan;
}

const options = {
  manifest: 'campaigns/distill.yml',
  branch: 'main',
  budget: '5h',
  runsOn: 'ubuntu-latest',
};

describe('the generated workflow names its actions by commit', () => {
  it('every action by its full commit SHA with its tag as a comment, campaign’s too when given so', async () => {
    const text = renderWorkflow(await distillPlan(), {
      ...options,
      uses: `campaign-tools/campaign@${CAMPAIGN_SHA} # v0`,
    });
    const lines = usesLines(text);
    expect(lines.length).toBeGreaterThan(10);
    for (const line of lines) {
      expect(line.value).toMatch(SHA);
      expect(line.comment, line.value).toMatch(/^v\d/);
    }
    expect(lines).toContainEqual({ value: `campaign-tools/campaign@${CAMPAIGN_SHA}`, comment: 'v0' });
    expect(lines).toContainEqual({ value: `campaign-tools/campaign/lint@${CAMPAIGN_SHA}`, comment: 'v0' });
    expect(lines).toContainEqual({
      value: 'actions/checkout@08c6903cd8c0fde910a37f88322edcfb5dd907a8',
      comment: 'v5.0.0',
    });
    // The comments are YAML's: the values GitHub reads are the commits alone, and the options kept say both.
    const steps = Object.values((parse(text) as { jobs: Record<string, { steps: { uses: string }[] }> }).jobs).flatMap(
      (j) => j.steps.map((s) => s.uses),
    );
    for (const uses of steps) expect(uses).toMatch(SHA);
    expect(readOptions(text)?.uses).toBe(`campaign-tools/campaign@${CAMPAIGN_SHA} # v0`);
  });

  it('an action named by tag keeps its tag; the checkout is pinned all the same', async () => {
    const lines = usesLines(renderWorkflow(await distillPlan(), { ...options, uses: 'o/c@v1' }));
    expect(lines.filter((l) => l.value.startsWith('actions/checkout@'))).not.toHaveLength(0);
    for (const l of lines.filter((x) => x.value.startsWith('actions/')))
      expect(l).toEqual({ value: 'actions/checkout@08c6903cd8c0fde910a37f88322edcfb5dd907a8', comment: 'v5.0.0' });
    expect(lines).toContainEqual({ value: 'o/c@v1' });
  });

  it('refuses a comment after anything but a full commit SHA, with the form it takes', async () => {
    const e = await distillPlan().then((plan) => {
      try {
        return renderWorkflow(plan, { ...options, uses: 'o/c@v1 # v1' });
      } catch (x) {
        return x;
      }
    });
    expect(e).toBeInstanceOf(UserError);
    expect((e as UserError).message).toContain('is neither OWNER/REPO@REF nor OWNER/REPO@<full commit SHA> # TAG');
  });
});

describe('the reusable workflow runs what the commit it was called at holds', () => {
  it('checks the campaign action out at job.workflow_sha and runs it from there; every other action by commit', async () => {
    const text = await readFile(join(REPO, '.github/workflows/campaign.yml'), 'utf8');
    for (const line of usesLines(text)) {
      if (line.value.startsWith('./')) continue;
      expect(line.value).toMatch(SHA);
      expect(line.comment, line.value).toMatch(/^v\d/);
    }
    const jobs = (
      parse(text) as { jobs: Record<string, { steps: { uses: string; with?: Record<string, unknown> }[] }> }
    ).jobs;
    for (const [id, job] of Object.entries(jobs)) {
      const own = job.steps.findIndex((s) => s.uses.startsWith('./.campaign-action'));
      expect(own, id).toBeGreaterThan(0);
      // Campaign's actions only from the checkout of this workflow's own repository and commit.
      expect(
        job.steps.some((s) => s.uses.startsWith('campaign-tools/')),
        id,
      ).toBe(false);
      const checkout = job.steps.find((s) => s.with?.path === '.campaign-action');
      expect(checkout?.with, id).toEqual({
        repository: '${{ job.workflow_repository }}',
        ref: '${{ job.workflow_sha }}',
        path: '.campaign-action',
        'persist-credentials': false,
      });
      expect(job.steps.indexOf(checkout!), id).toBeLessThan(own);
    }
  });
});
