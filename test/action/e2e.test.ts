/**
 * A whole campaign through the action's bundles, job after job as GitHub runs the workflow that
 * `campaign workflow` writes for it: each job a fresh `node dist/…/index.js` process in a fresh
 * workspace (the checkout), with the runner's INPUT_* (the step's `with:` over the action.yml
 * defaults), GITHUB_*, ACTIONS_* variables, GITHUB_OUTPUT and GITHUB_STEP_SUMMARY files, and a
 * GITHUB_TOKEN holding exactly the job's `permissions:`. The tasks run on the real Slurm test
 * cluster over SSH; the artifact, check and REST calls go to a local stand-in of GitHub's
 * services (test/helpers/github-standin.ts), never to github.com.
 *
 * Run 1 (push): lint → smoke → gate → release, whose job the "runner" kills once the full array
 * is submitted (a job past its time limit leaves no artifact) → summary. Run 2 (dispatched by
 * hand) resumes from the newest artifact alone; its release job runs out of a shortened budget,
 * saves and hands over. Run 3 (the dispatched run) finishes the campaign.
 */
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { parseManifest } from '../../src/manifest/load.js';
import { planCampaign, type Plan } from '../../src/plan/plan.js';
import { renderWorkflow, workflowPath } from '../../src/workflow/render.js';
import { GitHubStandin } from '../helpers/github-standin.js';
import { arrayTasksRecorded, clusterIsUp, jobsNamed, slurmManifestHead } from '../helpers/slurm-cluster.js';
import { ran, WorkflowRunner, type JobResult } from '../helpers/workflow-runner.js';
import { sshdUp, type Sshd } from '../exec/transport/sshd.js';

const clusterUp = clusterIsUp('Action end-to-end test');
/** sacct remembers earlier runs' jobs: a campaign name of this run alone. */
const NAME = `e2e-${Date.now().toString(36)}`;
const MANIFEST = 'campaigns/e2e.yml';

let gh: GitHubStandin;
let sshd: Sshd | undefined;
let root: string;
let sshKey: string;

beforeAll(async () => {
  if (!clusterUp) return;
  sshd = await sshdUp();
  gh = await GitHubStandin.start();
  root = await mkdtemp(join(tmpdir(), 'campaign-e2e-'));
  if (sshd) sshKey = await readFile(sshd.keyFile, 'utf8');
}, 300_000);
afterAll(async () => {
  await gh?.close();
  if (root) await rm(root, { recursive: true, force: true });
});

function manifest(): string {
  // Smoke: one task of one generation; full: four tasks of five generations, two at a time, so
  // the full stage outlasts the jobs run before the release job of the second run.
  return `${slurmManifestHead(sshd!, NAME, join(root, 'cluster-workdir'))}phases:
  - name: train
    grid: { N: [1, 2], seed: [1, 2] }
    command: >
      for g in $(seq 1 \${units}); do sleep 6; printf '{"generation": %d, "N": %s}\\n' "$g" \${N}; done > \${output}
    output: out/N\${N}_seed\${seed}.jsonl
    flush: per_generation
    cost: { unit: generation, units: 5, per_unit: 10s, measured_on: campaign-test, margin: 3 }
    smoke:
      tasks: 1
      overrides: { units: 1 }
      trigger:
        - check: output_exists
          otherwise: the task ran but wrote nothing
        - check: records
          count: 1
          fields: [generation, N]
          otherwise: the writer lost records
`;
}

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));
const ready = (): boolean => clusterUp && sshd !== undefined;

