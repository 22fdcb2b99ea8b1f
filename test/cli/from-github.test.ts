/**
 * `campaign status|summary|results FILE --from-github` against the GitHub stand-in
 * (test/helpers/github-standin.ts), here as a GitHub Enterprise Server (its API under /api/v3):
 * a campaign runs here, a stand-in workflow run uploads its state through the Action's own
 * adapter, the local state is gone, and the CLI reads the campaign from GitHub alone.
 */
import { execFileSync } from 'node:child_process';
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { parseRemote } from '../../src/github/repository.js';
import { unzip } from '../../src/github/unzip.js';
import { GitHubStandin, type Run } from '../helpers/github-standin.js';
import { runCli, useBuiltCliAndTemp, writeManifest } from '../helpers/cli.js';

const tempRoot = useBuiltCliAndTemp('from-github');

let gh: GitHubStandin;
let token: string;
let dir: string;
let manifest: string;
let local: { status: string; summary: string };
let trusted: { name: string; runId: number };
let intact: { name: string; runId: number };

/** The environment of a researcher's shell: no token of the test's own, the stand-in as the API. */
function shell(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const mine = Object.entries(process.env).filter(([k]) => k !== 'GITHUB_TOKEN' && k !== 'GH_TOKEN');
  return { ...Object.fromEntries(mine), GITHUB_API_URL: gh.apiUrl, ...extra };
}

/** Uploads a state directory as a job of `run` does, through the Action's adapter. */
async function upload(
  run: Run,
  campaign: string,
  stateDir: string,
): Promise<{ name: string; id: number; runId: number }> {
  const env = gh.jobEnv(run, { workspace: tempRoot(), job: 'settle' });
  for (const [k, v] of Object.entries(env)) vi.stubEnv(k, v);
  try {
    const { githubServices } = await import('../../src/action/github/services.js');
    return await githubServices(env, gh.issueToken(['actions:read'])).state.save(campaign, stateDir, 'settle');
  } finally {
    vi.unstubAllEnvs();
  }
}

const campaignYaml = (name: string) => `campaign: ${name}
cluster: { executor: local, name: here }
workdir: work
phases:
  - name: train
    grid: { seed: [1, 2] }
    command: >
      printf '{"loss": %s}\\n' \${seed} > \${output}
    output: results/\${tag}.jsonl
    walltime: 1m
    results: { metrics: [loss], record: last, replicates: seed }
`;

beforeAll(async () => {
  gh = await GitHubStandin.start({ apiPrefix: '/api/v3' });
  token = gh.issueToken(['actions:read']);
  dir = join(tempRoot(), 'checkout');
  await mkdir(join(dir, 'work'), { recursive: true });
  manifest = await writeManifest(dir, campaignYaml('fromgh'));
  // The manifest's checkout names the repository (here on a GHES host; GITHUB_API_URL points at the stand-in).
  execFileSync('git', ['init', '-q', dir]);
  execFileSync('git', ['-C', dir, 'remote', 'add', 'origin', `git@ghes.example.com:${gh.owner}/${gh.repo}.git`]);
  const state = join(dir, 'ci-state');
  const ran = await runCli(['run', manifest, '--state-dir', state, '--poll', '0.2']);
  expect(ran.code, ran.stderr).toBe(0);
  local = {
    status: (await runCli(['status', manifest, '--state-dir', state])).stdout,
    summary: (await runCli(['summary', manifest, '--state-dir', state])).stdout,
  };
  trusted = await upload(gh.newRun({ event: 'schedule' }), 'fromgh', state);
  // Newer, and not to be read: a fork's pull request planted a state of the same name.
  await upload(gh.newRun({ event: 'pull_request', headRepository: 'mallory/experiments' }), 'fromgh', state);
  // Another campaign of the same shape, whose newest trusted save is damaged on its way down.
  const damaged = join(tempRoot(), 'damaged');
  await mkdir(damaged);
  const stored = JSON.parse(await readFile(join(state, 'state.json'), 'utf8')) as { campaign: string };
  await writeFile(join(damaged, 'state.json'), JSON.stringify({ ...stored, campaign: 'damaged' }));
  intact = await upload(gh.newRun(), 'damaged', damaged);
  const flipped = await upload(gh.newRun(), 'damaged', damaged);
  gh.faults.push({ artifactId: flipped.id, kind: 'flip' });
  await rm(state, { recursive: true });

  const planted = join(tempRoot(), 'planted');
  await mkdir(planted);
  await writeFile(join(planted, 'state.json'), JSON.stringify({ version: 1, campaign: 'planted', tasks: {} }));
  await upload(gh.newRun({ event: 'pull_request', headRepository: 'mallory/experiments' }), 'planted', planted);
  await upload(gh.newRun({ event: 'pull_request' }), 'planted', planted);
}, 120_000);
afterAll(async () => {
  await gh?.close();
});

