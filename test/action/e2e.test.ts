/**
 * A whole campaign through the action's bundle, job after job as a workflow runs them: each job a
 * fresh `node dist/main/index.js` process in a fresh workspace, with the runner's INPUT_*,
 * GITHUB_*, ACTIONS_* variables, GITHUB_OUTPUT and GITHUB_STEP_SUMMARY files. The tasks run on
 * the real Slurm test cluster over SSH; the artifact, check and REST calls go to a local
 * stand-in of GitHub's services (test/helpers/github-standin.ts), never to github.com.
 *
 * Run 1 (push): smoke → gate → release, whose job the "runner" kills once the full array is
 * submitted (a job past its time limit leaves no artifact). Run 2 (workflow_dispatch) resumes
 * from the newest artifact alone, runs out of its budget, saves and hands over. Run 3 (the
 * dispatched run) finishes the campaign, and a summary job reports it.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseManifest } from '../../src/manifest/load.js';
import { planCampaign } from '../../src/plan/plan.js';
import { REPO } from '../helpers/cli.js';
import { GitHubStandin, type Run } from '../helpers/github-standin.js';
import { arrayTasksNamed, clusterIsUp, jobsNamed, slurmManifestHead } from '../helpers/slurm-cluster.js';
import { sshdUp, type Sshd } from '../exec/transport/sshd.js';

const BUNDLE = join(REPO, 'dist', 'main', 'index.js');
const clusterUp = clusterIsUp('Action end-to-end test');
/** sacct remembers earlier runs' jobs: a campaign name of this run alone. */
const NAME = `e2e-${Date.now().toString(36)}`;
const MANIFEST = 'campaigns/e2e.yml';

let gh: GitHubStandin;
let sshd: Sshd | undefined;
let root: string;
let token: string;
let sshKey: string;

beforeAll(async () => {
  if (!clusterUp) return;
  sshd = await sshdUp();
  gh = await GitHubStandin.start();
  token = gh.issueToken(['actions:read', 'actions:write', 'checks:write']);
  root = await mkdtemp(join(tmpdir(), 'campaign-e2e-'));
  if (sshd) sshKey = await readFile(sshd.keyFile, 'utf8');
}, 300_000);
afterAll(async () => {
  await gh?.close();
  if (root) await rm(root, { recursive: true, force: true });
});

