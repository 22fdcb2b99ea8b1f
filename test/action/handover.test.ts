/**
 * The Action's handover when a job's budget runs out (in-process `run`, local executor, GitHub's
 * services on the local stand-in): a dispatch GitHub refuses is the user's to fix, said with the
 * way out, the state saved once and the summary still written; one it takes ends the job well.
 */
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { readMainSettings } from '../../src/action/settings.js';
import { REPO, makeTemp } from '../helpers/cli.js';
import { GitHubStandin } from '../helpers/github-standin.js';

let standin: GitHubStandin;
let githubServices: typeof import('../../src/action/services/index.js').githubServices;
let run: typeof import('../../src/action/main.js').run;
beforeAll(async () => {
  standin = await GitHubStandin.start();
  process.env.GITHUB_API_URL = standin.url;
  ({ githubServices } = await import('../../src/action/services/index.js'));
  ({ run } = await import('../../src/action/main.js'));
});
afterAll(async () => {
  await standin?.close();
});

// Tasks that outlast a 2 s budget, so the job hands over with the campaign still running.
const manifest = (workdir: string): string => `campaign: handover
cluster:
  executor: local
  name: this-machine
  max_parallel: 2
workdir: ${workdir}
phases:
  - name: train
    grid: { seed: [1, 2] }
    command: sleep 6; echo done > \${output}
    output: out/seed\${seed}.txt
    walltime: 5m
`;

async function advance(dispatchable: boolean): Promise<{
  failure: string | undefined;
  summary: string;
  outputs: string;
  saved: number;
  dispatched: number;
}> {
  const workspace = await makeTemp('handover');
  await mkdir(join(workspace, 'campaigns'));
  await writeFile(join(workspace, 'campaigns/c.yml'), manifest(join(workspace, 'work')));
  const ghRun = standin.newRun();
  const temp = await makeTemp('handover-job');
  const env = standin.jobEnv(ghRun, { workspace, job: 'advance' });
  await writeFile(join(temp, 'output'), '');
  await writeFile(join(temp, 'sum'), '');
  const before = standin.dispatches.length;
  const saved = process.env;
  process.env = { ...saved, ...env, GITHUB_OUTPUT: join(temp, 'output'), GITHUB_STEP_SUMMARY: join(temp, 'sum') };
  process.chdir(workspace);
  standin.dispatchable = dispatchable;
  try {
    const inputs: Record<string, string> = { command: 'advance', manifest: 'campaigns/c.yml', budget: '2s' };
    const services = githubServices(env, standin.issueToken(['actions:read', 'actions:write', 'checks:write']));
    const failure = await run(
      readMainSettings((n) => inputs[n] ?? ''),
      services,
      { job: 'advance', tempDir: temp },
    );
    return {
      failure,
      summary: await readFile(join(temp, 'sum'), 'utf8'),
      outputs: await readFile(join(temp, 'output'), 'utf8'),
      saved: standin.artifacts.filter((a) => a.runId === ghRun.id).length,
      dispatched: standin.dispatches.length - before,
    };
  } finally {
    standin.dispatchable = true;
    process.env = saved;
    process.chdir(REPO);
  }
}

test('a dispatch GitHub refuses (no workflow_dispatch): the way out said, the state saved once, the summary written', async () => {
  const r = await advance(false);
  expect(r.failure).toMatch(
    /^the budget ran out and the next run could not be started: .*422: Workflow does not have 'workflow_dispatch' trigger.*the state is saved/,
  );
  expect(r.saved).toBe(1);
  expect(r.dispatched).toBe(0);
  expect(r.summary).toContain('## campaign handover');
  expect(r.outputs).toMatch(/handed-over<<\S+\nfalse\n/);
}, 60_000);

test('a dispatch GitHub takes: the job ends well, handed over, the state saved once', async () => {
  const r = await advance(true);
  expect(r.failure).toBeUndefined();
  expect(r.saved).toBe(1);
  expect(r.dispatched).toBe(1);
  expect(r.outputs).toMatch(/handed-over<<\S+\ntrue\n/);
}, 60_000);
