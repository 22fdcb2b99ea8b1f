/**
 * examples/workflows/campaign-lint.yml as the required check branch protection waits for, run
 * through the lint action's bundle on pull requests (GitHub's services: a local stand-in): one
 * touching only README.md gets a passing `campaign lint` check, where the old example's `paths`
 * filter gave it none (a required check that never reports keeps the pull request pending
 * forever); a repository with no campaigns/ passes with nothing to lint.
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

beforeAll(async () => {
  gh = await GitHubStandin.start();
  root = await mkdtemp(join(tmpdir(), 'campaign-workflow-lint-check-'));
  const text = await readFile(join(REPO, EXAMPLE), 'utf8');
  expect(text).toContain(`uses: ${LINT_ACTION}`);
  // The runner runs this repository's actions: the lint step as a workflow in it would name it.
  example = text.replace(`uses: ${LINT_ACTION}`, 'uses: ./lint');
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