function manifest(workdir: string): string {
  // Smoke: one task of one generation; full: four tasks of two generations, two at a time, so
  // the campaign outlasts a short budget.
  return `${slurmManifestHead(sshd!, NAME, workdir)}phases:
  - name: train
    grid: { N: [1, 2], seed: [1, 2] }
    command: >
      for g in $(seq 1 \${units}); do sleep 6; printf '{"generation": %d, "N": %s}\\n' "$g" \${N}; done > \${output}
    output: out/N\${N}_seed\${seed}.jsonl
    flush: per_generation
    cost: { unit: generation, units: 2, per_unit: 10s, measured_on: campaign-test, margin: 3 }
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

interface JobResult {
  job: string;
  seconds: number;
  code: number | null;
  signal: NodeJS.Signals | null;
  log: string;
  outputs: Record<string, string>;
  summary: string;
}

interface StartedJob {
  child: ChildProcess;
  done: Promise<JobResult>;
}

/** One job's step of the action, as the runner starts it: a fresh workspace holding the checkout. */
async function startJob(run: Run, job: string, inputs: Record<string, string>): Promise<StartedJob> {
  const dir = join(root, `run${run.id}-${job}`);
  const workspace = join(dir, 'workspace');
  const temp = join(dir, 'runner-temp');
  await mkdir(join(workspace, 'campaigns'), { recursive: true });
  await mkdir(temp, { recursive: true });
  await writeFile(join(workspace, MANIFEST), manifest(join(root, 'cluster-workdir')));
  const outputFile = join(dir, 'github-output');
  const summaryFile = join(dir, 'step-summary');
  await writeFile(outputFile, '');
  await writeFile(summaryFile, '');
  const env: NodeJS.ProcessEnv = {
    PATH: process.env.PATH,
    HOME: process.env.HOME,
    ...gh.jobEnv(run, {
      workspace,
      job,
      extra: { RUNNER_TEMP: temp, GITHUB_OUTPUT: outputFile, GITHUB_STEP_SUMMARY: summaryFile },
    }),
    // core.getInput reads INPUT_<NAME>, the name upper-cased as the runner writes it.
    INPUT_MANIFEST: MANIFEST,
    INPUT_TOKEN: token,
    'INPUT_SSH-KEY': sshKey,
    INPUT_HANDOVER: 'dispatch',
    ...Object.fromEntries(Object.entries(inputs).map(([k, v]) => [`INPUT_${k.toUpperCase()}`, v])),
  };
  const started = Date.now();
  const child = spawn(process.execPath, [BUNDLE], { cwd: workspace, env, stdio: ['ignore', 'pipe', 'pipe'] });
  let log = '';
  child.stdout!.on('data', (d: Buffer) => (log += d.toString()));
  child.stderr!.on('data', (d: Buffer) => (log += d.toString()));
  const done = new Promise<JobResult>((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (code, signal) => {
      void Promise.all([readFile(outputFile, 'utf8'), readFile(summaryFile, 'utf8')]).then(([out, summary]) =>
        resolve({
          job: `run ${run.id} ${job}`,
          seconds: (Date.now() - started) / 1000,
          code,
          signal,
          log,
          outputs: parseOutputs(out),
          summary,
        }),
      );
    });
  });
  return { child, done };
}

async function job(run: Run, name: string, inputs: Record<string, string>): Promise<JobResult> {
  return (await startJob(run, name, inputs)).done;
}

/** GITHUB_OUTPUT as @actions/core writes it: `name<<DELIMITER`, the value, the delimiter. */
function parseOutputs(text: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const m of text.matchAll(/^([^\n<]+)<<(\S+)\n([\s\S]*?)\n\2$/gm)) out[m[1]!] = m[3]!;
  return out;
}

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

const gateName = `campaign/${NAME}/train/smoke-gate`;
const ready = (): boolean => clusterUp && sshd !== undefined;

describe.runIf(clusterUp)(
  "the action's bundle, job after job, on the Slurm test cluster (GitHub's services: a local stand-in)",
  () => {
    it('start → smoke → gate → release (killed) → resume from the artifact → budget handover → finish; nothing submitted twice', async () => {
      if (!ready()) return;
      expect(existsSync(BUNDLE), `${BUNDLE} is missing: build it with scripts/bundle`).toBe(true);
      const plan = planCampaign(parseManifest(MANIFEST, manifest(join(root, 'cluster-workdir'))).manifest);
      const arrays = plan.phases.flatMap((p) => p.arrays);
      const smokeArrays = arrays.filter((a) => a.stage === 'smoke').length;
      const tasks = arrays.reduce((n, a) => n + a.tasks.length, 0);
      const prefix = `${NAME}~`;

      // Run 1, pushed: the smoke stage comes to rest and its gate is published.
      const run1 = gh.newRun();
      const smoke = await job(run1, 'train-smoke', {
        command: 'advance',
        phase: 'train',
        stage: 'smoke',
        budget: '10m',
      });
      expect(smoke.code, smoke.log).toBe(0);
      expect(smoke.outputs['state-artifact']).toBe(`campaign-state.${NAME}.${run1.id}-1.train-smoke.1`);
      expect(jobsNamed(prefix)).toHaveLength(smokeArrays);

      const gate = await job(run1, 'train-gate', { command: 'gate', phase: 'train' });
      expect(gate.code, gate.log).toBe(0);
      expect(gate.outputs.passed).toBe('true');
      expect(gh.checkRunsNamed(gateName).at(-1)).toMatchObject({
        head_sha: gh.sha,
        status: 'completed',
        conclusion: 'success',
      });
      expect(gh.checkRunsNamed(gateName).at(-1)?.output?.text).toContain('output_exists');

      // The release job is killed, as a runner kills a job past its limit, once the full array is in Slurm.
      const release = await startJob(run1, 'train-full', {
        command: 'advance',
        phase: 'train',
        stage: 'full',
        budget: '10m',
      });
      for (let i = 0; i < 240 && jobsNamed(prefix).length === smokeArrays; i++) await sleep(500);
      release.child.kill('SIGKILL');
      const killed = await release.done;
      expect(killed.signal, killed.log).toBe('SIGKILL');
      expect(jobsNamed(prefix).length).toBeGreaterThan(smokeArrays);
      expect(gh.artifacts.filter((a) => a.name.includes('.train-full.'))).toEqual([]);

      // Run 2, dispatched by hand: a fresh workspace, whose only state is the newest artifact
      // (the smoke job's, which knows nothing of the release). It finds the submitted array on
      // the cluster instead of submitting it again, runs out of its budget, saves, hands over.
      const run2 = gh.newRun();
      const resumed = await job(run2, 'advance', { command: 'advance', budget: '15s' });
      expect(resumed.code, resumed.log).toBe(0);
      expect(resumed.log).toContain(`restored the state from campaign-state.${NAME}.${run1.id}-1.train-smoke.1`);
      // Found among earlier runs' artifacts through the REST API, downloaded by redirect to the blob.
      expect(gh.calls).toContainEqual({
        method: 'GET',
        path: `/repos/${gh.owner}/${gh.repo}/actions/artifacts`,
        status: 200,
      });
      expect(resumed.outputs['handed-over']).toBe('true');
      expect(resumed.outputs.complete).toBe('false');
      expect(gh.dispatches).toHaveLength(1);
      expect(gh.dispatches[0]).toMatchObject({ workflow: gh.workflowFile, ref: 'refs/heads/main' });

      // Run 3, the dispatched one: resumes from run 2's artifact and finishes.
      const run3 = gh.newRun();
      const finished = await job(run3, 'advance', { command: 'advance', budget: '10m' });
      expect(finished.code, finished.log).toBe(0);
      expect(finished.log).toContain(`restored the state from ${resumed.outputs['state-artifact']}`);
      expect(finished.outputs.complete).toBe('true');
      expect(finished.outputs['handed-over']).toBe('false');
      expect(gh.dispatches).toHaveLength(1);

      const summary = await job(run3, 'summary', { command: 'summary' });
      expect(summary.code, summary.log).toBe(0);
      expect(summary.outputs.complete).toBe('true');
      const counts = JSON.parse(summary.outputs.counts ?? '[]') as { phase: string; done: number; total: number }[];
      expect(counts.find((c) => c.phase === 'train')).toMatchObject({ done: 4, total: 4 });
      expect(summary.summary).toContain(`campaign ${NAME}`);

      // Nothing submitted twice: one sbatch per planned array, one array task per planned task.
      expect(jobsNamed(prefix)).toHaveLength(arrays.length);
      const ran = arrayTasksNamed(prefix);
      expect(ran).toHaveLength(tasks);
      expect(new Set(ran.map((t) => `${t.job}_${t.index}`)).size).toBe(tasks);
      expect(ran.every((t) => t.state === 'COMPLETED')).toBe(true);

      console.info(
        [
          `e2e figures: ${arrays.length} sbatch jobs, ${tasks} array tasks in sacct; ${gh.artifacts.length} state artifacts; ${gh.checkRunsNamed(gateName).length} gate check runs`,
          ...[smoke, gate, killed, resumed, finished, summary].map((j) => `  ${j.job}: ${j.seconds.toFixed(1)} s`),
        ].join('\n'),
      );

      // The gate's check run was never anything but success once the gate had passed.
      expect(gh.checkRunsNamed(gateName).map((c) => c.conclusion)).not.toContain('failure');
      // The SSH key reaches the log only in the runner's masking command.
      const body = sshKey.split('\n').find((l) => l.length > 40)!;
      for (const j of [smoke, gate, resumed, finished, summary]) {
        for (const line of j.log.split('\n')) if (line.includes(body)) expect(line).toMatch(/^::add-mask::/);
      }
    }, 900_000);
  },
);
