/**
 * The workflow `campaign workflow` writes for examples/quickstart.yml, its jobs run in `needs`
 * order through the action's `run` (in-process, one job after another as a self-hosted runner
 * would, each with a fresh temp directory so the state travels only as artifacts), against the
 * local stand-in of GitHub's services: smoke → gate → full per phase, then the summary; and with
 * a failing checklist, the gate fails and nothing is released. The local executor needs no
 * cluster, so this runs wherever the suite runs.
 */
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { parse } from 'yaml';
import { readMainSettings } from '../../src/action/settings.js';
import { lintText } from '../../src/lint/lint.js';
import { renderWorkflow } from '../../src/workflow/render.js';
import { REPO, attemptDirs, makeTemp } from '../helpers/cli.js';
import { GitHubStandin, type Permission } from '../helpers/github-standin.js';

interface Job {
  needs?: string[];
  if?: string;
  permissions: Record<string, string>;
  steps: { uses: string; with?: Record<string, string> }[];
}

let standin: GitHubStandin;
let githubServices: typeof import('../../src/action/services/index.js').githubServices;
let run: typeof import('../../src/action/main.js').run;
beforeAll(async () => {
  standin = await GitHubStandin.start();
  // @actions/github reads the API's address when it is first loaded, as in a job's process.
  process.env.GITHUB_API_URL = standin.url;
  ({ githubServices } = await import('../../src/action/services/index.js'));
  ({ run } = await import('../../src/action/main.js'));
});
afterAll(async () => {
  await standin?.close();
});

const permissions = (p: Record<string, string>): Permission[] => [
  ...(p.actions ? (['actions:read'] as const) : []),
  ...(p.actions === 'write' ? (['actions:write'] as const) : []),
  ...(p.checks === 'write' ? (['checks:write'] as const) : []),
];

/** GITHUB_OUTPUT's `name<<DELIMITER` blocks. */
function outputs(text: string): Record<string, string> {
  const out: Record<string, string> = {};
  const lines = text.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const m = /^([^<]+)<<(.+)$/.exec(lines[i]!);
    if (!m) continue;
    const end = lines.indexOf(m[2]!, i + 1);
    out[m[1]!] = lines.slice(i + 1, end).join('\n');
    i = end;
  }
  return out;
}

type JobResult = { failure?: string; outputs: Record<string, string> } | 'skipped';

