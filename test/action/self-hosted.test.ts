/**
 * The self-hosted runner on the login node: `executor: slurm` with no `login`, so sbatch runs
 * on this machine (LocalTransport) in the runner's environment. The batch jobs get what a login
 * shell of the user has (HOME, PATH, locale, the module system, SLURM_CONF) and nothing of the
 * runner: no GITHUB_*, RUNNER_*, ACTIONS_*, INPUT_*, no token, and no secret a workflow step put
 * in its env under a name of its own. The tasks run in the manifest's workdir (relative: under
 * the home directory, as over SSH), never in the runner's checkout.
 *
 * The action is run as a runner runs it: `node lib/action/main-index.js` (the tsc build of the
 * entry point that dist/main/index.js bundles) in the checkout, with INPUT_* (action.yml's
 * defaults under the step's `with:`), the GITHUB_* and ACTIONS_* of a job, a self-hosted
 * runner's RUNNER_*, and GitHub's services on a local stand-in (test/helpers/github-standin.ts).
 * The tasks run on the real Slurm test cluster; `campaign run` from the CLI is held to the same.
 */
import { spawn } from 'node:child_process';
import { mkdir, readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { parse } from 'yaml';
import { LocalTransport } from '../../src/exec/transport/local.js';
import { REPO, runCli, useBuiltCliAndTemp, writeManifest } from '../helpers/cli.js';
import { GitHubStandin } from '../helpers/github-standin.js';
import { clusterEnv, clusterIsUp } from '../helpers/slurm-cluster.js';

const clusterUp = clusterIsUp('self-hosted runner tests on Slurm');
const tempRoot = useBuiltCliAndTemp('self-hosted');
const MANIFEST = 'campaigns/self-hosted.yml';
/** A suffix of this run alone: campaign names sacct has not seen, canary values nothing else holds. */
const RUN = Date.now().toString(36);

let gh: GitHubStandin | undefined;
beforeAll(async () => {
  if (clusterUp) gh = await GitHubStandin.start();
});
afterAll(async () => {
  await gh?.close();
});

/** Secrets a runner's job holds, each a value no job may ever show. */
const SECRETS = {
  MY_API_TOKEN: `my-api-token-canary-${RUN}`,
  GH_TOKEN: `ghp_ghtokencanary${RUN}`,
  ACTIONS_ID_TOKEN_REQUEST_TOKEN: `id-token-request-canary-${RUN}`,
  CAMPAIGN_SSH_PASSPHRASE: `passphrase-canary-${RUN}`,
};

/** The names no job may see: the runner's, its job's and the action's own. */
const RUNNER_NAME = /^(GITHUB_|RUNNER_|ACTIONS_|INPUT_|CAMPAIGN_SSH_|MY_API_TOKEN=|GH_TOKEN=|CI=)/;

/**
 * What a login shell of the runner's user has: its home (a directory of this test's), PATH,
 * locale, time zone, an Lmod module system, and the cluster's SLURM_CONF.
 */
function loginShell(home: string): Record<string, string> {
  return {
    HOME: home,
    USER: 'runner',
    LOGNAME: 'runner',
    SHELL: '/bin/bash',
    PATH: process.env.PATH!,
    LANG: 'C.UTF-8',
    TZ: 'Europe/Zurich',
    MODULEPATH: '/opt/site/modules/all',
    MODULESHOME: '/opt/site/lmod',
    LMOD_SYSTEM_NAME: 'campaign-test',
    SLURM_CONF: clusterEnv().SLURM_CONF!,
  };
}

/** What a self-hosted runner adds for each job (actions/runner sets these). */
function runnerVariables(root: string): Record<string, string> {
  return {
    CI: 'true',
    RUNNER_NAME: 'login-node-runner',
    RUNNER_OS: 'Linux',
    RUNNER_ARCH: 'X64',
    RUNNER_ENVIRONMENT: 'self-hosted',
    RUNNER_TRACKING_ID: `github_${RUN}`,
    RUNNER_WORKSPACE: join(root, '_work', 'experiments'),
    RUNNER_TOOL_CACHE: join(root, '_work', '_tool'),
    ACTIONS_ID_TOKEN_REQUEST_URL: 'https://pipelines.example/idtoken',
  };
}

/** The inputs the runner gives the action: its action.yml defaults under the step's `with:`. */
async function actionInputs(given: Record<string, string>): Promise<Record<string, string>> {
  const action = parse(await readFile(join(REPO, 'action.yml'), 'utf8')) as {
    inputs: Record<string, { default?: string }>;
  };
  return Object.fromEntries(
    Object.entries(action.inputs).map(([name, def]) => [
      `INPUT_${name.toUpperCase()}`,
      given[name] ?? def.default ?? '',
    ]),
  );
}

function manifest(name: string, smoke: boolean): string {
  return `campaign: ${name}
cluster:
  executor: slurm
  name: campaign-test
  partitions: [{ name: debug, max_time: 30m }]
# Relative: under the home directory of the login node's user, as over SSH.
workdir: campaign-work/${name}
defaults:
  resources: { cpus: 1, mem: 100M }
phases:
  - name: p
    grid: { k: [1, 2] }
    command: env > \${output}; env
    output: env_\${k}.txt
    flush: per_step
    cost: { unit: step, units: 2, per_unit: 1s, measured_on: campaign-test, margin: 3 }
${
  smoke
    ? `    smoke:
      tasks: 1
      trigger:
        - check: command
          run: env > check_env.txt
`
    : ''
}`;
}

async function filesUnder(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { withFileTypes: true, recursive: true });
  return entries.filter((e) => e.isFile()).map((e) => join(e.parentPath, e.name));
}

