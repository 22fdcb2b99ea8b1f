/**
 * examples/workflows/campaign-lint.yml as the required check branch protection waits for, run
 * through the lint action's bundle on pull requests (GitHub's services: a local stand-in): one
 * touching only README.md gets a passing `campaign lint` check, where the old example's `paths`
 * filter gave it none (a required check that never reports keeps the pull request pending
 * forever); a repository with no campaigns/ passes with nothing to lint. Its plan job (the plan
 * as a pull-request comment, test/action/plan-comment.test.ts) is a job of its own, with the
 * only write permission and the history the comparison needs.
 */
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { stringify, parse } from 'yaml';
import { REPO } from '../helpers/cli.js';
import { GitHubStandin } from '../helpers/github-standin.js';
import { ran, WorkflowRunner } from '../helpers/workflow-runner.js';

const EXAMPLE = 'examples/workflows/campaign-lint.yml';
const LINT_ACTION = 'campaign-tools/campaign/lint@v0';

let gh: GitHubStandin;
let root: string;
let example: string;
let distill: string;
let plan: {
  permissions: Record<string, string>;
  concurrency: Record<string, unknown>;
  steps: { uses: string; with?: Record<string, unknown> }[];
};

beforeAll(async () => {
  gh = await GitHubStandin.start();
  root = await mkdtemp(join(tmpdir(), 'campaign-workflow-lint-check-'));
  const text = await readFile(join(REPO, EXAMPLE), 'utf8');
  expect(text).toContain(`uses: ${LINT_ACTION}`);
  // The runner runs this repository's actions: the lint step as a workflow in it would name it.
  // Without the plan job: the runner does not make the git history or event payload it reads.
  const w = parse(text.replace(`uses: ${LINT_ACTION}`, 'uses: ./lint')) as { jobs: Record<string, unknown> };
  plan = w.jobs.plan as typeof plan;
  delete w.jobs.plan;
  example = stringify(w);
  distill = await readFile(join(REPO, 'examples/distill.yml'), 'utf8');
});
afterAll(async () => {
  await gh?.close();
  if (root) await rm(root, { recursive: true, force: true });
});

/** The example with its `pull_request` trigger as the example had it before: only manifests and generated workflows. */
function withOldFilter(workflow: string): string {
  const w = parse(workflow) as { on: unknown };
  w.on = { pull_request: { paths: ['campaigns/**', '.github/workflows/campaign-*.yml'] } };
  return stringify(w);
}

function runner(name: string, workflow: string, checkout: Record<string, string>): WorkflowRunner {
  return new WorkflowRunner({ gh, root: join(root, name), workflow, checkout, secrets: {} });
}

const repository = () => ({ 'README.md': '# experiments\n', 'campaigns/distill.yml': distill });

describe("the campaign lint workflow as a required check on pull requests (GitHub's services: a local stand-in)", () => {
  it('a pull request touching only README.md gets a passing campaign lint check; the old paths filter gave it none', async () => {
    const checks = await runner('readme', example, repository()).pullRequest(['README.md']);
    expect(checks).toEqual([{ name: 'campaign lint', conclusion: 'success' }]);

    const old = runner('readme-old', withOldFilter(example), repository());
    expect(await old.pullRequest(['README.md'])).toEqual([]);
    // The filter is evaluated, not ignored: a pull request changing a manifest ran the old one.
    expect(await old.pullRequest(['README.md', 'campaigns/distill.yml'])).toEqual([
      { name: 'campaign lint', conclusion: 'success' },
    ]);
  });

  it('the plan job alone may write, to pull requests, and checks out the history with the base commit', async () => {
    const w = parse(await readFile(join(REPO, EXAMPLE), 'utf8')) as {
      permissions: Record<string, string>;
      jobs: Record<string, { permissions?: Record<string, string> }>;
    };
    expect(w.permissions).toEqual({ contents: 'read' });
    expect(Object.keys(w.jobs)).toEqual(['lint', 'plan']);
    expect(w.jobs.lint!.permissions).toBeUndefined();
    expect(plan.permissions).toEqual({ contents: 'read', 'pull-requests': 'write' });
    // Two runs at once could both find no comment and both write one.
    expect(plan.concurrency).toEqual({
      group: 'campaign-plan-${{ github.event.pull_request.number }}',
      'cancel-in-progress': true,
    });
    expect(plan.steps.map((s) => [s.uses, s.with])).toEqual([
      ['actions/checkout@08c6903cd8c0fde910a37f88322edcfb5dd907a8', { 'fetch-depth': 0, 'persist-credentials': false }],
      ['campaign-tools/campaign@v0', { command: 'plan-comment', manifest: 'campaigns' }],
    ]);
  });

  it('a manifest with an error fails the check', async () => {
    const broken = {
      ...repository(),
      'campaigns/distill.yml': distill.replace('depends_on: [', 'depends_on: [nowhere, '),
    };
    expect(broken['campaigns/distill.yml']).not.toBe(distill);
    const checks = await runner('broken', example, broken).pullRequest(['campaigns/distill.yml']);
    expect(checks).toEqual([{ name: 'campaign lint', conclusion: 'failure' }]);
  });

  it('a repository without campaigns/ passes, saying there was nothing to lint', async () => {
    const r = runner('empty', example, { 'README.md': '# not yet\n' });
    const { jobs } = await r.runWorkflow({ name: 'pull_request', inputs: {}, changed: ['README.md'] });
    const lint = ran(jobs, 'lint');
    expect(lint.code, lint.log).toBe(0);
    expect(lint.log).toContain('nothing to lint: campaigns does not exist');
    expect(lint.summary).toContain('Nothing to lint: campaigns does not exist.');
  });
});
