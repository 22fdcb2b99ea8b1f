/**
 * The generated workflow run job after job through the action's bundles on the local executor
 * (tasks as processes on the "runner", as on a self-hosted one), with GitHub's services on a
 * local stand-in (test/helpers/github-standin.ts): needs no cluster, so it runs anywhere. The
 * Slurm end to end, with a killed job and a handover, is e2e.test.ts.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { parseManifest } from '../../src/manifest/load.js';
import { planCampaign } from '../../src/plan/plan.js';
import { renderWorkflow, renderWorkflows } from '../../src/workflow/render.js';
import { GitHubStandin } from '../helpers/github-standin.js';
import { ran, WorkflowRunner } from '../helpers/workflow-runner.js';

const MANIFEST = 'campaigns/local.yml';
/** A chain of five or more jobs, each the action's bundle in its own Node process: up to a minute under CI's load. */
const JOB_CHAIN_TIMEOUT = 150_000;

let gh: GitHubStandin;
let root: string;

beforeAll(async () => {
  gh = await GitHubStandin.start();
  root = await mkdtemp(join(tmpdir(), 'campaign-workflow-local-'));
});
afterAll(async () => {
  await gh?.close();
  if (root) await rm(root, { recursive: true, force: true });
});

/** A phase that depends on nothing, to run beside train. */
const EVAL = `  - name: eval
    grid: { k: [1, 2] }
    command: sleep 3 && echo \${k} > \${output}
    output: eval/k\${k}.txt
    walltime: 5m
`;

function manifest(name: string, workdir: string, records: number, more = ''): string {
  return `campaign: ${name}
cluster:
  executor: local
  name: this-machine
  max_parallel: 2
workdir: ${workdir}
defaults:
  resources: { cpus: 1 }
phases:
  - name: train
    grid: { seed: [1, 2, 3] }
    command: >
      for i in $(seq 1 \${units}); do printf '{"step": %d}\\n' "$i"; done > \${output}
    output: out/seed\${seed}.jsonl
    flush: per_step
    cost: { unit: step, units: 2, per_unit: 1s, measured_on: this-machine, margin: 3 }
    smoke:
      tasks: 1
      overrides: { units: 1 }
      trigger:
        - check: records
          count: ${records}
          fields: [step]
          otherwise: the program does not write one record per step
    results: { metrics: [step], replicates: seed }
${more}`;
}

function runnerFor(name: string, records: number, more = ''): WorkflowRunner {
  return runnerOf(name, manifest(name, join(root, name, 'work'), records, more));
}

/** The stand-in runner of the workflow generated for the manifest `text`, committed with it. */
/** Runners of a campaign's two workflows, as `campaign workflow` writes them: its own, and the scheduled resume. */
function runnersOf(name: string, text: string): { runner: WorkflowRunner; resumer: WorkflowRunner } {
  const [workflow, resume] = renderWorkflows(planCampaign(parseManifest(MANIFEST, text).manifest), {
    manifest: MANIFEST,
    uses: './',
    branch: 'main',
    budget: '10m',
    runsOn: 'self-hosted',
  });
  gh.workflowFile = basename(workflow!.path);
  // Committed, a workflow is enabled.
  gh.workflows.set(basename(resume!.path), true);
  const checkout = { [MANIFEST]: text, [workflow!.path]: workflow!.text, [resume!.path]: resume!.text };
  const runner = (w: { path: string; text: string }): WorkflowRunner =>
    new WorkflowRunner({ gh, root: join(root, name), workflow: w.text, file: basename(w.path), checkout, secrets: {} });
  return { runner: runner(workflow!), resumer: runner(resume!) };
}

function runnerOf(name: string, text: string): WorkflowRunner {
  return runnersOf(name, text).runner;
}

const push = { name: 'push' as const, inputs: {} };