/** Writes the manifest into the workspace (a fresh one by default) and runs its generated workflow's jobs in order, as one run. */
async function runWorkflow(text: string, opts: { budget?: string; workspace?: string } = {}) {
  const workspace = opts.workspace ?? (await makeTemp('workflow-run'));
  await mkdir(join(workspace, 'campaigns'), { recursive: true });
  const manifest = 'campaigns/quickstart.yml';
  // The same directory, absolute: a relative workdir is in the checkout, which a runner cleans
  // before each job, and `campaign workflow` refuses it.
  const absolute = text.replace('workdir: ../.campaign-demo', `workdir: ${join(workspace, '.campaign-demo')}`);
  expect(absolute).not.toBe(text);
  await writeFile(join(workspace, manifest), absolute);
  const plan = lintText(manifest, await readFile(join(workspace, manifest), 'utf8')).context!.plan;
  const workflow = parse(
    renderWorkflow(plan, {
      manifest,
      uses: 'o/campaign@v1',
      branch: 'main',
      budget: opts.budget ?? '10m',
      runsOn: 'self-hosted',
    }),
  ) as { jobs: Record<string, Job> };

  const ghRun = standin.newRun();
  const done = new Map<string, JobResult>();
  const saved = process.env;
  process.chdir(workspace);
  try {
    for (const [id, job] of Object.entries(workflow.jobs)) {
      const needs = (job.needs ?? []).map((n) => done.get(n)!);
      const succeeded = needs.every((r) => r !== 'skipped' && r.failure === undefined);
      // The workflow's `if:` terms, joined by `&&`, as GitHub reads them for a push's run: one
      // without `!cancelled()` implies success() of the needs; a skipped job's outputs are ''.
      const terms = job.if === undefined ? [] : job.if.split(' && ');
      const holds = terms.every((term) => {
        if (term === '!cancelled()') return true;
        let m = /^github\.event_name (==|!=) '(\w+)'$/.exec(term);
        if (m) return m[1] === '==' ? m[2] === 'push' : m[2] !== 'push';
        m = /^needs\.([\w-]+)\.outputs\.([\w-]+) (==|!=) '(.*)'$/.exec(term);
        if (!m) throw new Error(`this test does not evaluate if: ${job.if}`);
        const need = done.get(m[1]!);
        const value = need === undefined || need === 'skipped' ? '' : (need.outputs[m[2]!] ?? '');
        return m[3] === '==' ? value === m[4] : value !== m[4];
      });
      const runs = holds && (terms.includes('!cancelled()') || succeeded);
      const step = job.steps[1]!;
      if (!runs || step.uses !== 'o/campaign@v1') {
        done.set(id, runs ? { outputs: {} } : 'skipped'); // the lint action is tested as its bundle
        continue;
      }
      const temp = await makeTemp(`job-${id}`);
      const env = standin.jobEnv(ghRun, { workspace, job: id });
      await writeFile(join(temp, 'output'), '');
      await writeFile(join(temp, 'sum'), '');
      // @actions/core and @actions/artifact read the runner's variables from the process.
      process.env = { ...saved, ...env, GITHUB_OUTPUT: join(temp, 'output'), GITHUB_STEP_SUMMARY: join(temp, 'sum') };
      const inputs = Object.fromEntries(
        Object.entries(step.with ?? {}).map(([k, v]) => [
          k,
          v.includes('${{') ? (k === 'retry-failed' || k === 'keep-changed' ? 'false' : '') : v,
        ]),
      );
      const services = githubServices(env, standin.issueToken(permissions(job.permissions)));
      const failure = await run(
        readMainSettings((n) => inputs[n] ?? ''),
        services,
        { job: id, tempDir: temp },
      );
      done.set(id, {
        ...(failure === undefined ? {} : { failure }),
        outputs: outputs(await readFile(join(temp, 'output'), 'utf8')),
      });
    }
  } finally {
    process.env = saved;
    process.chdir(REPO);
  }

  return { workspace, plan, done, result: (id: string) => done.get(id)! };
}

test('quickstart through its generated workflow: every phase smoke → gate → full, gates published, complete', async () => {
  const quickstart = await readFile(join(REPO, 'examples/quickstart.yml'), 'utf8');
  const { workspace, plan, done } = await runWorkflow(quickstart);
  const result = (id: string) => done.get(id) as { failure?: string; outputs: Record<string, string> };
  for (const p of ['train', 'evaluate']) {
    expect(result(`${p}-smoke`).failure).toBeUndefined();
    expect(result(`${p}-gate`).outputs.passed).toBe('true');
    expect(result(`${p}-full`).outputs['phase-status']).toBe('completed');
    // The gate check: in progress or not, it ends as a success, the checklist in its text.
    const checks = standin.checkRunsNamed(`campaign/quickstart/${p}/smoke-gate`);
    expect(checks.at(-1)).toMatchObject({ status: 'completed', conclusion: 'success' });
    expect(checks.every((c) => c.conclusion !== 'failure')).toBe(true);
  }
  expect(result('summary').outputs.complete).toBe('true');
  expect(result('summary').failure).toBeUndefined();
  // Each advancing job left its own state artifact; nothing was handed over.
  const names = standin.artifacts.map((a) => a.name);
  for (const id of ['train-smoke', 'train-full', 'evaluate-smoke', 'evaluate-full']) {
    expect(names.some((n) => n.endsWith(`.${id}`) || n.includes(`.${id}.`))).toBe(true);
  }
  expect(standin.dispatches).toEqual([]);
  // Every task ran once, though four jobs in turn drove the campaign.
  const attempts = await attemptDirs(join(workspace, '.campaign-demo'));
  expect(attempts.size).toBe(plan.phases.reduce((n, p) => n + p.smoke.length + p.tasks.length, 0));
  for (const [task, ns] of attempts) expect(ns, task).toEqual([1]);
});