describe.runIf(clusterUp)(
  "the action's bundles, job after job as the generated workflow runs them, on the Slurm test cluster (GitHub's services: a local stand-in)",
  () => {
    it('push: smoke → gate → release killed; dispatch: resume from the artifact, budget runs out, hand over; the handed-over run finishes; nothing submitted twice', async () => {
      if (!ready()) return;
      const plan: Plan = planCampaign(parseManifest(MANIFEST, manifest()).manifest);
      const workflowText = renderWorkflow(plan, {
        manifest: MANIFEST,
        uses: './',
        branch: 'main',
        budget: '10m',
        runsOn: 'ubuntu-latest',
      });
      const dispatchable = parse(workflowText) as { on: { workflow_dispatch: { inputs: Record<string, unknown> } } };
      gh.dispatchInputs = new Set(Object.keys(dispatchable.on.workflow_dispatch.inputs));
      gh.workflowFile = basename(workflowPath(NAME));
      const runner = new WorkflowRunner({
        gh,
        root,
        workflow: workflowText,
        checkout: { [MANIFEST]: manifest(), [workflowPath(NAME)]: workflowText },
        secrets: { CAMPAIGN_SSH_KEY: sshKey },
      });
      const arrays = plan.phases.flatMap((p) => p.arrays);
      const smokeArrays = arrays.filter((a) => a.stage === 'smoke').length;
      const tasks = arrays.reduce((n, a) => n + a.tasks.length, 0);
      const prefix = `${NAME}~`;
      const gateName = `campaign/${NAME}/train/smoke-gate`;

      // Run 1, pushed. The runner kills the release job, as at a job's time limit, once the
      // full array is in Slurm: a killed job uploads nothing.
      const untilReleased = async (): Promise<void> => {
        for (let i = 0; i < 240 && jobsNamed(prefix).length <= smokeArrays; i++) await sleep(500);
      };
      const push = await runner.runWorkflow(
        { name: 'push', inputs: {} },
        { 'train-full': { killWhen: untilReleased } },
      );
      const lint = ran(push.jobs, 'lint');
      expect(lint.code, lint.log).toBe(0);
      const smoke = ran(push.jobs, 'train-smoke');
      expect(smoke.code, smoke.log).toBe(0);
      expect(smoke.outputs['state-artifact']).toBe(`campaign-state.${NAME}.${push.run.id}-1.train-smoke.1`);
      const gate = ran(push.jobs, 'train-gate');
      expect(gate.code, gate.log).toBe(0);
      expect(gate.outputs.passed).toBe('true');
      const check = gh.checkRunsNamed(gateName).at(-1);
      expect(check).toMatchObject({ head_sha: gh.sha, status: 'completed', conclusion: 'success' });
      expect(check?.output?.text).toContain('the writer lost records');
      const killed = ran(push.jobs, 'train-full');
      expect(killed.signal, killed.log).toBe('SIGKILL');
      expect(jobsNamed(prefix).length).toBeGreaterThan(smokeArrays);
      expect(gh.artifacts.filter((a) => a.name.includes('.train-full.'))).toEqual([]);
      // The summary job runs whatever happened before it (if: !cancelled()).
      expect(ran(push.jobs, 'summary').summary).toContain(`campaign ${NAME}`);

      // Run 2, dispatched by hand: fresh workspaces, whose only state is the newest artifact
      // (the smoke job's, which knows nothing of the release). The release job finds the
      // submitted array on the cluster instead of submitting it again, runs out of its budget,
      // saves and hands over.
      const dispatched = await runner.runWorkflow(
        { name: 'workflow_dispatch', inputs: { retry_failed: 'false' } },
        { 'train-full': { budget: '5s' } },
      );
      const resumedSmoke = ran(dispatched.jobs, 'train-smoke');
      expect(resumedSmoke.code, resumedSmoke.log).toBe(0);
      expect(resumedSmoke.log).toContain(`restored the state from ${smoke.outputs['state-artifact']}`);
      // Found among earlier runs' artifacts through the REST API, downloaded by redirect to the blob.
      expect(gh.calls).toContainEqual({
        method: 'GET',
        path: `/repos/${gh.owner}/${gh.repo}/actions/artifacts`,
        status: 200,
      });
      expect(ran(dispatched.jobs, 'train-gate').outputs.passed).toBe('true');
      const budgeted = ran(dispatched.jobs, 'train-full');
      expect(budgeted.code, budgeted.log).toBe(0);
      expect(budgeted.log).toContain(`restored the state from ${resumedSmoke.outputs['state-artifact']}`);
      expect(budgeted.outputs.complete).toBe('false');
      expect(gh.dispatches).toHaveLength(1);
      expect(gh.dispatches[0]).toMatchObject({ workflow: `campaign-${NAME}.yml`, ref: 'refs/heads/main' });

      // Run 3, the one the handover dispatched, with its inputs: finishes the campaign.
      const handedOver = await runner.runWorkflow({
        name: 'workflow_dispatch',
        inputs: gh.dispatches[0]!.inputs,
      });
      const finished = ran(handedOver.jobs, 'train-full');
      expect(finished.code, finished.log).toBe(0);
      expect(finished.log).toContain(`restored the state from`);
      expect(finished.outputs.complete).toBe('true');
      expect(gh.dispatches).toHaveLength(1);
      const summary = ran(handedOver.jobs, 'summary');
      expect(summary.code, summary.log).toBe(0);
      expect(summary.summary).toContain(`campaign ${NAME}`);
      expect(summary.log).toContain('restored the state from');

      // Nothing submitted twice: one array task per planned task. The campaign's max_parallel (2)
      // sends an array's tasks as places free, so an array may take more than one sbatch.
      expect(jobsNamed(prefix).length).toBeGreaterThanOrEqual(arrays.length);
      const inSacct = await arrayTasksRecorded(prefix, tasks);
      expect(inSacct).toHaveLength(tasks);
      expect(new Set(inSacct.map((t) => `${t.job}_${t.index}`)).size).toBe(tasks);
      expect(inSacct.every((t) => t.state === 'COMPLETED')).toBe(true);

      // The gate's check run was never anything but success once the gate had passed.
      expect(gh.checkRunsNamed(gateName).map((c) => c.conclusion)).not.toContain('failure');
      const all = [push, dispatched, handedOver].flatMap((r) =>
        [...r.jobs.values()].filter((x): x is JobResult => x !== 'skipped'),
      );
      // The SSH key reaches the log only in the runner's masking command.
      const body = sshKey.split('\n').find((l) => l.length > 40)!;
      for (const j of all) {
        for (const line of j.log.split('\n')) if (line.includes(body)) expect(line).toMatch(/^::add-mask::/);
      }
      console.info(
        [
          `e2e figures: ${jobsNamed(prefix).length} sbatch jobs, ${inSacct.length} array tasks in sacct; ${gh.artifacts.length} state artifacts; ${gh.checkRunsNamed(gateName).length} gate check runs; ${gh.dispatches.length} dispatch`,
          ...all.map((j) => `  ${j.job}: exit ${j.code ?? j.signal}, ${j.seconds.toFixed(1)} s`),
        ].join('\n'),
      );
    }, 900_000);
  },
);