/** An `env` dump holds the login shell's variables and none of the runner's. */
function expectLoginEnvironment(dump: string, login: Record<string, string>, workdir: string): void {
  const lines = dump.split('\n');
  expect(lines.filter((l) => RUNNER_NAME.test(l))).toEqual([]);
  for (const [name, value] of Object.entries(login)) expect(lines).toContain(`${name}=${value}`);
  // It ran in the workdir, under Slurm.
  expect(lines).toContain(`PWD=${workdir}`);
  expect(dump).toMatch(/^SLURM_JOB_ID=\d+$/m);
}

/** Both tasks' outputs and every job log (the tasks' stdout) hold a login shell's environment. */
async function expectJobsSawLoginShell(workdir: string, name: string, login: Record<string, string>): Promise<void> {
  const logs = (await filesUnder(join(workdir, '.campaign', 'slurm', name))).filter((f) => f.endsWith('.log'));
  expect(logs.length).toBeGreaterThanOrEqual(2);
  for (const f of [join(workdir, 'env_1.txt'), join(workdir, 'env_2.txt'), ...logs]) {
    expectLoginEnvironment(await readFile(f, 'utf8'), login, workdir);
  }
}

/** No secret's value in any file under the dirs (a task's output, its log, the scripts and tables, the state). */
async function expectNoSecretUnder(dirs: string[], secrets: readonly string[]): Promise<number> {
  let files = 0;
  for (const dir of dirs) {
    for (const f of await filesUnder(dir)) {
      const text = await readFile(f, 'latin1');
      for (const s of secrets) expect(text.includes(s), `a secret of the runner is in ${f}`).toBe(false);
      files++;
    }
  }
  return files;
}