describe("the generated workflow on the local executor, job after job (GitHub's services: a local stand-in)", () => {
  it('lint → smoke → gate (success check run) → full → summary: complete', async () => {
    const { run, jobs } = await runnerFor('local-ok', 1).runWorkflow(push);
    for (const id of ['lint', 'train-smoke', 'train-gate', 'train-full', 'summary']) {
      const j = ran(jobs, id);
      expect(j.code, `${id}:\n${j.log}`).toBe(0);
    }
    expect(ran(jobs, 'train-gate').outputs.passed).toBe('true');
    expect(gh.checkRunsNamed('campaign/local-ok/train/smoke-gate').at(-1)).toMatchObject({ conclusion: 'success' });
    expect(ran(jobs, 'train-full').outputs).toMatchObject({ complete: 'true', 'phase-status': 'completed' });
    // Each state-changing job saved its own artifact; the gate and summary jobs only read.
    expect(gh.artifacts.filter((a) => a.runId === run.id).map((a) => a.name)).toEqual([
      `campaign-state.local-ok.${run.id}-1.train-smoke.1`,
      `campaign-state.local-ok.${run.id}-1.train-full.2`,
    ]);
    expect(ran(jobs, 'summary').summary).toContain('campaign local-ok');
    // The summary and its pictures travel in the state artifact (names sit in a zip's headers as they are).
    const zip = gh.artifacts
      .filter((a) => a.runId === run.id)
      .at(-1)!
      .bytes!.toString('latin1');
    for (const file of ['summary.md', 'timeline.svg', 'runtimes.svg', 'phases.svg']) expect(zip).toContain(file);
    // So do the results tables and picture, and the job summary has the results section.
    for (const file of ['results-train.csv', 'results-train-tasks.csv', 'results-train.svg'])
      expect(zip).toContain(file);
    expect(ran(jobs, 'train-full').summary).toMatch(/## Results: train\n\n1 of 1 cell have every replicate/);
  });

  it('a failed checklist is a failure check run with its interpretation, and the full arrays are skipped', async () => {
    const { jobs } = await runnerFor('local-bad', 5).runWorkflow(push);
    const gate = ran(jobs, 'train-gate');
    expect(gate.code).toBe(1);
    expect(gate.outputs.passed).toBe('false');
    const check = gh.checkRunsNamed('campaign/local-bad/train/smoke-gate').at(-1);
    expect(check).toMatchObject({ status: 'completed', conclusion: 'failure' });
    expect(check?.output?.text).toContain('the program does not write one record per step');
    expect(jobs.get('train-full')).toBe('skipped');
  });

  it('a gate whose smoke job never saved a state fails its job and publishes no success', async () => {
    const runner = runnerFor('local-never', 1);
    // The smoke job died before saving: the gate job (if: !cancelled() …) runs on nothing.
    const gate = await runner.runJob(gh.newRun(), push, 'train-gate');
    expect(gate.code).toBe(1);
    expect(gate.outputs.passed).toBe('false');
    // Pending (in progress) or failure: either keeps a required check from passing.
    const published = gh.checkRunsNamed('campaign/local-never/train/smoke-gate');
    expect(published).toHaveLength(1);
    expect(published[0]!.conclusion).not.toBe('success');
  });

  it('a token GitHub refuses fails the gate job without publishing anything', async () => {
    const runner = runnerFor('local-401', 1);
    const gate = await runner.runJob(gh.newRun(), push, 'train-gate', { token: 'ghs_revoked' });
    expect(gate.code).toBe(1);
    expect(gate.log).toMatch(/::error.*401: Bad credentials/);
    expect(gh.checkRunsNamed('campaign/local-401/train/smoke-gate')).toEqual([]);
  });

  it(
    "independent phases run at once, and the saves of their jobs merge: none loses the other's records",
    async () => {
      const text = manifest('local-two', join(root, 'local-two', 'work'), 1, EVAL);
      const workflow = parse(
        renderWorkflow(planCampaign(parseManifest(MANIFEST, text).manifest), {
          manifest: MANIFEST,
          uses: './',
          branch: 'main',
          budget: '10m',
          runsOn: 'self-hosted',
        }),
      ) as { jobs: Record<string, { needs: string[]; if?: string }> };
      // eval depends on nothing: it waits for lint alone, not for train's jobs.
      expect(workflow.jobs.eval).toEqual(expect.objectContaining({ needs: ['lint'] }));
      expect(workflow.jobs.eval!.if).toBeUndefined();
      const { run, jobs } = await runnerFor('local-two', 1, EVAL).runWorkflow(push);
      for (const id of ['train-smoke', 'train-gate', 'train-full', 'eval', 'summary'])
        expect(ran(jobs, id).code, `${id}:\n${ran(jobs, id).log}`).toBe(0);
      // eval ran while train's jobs did.
      const evalJob = ran(jobs, 'eval');
      const trainStart = ran(jobs, 'train-smoke').startedAt;
      const trainEnd = ran(jobs, 'train-full').endedAt;
      expect(evalJob.startedAt).toBeLessThan(trainEnd);
      expect(evalJob.endedAt).toBeGreaterThan(trainStart);
      // Both phases' records reach the summary, whichever job saved last: the restore merged them.
      const summaryJob = ran(jobs, 'summary');
      expect(summaryJob.log).toMatch(/merged with campaign-state\.local-two\./);
      expect(summaryJob.summary).toMatch(/\| eval \| completed/);
      expect(summaryJob.summary).toMatch(/\| train \| completed/);
      expect(ran(jobs, 'train-full').outputs).toMatchObject({ 'phase-status': 'completed' });
      // A second run's restore merges too: it finds every task completed and sends nothing again.
      const again = await runnerFor('local-two', 1, EVAL).runJob(gh.newRun(), push, 'summary');
      expect(again.code, again.log).toBe(0);
      expect(again.summary).toMatch(/\| eval \| completed/);
      expect(again.summary).toMatch(/\| train \| completed/);
      const seconds = (t: number): string => ((t - ran(jobs, 'lint').endedAt) / 1000).toFixed(1);
      console.log(
        `run ${run.id}: train ${seconds(trainStart)}–${seconds(trainEnd)} s, eval ${seconds(evalJob.startedAt)}–${seconds(evalJob.endedAt)} s, summary ends ${seconds(summaryJob.endedAt)} s (from lint's end)`,
      );
    },
    JOB_CHAIN_TIMEOUT,
  );
});

describe('parked jobs and the scheduled resume, on the local executor (GitHub stand-in)', () => {
  /** Tasks the cost model says take 10 minutes (they take a moment): a job has nothing due for 5. */
  const slow = (name: string): string => `campaign: ${name}
cluster:
  executor: local
  name: this-machine
  max_parallel: 4
workdir: ${join(root, name, 'work')}
phases:
  - name: train
    grid: { seed: [1, 2] }
    command: >
      for i in $(seq 1 \${units}); do printf '{"step": %d}\\n' "$i"; done > \${output}
    output: out/seed\${seed}.jsonl
    flush: per_step
    cost: { unit: step, units: 2, per_unit: 10m, measured_on: this-machine, margin: 1.5 }
    smoke:
      tasks: 1
      overrides: { units: 1 }
      trigger:
        - check: records
          count: 1
          fields: [step]
`;

  it(
    'a job parks with its tasks out; the schedule, on only while something is parked, resumes only what parked, and the stage after it begins in a new run',
    async () => {
      const { runner, resumer } = runnersOf('parking', slow('parking'));
      const schedule = 'campaign-parking-resume.yml';
      const dispatched = gh.dispatches.length;
      // Committed, the resume's first scheduled run finds nothing parked and switches its schedule off.
      const idle = ran((await resumer.runWorkflow({ name: 'schedule', inputs: {} })).jobs, 'resume');
      expect(idle.code, idle.log).toBe(0);
      expect(idle.log).toMatch(/no job parked, so there is nothing to resume/);
      expect(gh.workflows.get(schedule)).toBe(false);

      // The smoke job submits its task and parks (nothing is due for 5 minutes), switching the schedule on.
      const first = await runner.runWorkflow(push);
      const smoke = ran(first.jobs, 'train-smoke');
      expect(smoke.code, smoke.log).toBe(0);
      expect(smoke.outputs).toMatchObject({ parked: 'true' });
      expect(smoke.log).toMatch(/nothing is due for 5 min/);
      expect(gh.workflows.get(schedule)).toBe(true);
      // Its gate waits for the resume: skipped (neutral), not red; no release.
      expect(first.jobs.get('train-gate')).toBe('skipped');
      expect(first.jobs.get('train-full')).toBe('skipped');
      expect(ran(first.jobs, 'summary').code).toBe(0);

      // The scheduled run restores the state the push's run saved, sees the smoke stage come to
      // rest, starts the campaign's workflow again, and, nothing parked, switches itself off.
      const resume = ran((await resumer.runWorkflow({ name: 'schedule', inputs: {} })).jobs, 'resume');
      expect(resume.code, resume.log).toBe(0);
      expect(resume.outputs).toMatchObject({ parked: 'false' });
      expect(gh.dispatches.slice(dispatched)).toMatchObject([{ workflow: 'campaign-parking.yml' }]);
      expect(gh.workflows.get(schedule)).toBe(false);

      // The dispatched run: the gate judges the smoke stage, and the full job submits and parks.
      const second = await runner.runWorkflow({ name: 'workflow_dispatch', inputs: {} });
      expect(ran(second.jobs, 'train-gate').outputs).toMatchObject({ passed: 'true' });
      const full = ran(second.jobs, 'train-full');
      expect(full.code, full.log).toBe(0);
      expect(full.outputs).toMatchObject({ parked: 'true', complete: 'false' });
      expect(gh.workflows.get(schedule)).toBe(true);

      // The next scheduled run finds the full stage at rest: the campaign is complete, no run is
      // started, and the schedule is off: the day after starts no runner.
      const done = ran((await resumer.runWorkflow({ name: 'schedule', inputs: {} })).jobs, 'resume');
      expect(done.code, done.log).toBe(0);
      expect(done.outputs).toMatchObject({ complete: 'true', parked: 'false' });
      expect(gh.dispatches.length).toBe(dispatched + 1);
      expect(done.summary).toMatch(/\| train \| completed/);
      expect(gh.workflows.get(schedule)).toBe(false);
    },
    JOB_CHAIN_TIMEOUT,
  );
});