test('a failing smoke checklist: the gate job fails and publishes a failure, no full array runs, the summary fails', async () => {
  const quickstart = await readFile(join(REPO, 'examples/quickstart.yml'), 'utf8');
  // Two records per smoke output are written; the checklist now asks for three.
  const failing = quickstart.replace('campaign: quickstart', 'campaign: failing-smoke').replace('count: 2', 'count: 3');
  expect(failing).not.toBe(quickstart);
  const { workspace, plan, result } = await runWorkflow(failing);

  expect(result('train-smoke')).toMatchObject({ failure: expect.stringContaining('smoke checklist failed') });
  expect(result('train-gate')).toMatchObject({
    failure: expect.stringContaining('did not pass'),
    outputs: { passed: 'false' },
  });
  expect(result('train-full')).toBe('skipped');
  expect(result('evaluate-smoke')).toBe('skipped');
  // The gate of a phase that was never reached runs anyway, and does not read as a pass.
  expect(result('evaluate-gate')).toMatchObject({ outputs: { passed: 'false' } });
  expect((result('evaluate-gate') as { failure?: string }).failure).toBeDefined();
  expect(result('evaluate-full')).toBe('skipped');
  expect(result('summary')).toMatchObject({
    failure: expect.stringContaining('train blocked'),
    outputs: { complete: 'false' },
  });

  const trainGate = standin.checkRunsNamed('campaign/failing-smoke/train/smoke-gate').at(-1);
  expect(trainGate).toMatchObject({ status: 'completed', conclusion: 'failure' });
  expect(trainGate?.output?.text).toContain('the output does not hold one record per step');
  expect(standin.checkRunsNamed('campaign/failing-smoke/evaluate/smoke-gate').at(-1)?.conclusion).toBe('failure');
  // Only the smoke tasks of train ran.
  const attempts = await attemptDirs(join(workspace, '.campaign-demo'));
  expect([...attempts.keys()].sort()).toEqual(plan.phases[0]!.smoke.map((t) => t.id).sort());
});

test('a budget that runs out: the smoke job saves and hands over, its gate is pending, the dispatched run finishes', async () => {
  const quickstart = await readFile(join(REPO, 'examples/quickstart.yml'), 'utf8');
  // Slower steps (with walltimes to match): the smoke stage outlasts a one-second budget.
  const text = quickstart
    .replace('campaign: quickstart', 'campaign: handed-over')
    .replace('sleep 0.2;', 'sleep 0.8;')
    .replace('{ width=8: 0.2s, width=16: 0.2s }', '{ width=8: 0.8s, width=16: 0.8s }');
  expect(text.match(/0\.8/g)).toHaveLength(3);
  const before = standin.dispatches.length;
  const first = await runWorkflow(text, { budget: '1s' });
  expect(first.result('train-smoke')).toMatchObject({ outputs: { 'handed-over': 'true' } });
  expect(standin.dispatches.length).toBe(before + 1);
  // Not evaluated yet: pending, never a pass; the gate job skips (neutral) and nothing is released.
  expect(standin.checkRunsNamed('campaign/handed-over/train/smoke-gate').at(-1)?.status).toBe('in_progress');
  expect(first.result('train-gate')).toBe('skipped');
  expect(first.result('train-full')).toBe('skipped');

  // The dispatched run, on the same self-hosted runner, resumes from the newest artifact.
  const second = await runWorkflow(text, { workspace: first.workspace });
  expect(second.result('summary')).toMatchObject({ outputs: { complete: 'true' } });
  expect(standin.checkRunsNamed('campaign/handed-over/train/smoke-gate').at(-1)?.conclusion).toBe('success');
  const attempts = await attemptDirs(join(first.workspace, '.campaign-demo'));
  for (const [task, ns] of attempts) expect(ns, task).toEqual([1]);
});
