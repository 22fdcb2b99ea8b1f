/**
 * A local-executor campaign under its generated workflow finishes only where each job finds the
 * outputs of the one before it: on a self-hosted runner, in a workdir outside the checkout.
 * `campaign workflow` refuses anything else, and lint says the same of a generated workflow
 * committed before it did (rule local-outputs-lost).
 */
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { lintManifests } from '../../src/app/lint-files.js';
import { UserError } from '../../src/errors.js';
import { formatFinding, lintText } from '../../src/lint/lint.js';
import { WORKFLOW_RULES } from '../../src/lint/rules/index.js';
import { renderWorkflow, renderWorkflows, type WorkflowOptions } from '../../src/workflow/render.js';
import { REPO, makeTemp } from '../helpers/cli.js';

function local(workdir: string): string {
  return `campaign: here
cluster:
  executor: local
  name: this-machine
workdir: ${workdir}
phases:
  - name: train
    grid: { seed: [1, 2] }
    command: echo \${seed} > \${output}
    output: out/\${seed}.txt
    walltime: 5m
`;
}

const planOf = (text: string) => lintText('campaigns/here.yml', text).context!.plan;
const options = (runsOn: string): WorkflowOptions => ({
  manifest: 'campaigns/here.yml',
  uses: 'o/c@v1',
  branch: 'main',
  budget: '5h',
  runsOn,
});

/** What renderWorkflow threw, as a UserError. */
function refusal(text: string, runsOn: string): UserError {
  try {
    renderWorkflow(planOf(text), options(runsOn));
  } catch (e) {
    if (e instanceof UserError) return e;
    throw e;
  }
  throw new Error(`renderWorkflow wrote a workflow for runs-on ${runsOn}`);
}

describe('campaign workflow for a local-executor manifest', () => {
  it.each(['ubuntu-latest', 'ubuntu-24.04', 'windows-latest', 'macos-15', 'Ubuntu-22.04'])(
    'refuses the GitHub-hosted runner %s, with the reason and the fix',
    (runsOn) => {
      const e = refusal(local('/srv/campaigns/here'), runsOn);
      expect(e.message).toContain(`on a GitHub-hosted runner (runs-on ${runsOn}) every job is a fresh machine`);
      expect(e.message).toContain('the campaign can never finish');
      expect(e.problems[0]!.fix).toMatch(
        /self-hosted runner .* absolute workdir .*, or use the slurm or ssh-gpu executor/,
      );
    },
  );

  it.each(['runs', '../.campaign-demo', './work'])('refuses the workdir %s on a self-hosted runner', (workdir) => {
    const e = refusal(local(workdir), 'self-hosted');
    expect(e.message).toContain(`workdir "${workdir}" is relative to the manifest's place in the checkout`);
    expect(e.problems[0]!.fix).toMatch(/absolute workdir outside the checkout/);
  });

  it.each([
    ['/srv/campaigns/here', 'self-hosted'],
    ['~/campaigns/here', 'gpu-box'],
  ])('writes one for the workdir %s on the self-hosted runner %s', (workdir, runsOn) => {
    expect(renderWorkflow(planOf(local(workdir)), options(runsOn))).toContain(`runs-on: ${runsOn}`);
  });

  it('leaves the other executors to any runner', async () => {
    const distill = await readFile(join(REPO, 'examples/distill.yml'), 'utf8');
    const plan = lintText('examples/distill.yml', distill).context!.plan;
    expect(renderWorkflow(plan, { ...options('ubuntu-latest'), manifest: 'examples/distill.yml' })).toContain(
      'runs-on: ubuntu-latest',
    );
  });
});

describe('lint of a local-executor manifest with its committed workflow (local-outputs-lost)', () => {
  it('is a workflow rule with a description', () => {
    const rule = WORKFLOW_RULES.find((r) => r.id === 'local-outputs-lost');
    expect(rule).toMatchObject({ severity: 'error', description: expect.stringMatching(/GitHub-hosted runner/) });
  });

  /** A repository holding the manifest and, committed beside it, its workflows written for runs-on self-hosted. */
  async function repo(text: string, workflow: (written: string) => string = (w) => w): Promise<string> {
    const dir = await makeTemp('local-outputs-lost');
    await mkdir(join(dir, '.git'));
    await mkdir(join(dir, 'campaigns'));
    await writeFile(join(dir, 'campaigns/here.yml'), text);
    await mkdir(join(dir, '.github/workflows'), { recursive: true });
    for (const written of renderWorkflows(planOf(local('/srv/campaigns/here')), options('self-hosted')))
      await writeFile(join(dir, written.path), workflow(written.text));
    return dir;
  }
  // The manifest's fixed walltime is a warning, beside the point here.
  const errors = async (manifest: string) =>
    (await lintManifests([manifest], true)).filter((f) => f.severity === 'error');
  const lineOf = (text: string, start: string) => text.split('\n').findIndex((l) => l.startsWith(start)) + 1;

  it('fails a workflow written for a GitHub-hosted runner, at cluster.executor', async () => {
    const text = local('/srv/campaigns/here');
    // As `campaign workflow` wrote it before it refused: runs-on in the jobs and in the options kept.
    const dir = await repo(text, (w) => w.replaceAll('self-hosted', 'ubuntu-latest'));
    const findings = await errors(join(dir, 'campaigns/here.yml'));
    expect(findings.map(formatFinding)).toEqual([
      expect.stringMatching(
        new RegExp(
          `^${join(dir, 'campaigns/here.yml')}:${lineOf(text, '  executor:')}:13: error local-outputs-lost: the local executor keeps outputs on the runner, and on a GitHub-hosted runner \\(runs-on ubuntu-latest\\)`,
        ),
      ),
    ]);
    expect(findings[0]!.fix).toMatch(/self-hosted runner/);
  });

  it('fails a manifest whose workdir is relative, at the workdir, and passes once it is absolute', async () => {
    const relative = local('runs');
    const dir = await repo(relative);
    const manifest = join(dir, 'campaigns/here.yml');
    const [finding, ...rest] = await errors(manifest);
    expect(rest).toEqual([]);
    expect(finding).toMatchObject({
      rule: 'local-outputs-lost',
      severity: 'error',
      position: { line: lineOf(relative, 'workdir:'), column: 10 },
    });
    expect(finding!.message).toContain('workdir "runs" is relative');

    await writeFile(manifest, local('/srv/campaigns/here'));
    expect(await errors(manifest)).toEqual([]);
  });
});
