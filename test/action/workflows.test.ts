/**
 * Every action.yml, generated workflow, example, reusable and CI workflow passes GitHub's own
 * parser; `campaign workflow` gives one job per phase stage with `needs:` edges following
 * `depends_on`; `campaign lint` fails on a stale committed workflow and passes once it is
 * written again.
 */
import { NoOperationTraceWriter, convertWorkflowTemplate, parseWorkflow } from '@actions/workflow-parser';
import { parseAction } from '@actions/workflow-parser/actions/index';
import { mkdir, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { parse, parseAllDocuments } from 'yaml';
import { lintText } from '../../src/lint/lint.js';
import {
  readOptions,
  renderWorkflow,
  renderWorkflows,
  resumeWorkflowPath,
  workflowPath,
} from '../../src/workflow/render.js';
import { REPO, ensureBuilt, makeTemp, runCli } from '../helpers/cli.js';

const trace = new NoOperationTraceWriter();

async function workflowErrors(name: string, content: string): Promise<string[]> {
  const parsed = parseWorkflow({ name, content }, trace);
  const errors = parsed.context.errors.getErrors().map((e) => e.message);
  if (errors.length > 0 || !parsed.value) return errors;
  // The conversion checks what parsing does not: job ids in `needs`, cycles, job outputs.
  const template = await convertWorkflowTemplate(parsed.context, parsed.value);
  return (template.errors ?? []).map((e) => e.Message);
}

function planOf(file: string, text: string) {
  const r = lintText(file, text);
  if (!r.context) throw new Error(`${file} does not lint clean`);
  return r.context.plan;
}

const ACTIONS = ['action.yml', 'lint/action.yml'];

describe('GitHub’s parser accepts', () => {
  test.each(ACTIONS)('%s, with node24 and a description on every input and output', async (file) => {
    const content = await readFile(join(REPO, file), 'utf8');
    const parsed = parseAction({ name: file, content }, trace);
    expect(parsed.context.errors.getErrors().map((e) => e.message)).toEqual([]);
    const action = parse(content) as {
      runs: { using: string; main: string };
      inputs: Record<string, { description?: string }>;
      outputs: Record<string, { description?: string }>;
    };
    expect(action.runs.using).toBe('node24');
    for (const [name, input] of [...Object.entries(action.inputs), ...Object.entries(action.outputs)]) {
      expect(input.description, name).toMatch(/\w{3}/);
    }
    // The bundle it runs is committed next to it.
    await expect(readFile(join(REPO, file, '..', action.runs.main))).resolves.toBeDefined();
  });

  test('the workflows in .github/workflows and examples/workflows', async () => {
    const files = [];
    for (const dir of ['.github/workflows', 'examples/workflows']) {
      for (const name of await readdir(join(REPO, dir))) if (/\.ya?ml$/.test(name)) files.push(join(dir, name));
    }
    expect(files).toEqual(
      expect.arrayContaining([
        '.github/workflows/ci.yml',
        '.github/workflows/campaign.yml',
        'examples/workflows/campaign-lint.yml',
        'examples/workflows/campaign-distill-sweep.yml',
        'examples/workflows/campaign-distill-sweep-resume.yml',
      ]),
    );
    for (const file of files) {
      expect(await workflowErrors(file, await readFile(join(REPO, file), 'utf8')), file).toEqual([]);
    }
  });

  // Not examples/quickstart.yml: a local-executor campaign cannot finish on a GitHub-hosted
  // runner, and campaign workflow refuses it (test/lint/local-outputs-lost.test.ts).
  test.each(['examples/distill.yml', 'examples/gpu-box.yml'])(
    'the workflow generated for %s, with and without a release environment',
    async (file) => {
      const plan = planOf(file, await readFile(join(REPO, file), 'utf8'));
      for (const environment of [undefined, 'campaign-release']) {
        const written = renderWorkflows(plan, {
          manifest: file,
          uses: 'owner/campaign@v1',
          branch: 'main',
          budget: '5h',
          runsOn: 'ubuntu-latest',
          ...(environment ? { environment } : {}),
        });
        for (const { path, text } of written) expect(await workflowErrors(path, text)).toEqual([]);
      }
    },
  );
});

test('the example generated workflows are what campaign workflow writes for examples/distill.yml', async () => {
  const committed = await readFile(join(REPO, 'examples/workflows/campaign-distill-sweep.yml'), 'utf8');
  const options = readOptions(committed);
  expect(options?.manifest).toBe('campaigns/distill.yml');
  const plan = planOf('examples/distill.yml', await readFile(join(REPO, 'examples/distill.yml'), 'utf8'));
  const written = renderWorkflows(plan, options!);
  expect(written.map((w) => w.path)).toEqual([workflowPath('distill-sweep'), resumeWorkflowPath('distill-sweep')]);
  for (const { path, text } of written)
    expect(text).toBe(await readFile(join(REPO, 'examples/workflows', path.split('/').pop()!), 'utf8'));
});

/** examples/distill.yml's plan, and options for a workflow of it. */
const distillPlan = async () =>
  planOf('examples/distill.yml', await readFile(join(REPO, 'examples/distill.yml'), 'utf8'));
const base = {
  manifest: 'campaigns/distill.yml',
  uses: 'o/c@v1',
  branch: 'main',
  budget: '5h',
  runsOn: 'ubuntu-latest',
};

interface Job {
  needs?: string[];
  if?: string;
  environment?: string;
  permissions: Record<string, string>;
  steps: { uses: string; with?: Record<string, string>; run?: string }[];
}

describe('campaign workflow', () => {
  test('examples/distill.yml: one job per phase stage, needs following depends_on, a gate that always runs', async () => {
    await ensureBuilt();
    const r = await runCli(['workflow', 'examples/distill.yml', '--stdout', '--environment', 'approve']);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    // Both workflows, one YAML document each, the path of each in a comment above it.
    const docs = r.stdout.split(/^---\n/m);
    expect(docs.map((d) => d.split('\n')[0])).toEqual([
      `# ${workflowPath('distill-sweep')}`,
      `# ${resumeWorkflowPath('distill-sweep')}`,
    ]);
    expect(parseAllDocuments(r.stdout)).toHaveLength(2);
    type Workflow = { jobs: Record<string, Job>; concurrency: Record<string, unknown>; on: unknown };
    const [wf, resume] = docs.map((d) => parse(d) as Workflow) as [Workflow, Workflow];
    const jobs = wf.jobs;
    expect(Object.keys(jobs)).toEqual([
      'lint',
      'train_teachers-smoke',
      'train_teachers-gate',
      'train_teachers-full',
      'distill_students-smoke',
      'distill_students-gate',
      'distill_students-full',
      'summary',
    ]);
    expect(jobs['train_teachers-smoke']!.needs).toEqual(['lint']);
    expect(jobs['train_teachers-gate']!.needs).toEqual(['train_teachers-smoke']);
    expect(jobs['train_teachers-full']!.needs).toEqual(['train_teachers-gate']);
    // distill_students depends_on train_teachers: its first job waits for the teachers' full
    // arrays, and not when their job parked (the resume reaches the students later).
    expect(jobs['distill_students-smoke']!.needs).toEqual(['train_teachers-full']);
    expect(jobs['distill_students-smoke']!.if).toBe("needs.train_teachers-full.outputs.parked != 'true'");
    // A skipped required job reads as a success: the gate runs whatever the smoke job did (but
    // not in a cancelled run, nor after a handover), and release waits on its output.
    expect(jobs['train_teachers-gate']!.if).toBe(
      "!cancelled() && needs.train_teachers-smoke.outputs.handed-over != 'true' && needs.train_teachers-smoke.outputs.parked != 'true'",
    );
    expect(jobs.summary!.if).toBe('!cancelled()');
    // Each job that advances names the scheduled resume: it switches it on when it parks, and
    // trusts its runs' state; the gate and summary trust them too.
    for (const id of ['train_teachers-smoke', 'train_teachers-gate', 'train_teachers-full', 'summary'])
      expect(jobs[id]!.steps[1]!.with, id).toMatchObject({ 'resume-workflow': 'campaign-distill-sweep-resume.yml' });
    // The scheduled resume is a workflow of its own, one job, run by the schedule or by hand, never at once with the campaign's.
    expect(Object.keys(resume.jobs)).toEqual(['resume']);
    expect(resume.on).toEqual({ schedule: [{ cron: '*/15 * * * *' }], workflow_dispatch: {} });
    expect(resume.concurrency).toEqual(wf.concurrency);
    expect(resume.jobs.resume!.steps[1]!.with).toMatchObject({
      command: 'advance',
      resume: 'true',
      park: '5m',
      'resume-workflow': 'campaign-distill-sweep-resume.yml',
      'campaign-workflow': 'campaign-distill-sweep.yml',
    });
    // It may switch itself off and start the campaign's workflow: actions: write.
    expect(resume.jobs.resume!.permissions).toEqual({ contents: 'read', actions: 'write', checks: 'write' });
    expect(jobs['train_teachers-full']!.if).toBe("needs.train_teachers-gate.outputs.passed == 'true'");
    expect(jobs['train_teachers-full']!.environment).toBe('approve');
    expect(jobs['train_teachers-smoke']!.environment).toBeUndefined();
    expect(wf.concurrency).toEqual({ group: 'campaign-distill-sweep', 'cancel-in-progress': false });
    expect(wf.on).toEqual({
      push: { branches: ['main'], paths: ['examples/distill.yml'] },
      workflow_dispatch: expect.anything(),
    });
    // Least permissions: lint reads, only the gate-publishing jobs may write checks.
    expect(jobs.lint!.permissions).toEqual({ contents: 'read' });
    expect(jobs['train_teachers-full']!.permissions).not.toHaveProperty('checks');
    expect(jobs['train_teachers-gate']!.permissions).toEqual({ contents: 'read', actions: 'read', checks: 'write' });
    // No expression can reach a shell: no job has a run step; secrets only go to steps' inputs.
    for (const [id, job] of [...Object.entries(jobs), ...Object.entries(resume.jobs)]) {
      for (const s of job.steps) expect(s.run, id).toBeUndefined();
    }
    expect(jobs.lint!.steps[1]!.with).toEqual({ manifests: 'examples/distill.yml' });
    expect(jobs['train_teachers-gate']!.steps[1]!.with).not.toHaveProperty('ssh-key');
  });

  test('--handover none: no job may write to Actions, and advance is told not to dispatch', async () => {
    const plan = await distillPlan();
    const [none, noneResume] = renderWorkflows(plan, { ...base, handover: 'none' }).map((w) => w.text) as [
      string,
      string,
    ];
    expect(await workflowErrors('none.yml', none)).toEqual([]);
    expect(await workflowErrors('none-resume.yml', noneResume)).toEqual([]);
    const jobs = {
      ...(parse(none) as { jobs: Record<string, Job> }).jobs,
      ...(parse(noneResume) as { jobs: Record<string, Job> }).jobs,
    };
    expect(Object.keys(jobs)).toContain('resume');
    for (const [id, job] of Object.entries(jobs)) {
      expect(job.permissions.actions ?? 'none', id).not.toBe('write');
      const advance = job.steps.find((s) => s.with?.command === 'advance');
      if (advance) expect(advance.with!.handover, id).toBe('none');
    }
    expect(readOptions(none)).toMatchObject({ handover: 'none' });
    // The default keeps the handover, and writes the options as before it existed.
    const dispatch = renderWorkflow(plan, base);
    expect((parse(dispatch) as { jobs: Record<string, Job> }).jobs['train_teachers-smoke']!.permissions.actions).toBe(
      'write',
    );
    expect(dispatch).not.toContain('handover');
  });

  test.each([
    ['branch', { branch: 'main${{ secrets.CAMPAIGN_SSH_KEY }}' }, '--branch'],
    ['runs-on', { runsOn: '${{ github.event.pull_request.title }}' }, '--runs-on'],
    ['uses', { uses: 'o/c@${{ github.head_ref }}' }, '--uses'],
    ['environment', { environment: '${{ github.actor }}' }, '--environment'],
    ['manifest path', { manifest: 'campaigns/${{ github.head_ref }}.yml' }, 'the manifest path'],
  ])('refuses an expression in the %s it copies into the workflow', async (_, option, name) => {
    const plan = await distillPlan();
    expect(() => renderWorkflow(plan, { ...base, ...option })).toThrow(
      new RegExp(`^${name.replace(/[-]/g, '\\$&')} holds "\\$\\{\\{", which GitHub would evaluate`),
    );
  });

  test('lint fails on a stale committed workflow, at the campaign line, and passes once it is written again', async () => {
    await ensureBuilt();
    const repo = await makeTemp('workflow-repo');
    await mkdir(join(repo, '.git'));
    await mkdir(join(repo, 'campaigns'));
    const manifest = join(repo, 'campaigns', 'distill.yml');
    const original = await readFile(join(REPO, 'examples/distill.yml'), 'utf8');
    await writeFile(manifest, original);

    // No generated workflow: nothing to be stale.
    expect((await runCli(['lint', 'campaigns/distill.yml'], { cwd: repo })).code).toBe(0);
    const written = await runCli(['workflow', 'campaigns/distill.yml', '--budget', '3h'], { cwd: repo });
    expect(written.stdout).toBe(
      `wrote ${workflowPath('distill-sweep')}\nwrote ${resumeWorkflowPath('distill-sweep')}\n`,
    );
    const path = join(repo, workflowPath('distill-sweep'));
    expect(readOptions(await readFile(path, 'utf8'))).toMatchObject({
      manifest: 'campaigns/distill.yml',
      budget: '3h',
    });
    expect((await runCli(['lint', 'campaigns/distill.yml'], { cwd: repo })).code).toBe(0);

    // A third phase the workflow has no job for.
    const campaignLine = original.split('\n').findIndex((l) => l.startsWith('campaign:')) + 1;
    await writeFile(
      manifest,
      original +
        '\n  - name: report\n    depends_on: [distill_students]\n    command: python report.py --out ${output}\n' +
        '    output: report.txt\n    walltime: 10m\n    resources: { gpus: 0, cpus: 1 }\n',
    );
    const stale = await runCli(['lint', 'campaigns/distill.yml'], { cwd: repo });
    expect(stale.code).toBe(1);
    expect(stale.stdout).toContain(
      `campaigns/distill.yml:${campaignLine}:11: error workflow-stale: ${workflowPath('distill-sweep')} no longer matches this manifest`,
    );
    expect(stale.stdout).toContain('(fix: run campaign workflow campaigns/distill.yml)');

    // Written again, it keeps the options it was written with and lint passes.
    expect((await runCli(['workflow', 'campaigns/distill.yml'], { cwd: repo })).code).toBe(0);
    const again = await readFile(path, 'utf8');
    expect(readOptions(again)?.budget).toBe('3h');
    // A phase without a smoke stage is one job, after the phase it depends on.
    const report = (parse(again) as { jobs: Record<string, Job> }).jobs.report!;
    expect(report.needs).toEqual(['distill_students-full']);
    expect(await workflowErrors('again.yml', again)).toEqual([]);
    expect((await runCli(['lint', 'campaigns/distill.yml'], { cwd: repo })).code).toBe(0);

    // A hand edit is stale too, of either file; and so is a resume workflow gone.
    await writeFile(path, again.replace('timeout-minutes: 10', 'timeout-minutes: 11'));
    expect((await runCli(['lint', 'campaigns/distill.yml'], { cwd: repo })).stdout).toContain('workflow-stale');
    await writeFile(path, again);
    const resumePath = join(repo, resumeWorkflowPath('distill-sweep'));
    const resume = await readFile(resumePath, 'utf8');
    await writeFile(resumePath, resume.replace('*/15 * * * *', '*/5 * * * *'));
    expect((await runCli(['lint', 'campaigns/distill.yml'], { cwd: repo })).stdout).toContain(
      `${resumeWorkflowPath('distill-sweep')} no longer matches this manifest`,
    );
    await rm(resumePath);
    expect((await runCli(['lint', 'campaigns/distill.yml'], { cwd: repo })).stdout).toContain(
      `${resumeWorkflowPath('distill-sweep')}, the campaign's scheduled resume, is missing`,
    );
  });
});