describe('campaign … --from-github', () => {
  it.concurrent(
    'renders status, summary and results of the state a trusted run uploaded, and says where it came from (GitHub stand-in)',
    async () => {
      const env = shell({ GITHUB_TOKEN: token });
      const status = await runCli(['status', manifest, '--from-github'], { env });
      expect(status.code, status.stderr).toBe(0);
      expect(status.stdout).toBe(local.status);
      expect(status.stderr).toMatch(
        new RegExp(
          `the state of fromgh from ${gh.owner}/${gh.repo}: artifact ${trusted.name.replace(/\./g, '\\.')} \\(id \\d+, made [^)]+\\) of run ${trusted.runId} \\(schedule on main, \\.github/workflows/campaign\\.yml\\), in /`,
        ),
      );
      expect(status.stderr).toMatch(
        /not read: campaign-state\.fromgh\..*it was made by a run from mallory\/experiments \(a fork\)/,
      );

      const summary = await runCli(['summary', manifest, '--from-github'], { env });
      expect(summary.code, summary.stderr).toBe(0);
      expect(summary.stdout).toBe(local.summary);

      const into = join(tempRoot(), 'read-here');
      const results = await runCli(['results', manifest, '--from-github', '--state-dir', into, '--format', 'csv'], {
        env,
      });
      expect(results.code, results.stderr).toBe(0);
      expect(results.stdout).toMatch(/^status,n,planned,loss_mean,.*\ncomplete,2,2,1\.5,/s);
      expect(results.stderr).toContain(`in ${into}`);
    },
    60_000,
  );

  it.concurrent(
    "refuses a fork's and a pull_request run's artifact, saying why (GitHub stand-in)",
    async () => {
      const other = await writeManifest(tempRoot(), campaignYaml('planted'), 'planted.yml');
      const r = await runCli(['status', other, '--from-github', '--repo', `${gh.owner}/${gh.repo}`], {
        env: shell({ GH_TOKEN: token }),
      });
      expect(r.code).toBe(2);
      expect(r.stderr).toMatch(/octo-lab\/experiments has no trusted state artifact of planted on branch main:/);
      expect(r.stderr).toMatch(
        /it was made by a run from mallory\/experiments \(a fork\), not from octo-lab\/experiments/,
      );
      expect(r.stderr).toMatch(
        /it was made by a pull_request run; only push, workflow_dispatch and schedule runs are trusted/,
      );
    },
    30_000,
  );

  it.concurrent(
    'passes over a download that does not match its digest, for the older intact one (GitHub stand-in)',
    async () => {
      const other = await writeManifest(tempRoot(), campaignYaml('damaged'), 'damaged.yml');
      const r = await runCli(['status', other, '--from-github', '--repo', `${gh.owner}/${gh.repo}`], {
        env: shell({ GITHUB_TOKEN: token }),
      });
      expect(r.code, r.stderr).toBe(0);
      expect(r.stdout).toBe(local.status);
      expect(r.stderr).toMatch(
        /not read: campaign-state\.damaged\.\S+ \(run \d+\): its download does not match its digest/,
      );
      expect(r.stderr).toContain(`artifact ${intact.name} `);
    },
    30_000,
  );

  it.concurrent(
    'says how to give a token when none is found (GitHub stand-in)',
    async () => {
      const nothing = join(tempRoot(), 'empty-path');
      await mkdir(nothing, { recursive: true });
      const r = await runCli(['status', manifest, '--from-github', '--repo', `${gh.owner}/${gh.repo}`], {
        env: shell({ PATH: nothing }),
      });
      expect(r.code).toBe(2);
      expect(r.stderr).toMatch(
        /no GitHub token to read octo-lab\/experiments's artifacts: GITHUB_TOKEN and GH_TOKEN are not set, and the GitHub CLI \(gh\) is not installed/,
      );
      expect(r.stderr).toMatch(/gh auth login.*or set GITHUB_TOKEN/);
    },
    30_000,
  );
});

describe('where the repository is', () => {
  it('reads a remote of github.com or a GHES host in its usual forms', () => {
    const repo = { owner: 'octo-lab', repo: 'experiments' };
    expect(parseRemote('https://github.com/octo-lab/experiments.git')).toEqual({ host: 'github.com', ...repo });
    expect(parseRemote('git@github.com:octo-lab/experiments.git')).toEqual({ host: 'github.com', ...repo });
    expect(parseRemote('ssh://git@GHES.example.com:2222/octo-lab/experiments')).toEqual({
      host: 'ghes.example.com',
      ...repo,
    });
    expect(parseRemote('/srv/git/experiments.git')).toBeUndefined();
  });

  it('refuses a damaged zip with what is wrong, not a crash', () => {
    expect(() => unzip(Buffer.from('not a zip at all, and long enough to look for its end'))).toThrow(
      /not a zip archive/,
    );
  });
});