describe.runIf(clusterUp)('a self-hosted runner on the login node, sbatch on this machine (real Slurm)', () => {
  it("the action's advance (GitHub's services: a local stand-in) completes the campaign; its jobs see a login shell's environment, none of the runner's, in the manifest's workdir, not the checkout", async () => {
    const name = `self-hosted-${RUN}`;
    const root = join(tempRoot(), 'action');
    const home = join(root, 'home');
    const workspace = join(root, '_work', 'experiments', 'experiments');
    const temp = join(root, '_work', '_temp');
    const text = manifest(name, false);
    await mkdir(join(workspace, 'campaigns'), { recursive: true });
    await mkdir(home, { recursive: true });
    await mkdir(temp, { recursive: true });
    await writeFile(join(workspace, MANIFEST), text);
    const outputFile = join(root, 'github-output');
    const summaryFile = join(root, 'step-summary');
    await writeFile(outputFile, '');
    await writeFile(summaryFile, '');

    const run = gh!.newRun();
    const token = gh!.issueToken(['actions:read', 'actions:write', 'checks:write']);
    const login = loginShell(home);
    const env: NodeJS.ProcessEnv = {
      ...login,
      ...runnerVariables(root),
      ...gh!.jobEnv(run, {
        workspace,
        job: 'campaign',
        extra: {
          RUNNER_TEMP: temp,
          GITHUB_OUTPUT: outputFile,
          GITHUB_STEP_SUMMARY: summaryFile,
          GITHUB_TOKEN: token,
        },
      }),
      ...(await actionInputs({ command: 'advance', manifest: MANIFEST, budget: '5m', handover: 'none', token })),
      // The step's `env:` of the workflow: secrets under names of its own.
      ...SECRETS,
    };
    const r = await new Promise<{ code: number | null; log: string }>((resolve, reject) => {
      const child = spawn(process.execPath, [join(REPO, 'lib', 'action', 'main-index.js')], {
        cwd: workspace,
        env,
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let log = '';
      child.stdout.on('data', (d: Buffer) => (log += d.toString()));
      child.stderr.on('data', (d: Buffer) => (log += d.toString()));
      const timer = setTimeout(() => child.kill('SIGKILL'), 240_000);
      child.on('error', reject);
      child.on('close', (code) => {
        clearTimeout(timer);
        resolve({ code, log });
      });
    });
    expect(r.code, r.log).toBe(0);
    expect(await readFile(outputFile, 'utf8')).toMatch(/^complete<<\S+\ntrue$/m);

    const workdir = join(home, 'campaign-work', name);
    await expectJobsSawLoginShell(workdir, name, login);
    const secrets = [...Object.values(SECRETS), token, env.ACTIONS_RUNTIME_TOKEN!];
    expect(await expectNoSecretUnder([home, temp], secrets)).toBeGreaterThan(10);
    // The checkout holds what the checkout wrote, and nothing campaign or its tasks wrote.
    expect(await filesUnder(workspace)).toEqual([join(workspace, MANIFEST)]);
  }, 300_000);

  it('`campaign run` with sbatch on this machine gives the jobs the same environment, from a checkout that is not the workdir', async () => {
    const name = `self-hosted-cli-${RUN}`;
    const root = join(tempRoot(), 'cli');
    const home = join(root, 'home');
    const checkout = join(root, 'checkout');
    await mkdir(home, { recursive: true });
    await mkdir(checkout, { recursive: true });
    const file = await writeManifest(checkout, manifest(name, true));
    const login = loginShell(home);
    const r = await runCli(['run', file, '--state-dir', join(root, 'state'), '--poll', '1'], {
      cwd: checkout,
      timeoutMs: 180_000,
      env: { ...login, ...runnerVariables(root), GITHUB_TOKEN: `ghs_cli${RUN}`, ...SECRETS },
    });
    expect(r.code, r.stdout + r.stderr).toBe(0);
    const workdir = join(home, 'campaign-work', name);
    await expectJobsSawLoginShell(workdir, name, login);
    // The smoke checklist's command runs on the login node through the transport, not in a job.
    const check = (await readFile(join(workdir, 'check_env.txt'), 'utf8')).split('\n');
    expect(check.filter((l) => RUNNER_NAME.test(l))).toEqual([]);
    for (const [k, v] of Object.entries(login)) expect(check).toContain(`${k}=${v}`);
    expect(check).toContain(`PWD=${workdir}`);
    expect(await expectNoSecretUnder([home], [...Object.values(SECRETS), `ghs_cli${RUN}`])).toBeGreaterThan(4);
    expect(await filesUnder(checkout)).toEqual([file]);
  }, 240_000);
});

describe('LocalTransport: a command gets a login shell’s environment, whatever else this process holds', () => {
  it('HOME, PATH, locale, the module system and SLURM_CONF pass; the runner, its tokens and SBATCH_* do not', async () => {
    const planted: Record<string, string> = {
      ...SECRETS,
      GITHUB_TOKEN: `ghs_transport${RUN}`,
      GITHUB_REPOSITORY: 'octo-lab/experiments',
      RUNNER_TRACKING_ID: `github_${RUN}`,
      ACTIONS_RUNTIME_TOKEN: `runtime-${RUN}`,
      'INPUT_SSH-KEY': `key-${RUN}`,
      CAMPAIGN_SSH_KEY: `key-${RUN}`,
      // sbatch would read it as --export: campaign's submissions are the manifest's alone.
      SBATCH_EXPORT: 'NONE',
      LC_ALL: 'C.UTF-8',
      LMOD_CMD: '/opt/site/lmod/libexec/lmod',
      'BASH_FUNC_module%%': '() {  eval "$($LMOD_CMD bash "$@")"\n}',
      SLURM_CONF: '/etc/site/slurm.conf',
    };
    for (const [k, v] of Object.entries(planted)) vi.stubEnv(k, v);
    try {
      const r = await new LocalTransport({ home: tempRoot() }).exec('env; type -t module');
      expect(r.code, r.stderr).toBe(0);
      const lines = r.stdout.split('\n');
      expect(lines.filter((l) => /^(GITHUB_|RUNNER_|ACTIONS_|INPUT_|CAMPAIGN_SSH_|SBATCH_)/.test(l))).toEqual([]);
      for (const s of [...Object.values(SECRETS), planted.GITHUB_TOKEN!]) expect(r.stdout).not.toContain(s);
      expect(lines).toContain(`HOME=${tempRoot()}`);
      expect(lines).toContain(`PWD=${tempRoot()}`);
      expect(lines).toContain(`PATH=${process.env.PATH}`);
      for (const k of ['LC_ALL', 'LMOD_CMD', 'SLURM_CONF']) expect(lines).toContain(`${k}=${planted[k]}`);
      // The module system's exported function is one a login shell has.
      expect(lines.at(-2)).toBe('function');
    } finally {
      vi.unstubAllEnvs();
    }
  });
});
