/**
 * `campaign status|summary|results FILE --from-github` against the GitHub stand-in
 * (test/helpers/github-standin.ts), here as a GitHub Enterprise Server (its API under /api/v3):
 * a campaign runs here, a stand-in workflow run uploads its state through the Action's own
 * adapter, the local state is gone, and the CLI reads the campaign from GitHub alone.
 */
import { execFileSync } from 'node:child_process';
import { chmod, mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { endpointFor, parseRemote } from '../../src/github/repository.js';
import { crc32, unzip } from '../../src/github/unzip.js';
import { zipOf } from '../helpers/zip.js';
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
let beforeSchemaBad: { name: string; runId: number };
let beforePadded: { name: string; runId: number };

const TOKEN_VARIABLES = ['GITHUB_TOKEN', 'GH_TOKEN', 'GH_ENTERPRISE_TOKEN', 'GITHUB_ENTERPRISE_TOKEN', 'GH_HOST'];

/** The environment of a researcher's shell: no token of the test's own, the stand-in as the API. */
function shell(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const mine = Object.entries(process.env).filter(([k]) => !TOKEN_VARIABLES.includes(k));
  return { ...Object.fromEntries(mine), GITHUB_API_URL: gh.apiUrl, ...extra };
}

/** Uploads a state directory as a job of `run` does, through the Action's adapter. */
async function upload(
  run: Run,
  campaign: string,
  stateDir: string,
  job = 'settle',
): Promise<{ name: string; id: number; runId: number }> {
  const env = gh.jobEnv(run, { workspace: tempRoot(), job });
  for (const [k, v] of Object.entries(env)) vi.stubEnv(k, v);
  try {
    const { githubServices } = await import('../../src/action/services/index.js');
    return await githubServices(env, gh.issueToken(['actions:read'])).state.save(campaign, stateDir, job);
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
  // The manifest's checkout names the repository on the GHES host that GITHUB_API_URL names (the stand-in, on loopback).
  execFileSync('git', ['init', '-q', dir]);
  execFileSync('git', ['-C', dir, 'remote', 'add', 'origin', `git@127.0.0.1:${gh.owner}/${gh.repo}.git`]);
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

  // Another, whose newest run's two jobs saved: one a state that parses but is no campaign state.
  let saves = 0;
  const saved = async (campaign: string, tasks?: unknown): Promise<string> => {
    const into = join(tempRoot(), `${campaign}-${++saves}`);
    await mkdir(into);
    await writeFile(
      join(into, 'state.json'),
      JSON.stringify({ ...stored, campaign, ...(tasks === undefined ? {} : { tasks }) }),
    );
    return into;
  };
  beforeSchemaBad = await upload(gh.newRun(), 'schemabad', await saved('schemabad'));
  const twoJobs = gh.newRun();
  await upload(twoJobs, 'schemabad', await saved('schemabad'), 'train');
  await upload(twoJobs, 'schemabad', await saved('schemabad', 'none'), 'evaluate');
  // And one whose newest download is longer than its listing says.
  beforePadded = await upload(gh.newRun(), 'padded', await saved('padded'));
  const padded = await upload(gh.newRun(), 'padded', await saved('padded'));
  gh.faults.push({ artifactId: padded.id, kind: 'pad' });
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
      const env = shell({ GH_ENTERPRISE_TOKEN: token });
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
        env: shell({ GITHUB_ENTERPRISE_TOKEN: token }),
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
    60_000,
  );

  it.concurrent(
    'passes over a download that does not match its digest, for the older intact one (GitHub stand-in)',
    async () => {
      const other = await writeManifest(tempRoot(), campaignYaml('damaged'), 'damaged.yml');
      const r = await runCli(['status', other, '--from-github', '--repo', `${gh.owner}/${gh.repo}`], {
        env: shell({ GH_ENTERPRISE_TOKEN: token }),
      });
      expect(r.code, r.stderr).toBe(0);
      expect(r.stdout).toBe(local.status);
      expect(r.stderr).toMatch(
        /not read: campaign-state\.damaged\.\S+ \(run \d+\): its download does not match its digest/,
      );
      expect(r.stderr).toContain(`artifact ${intact.name} `);
    },
    60_000,
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
        /no GitHub token to read octo-lab\/experiments's artifacts: GH_ENTERPRISE_TOKEN and GITHUB_ENTERPRISE_TOKEN are not set, and the GitHub CLI \(gh\) is not installed/,
      );
      expect(r.stderr).toMatch(/gh auth login --hostname 127\.0\.0\.1.*or set GH_ENTERPRISE_TOKEN/);
    },
    60_000,
  );

  it.concurrent(
    'passes over a save that parses but is no campaign state, in a merge of two jobs too, for the next (GitHub stand-in)',
    async () => {
      const other = await writeManifest(tempRoot(), campaignYaml('schemabad'), 'schemabad.yml');
      const r = await runCli(['status', other, '--from-github', '--repo', `${gh.owner}/${gh.repo}`], {
        env: shell({ GH_ENTERPRISE_TOKEN: token }),
      });
      expect(r.code, r.stderr).toBe(0);
      expect(r.stdout).toBe(local.status);
      expect(r.stderr).toMatch(
        /not read: campaign-state\.schemabad\.\S+\.evaluate\.\d+ \(run \d+\): its state\.json is not a campaign state \(tasks: /,
      );
      // The other job's save of that run is read alone, merged with nothing.
      expect(r.stderr).toMatch(/artifact campaign-state\.schemabad\.\S+\.train\.\d+ .*\), in \//);
      expect(r.stderr).not.toContain(beforeSchemaBad.name);
    },
    60_000,
  );

  it.concurrent(
    'reads a download no further than the size its listing gives (GitHub stand-in)',
    async () => {
      const other = await writeManifest(tempRoot(), campaignYaml('padded'), 'padded.yml');
      const r = await runCli(['status', other, '--from-github', '--repo', `${gh.owner}/${gh.repo}`], {
        env: shell({ GH_ENTERPRISE_TOKEN: token }),
      });
      expect(r.code, r.stderr).toBe(0);
      expect(r.stderr).toMatch(
        /not read: campaign-state\.padded\.\S+ \(run \d+\): artifact \d+'s download is longer than the \d+ bytes its listing gives/,
      );
      expect(r.stderr).toContain(`artifact ${beforePadded.name} `);
    },
    60_000,
  );
});

describe('where a token goes', () => {
  // A stand-in of its own, so that no other test's calls reach it.
  let watched: GitHubStandin;
  beforeAll(async () => {
    watched = await GitHubStandin.start({ apiPrefix: '/api/v3' });
  });
  afterAll(async () => {
    await watched?.close();
  });

  /** The calls `watched` took while `f` ran. */
  async function callsDuring(f: () => Promise<void>): Promise<number> {
    const before = watched.calls.length;
    await f();
    return watched.calls.length - before;
  }

  it('refuses an origin remote that is not GitHub, with the fix, and sends nothing anywhere (GitHub stand-in)', async () => {
    const elsewhere = join(tempRoot(), 'gitlab-checkout');
    await mkdir(elsewhere, { recursive: true });
    const file = await writeManifest(elsewhere, campaignYaml('fromgh'));
    execFileSync('git', ['init', '-q', elsewhere]);
    execFileSync('git', ['-C', elsewhere, 'remote', 'add', 'origin', `git@gitlab.com:${gh.owner}/${gh.repo}.git`]);
    const tokens = { GITHUB_TOKEN: token, GH_ENTERPRISE_TOKEN: token, GITHUB_API_URL: watched.apiUrl };
    for (const env of [shell(tokens), { ...shell(tokens), GITHUB_API_URL: '' }]) {
      let r = { code: 0 as number | null, stderr: '' };
      expect(
        await callsDuring(async () => {
          r = await runCli(['status', file, '--from-github'], { env });
        }),
      ).toBe(0);
      expect(r.code).toBe(2);
      expect(r.stderr).toContain(
        `(git@gitlab.com:${gh.owner}/${gh.repo}.git) is on gitlab.com, which is neither github.com nor the GitHub Enterprise Server that GITHUB_API_URL names`,
      );
      expect(r.stderr).toContain('no token is sent there');
      expect(r.stderr).toMatch(
        /give --repo OWNER\/REPO .*set GITHUB_API_URL to its API \(https:\/\/gitlab\.com\/api\/v3\)/,
      );
    }
  }, 30_000);

  it("sends github.com's token (GITHUB_TOKEN, GH_TOKEN) to no GitHub Enterprise Server (GitHub stand-in)", async () => {
    const nothing = join(tempRoot(), 'no-gh');
    await mkdir(nothing, { recursive: true });
    let r = { code: 0 as number | null, stderr: '' };
    const sent = await callsDuring(async () => {
      r = await runCli(['status', manifest, '--from-github', '--repo', `${gh.owner}/${gh.repo}`], {
        env: shell({ GITHUB_TOKEN: token, GH_TOKEN: token, PATH: nothing, GITHUB_API_URL: watched.apiUrl }),
      });
    });
    expect(sent).toBe(0);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('GH_ENTERPRISE_TOKEN and GITHUB_ENTERPRISE_TOKEN are not set');
  }, 30_000);

  it("takes a GitHub Enterprise Server's token from `gh auth token --hostname HOST`, as the GitHub CLI keeps it (GitHub stand-in)", async () => {
    // The GitHub CLI's interface: `gh auth token --hostname HOST` prints that host's token.
    const bin = join(tempRoot(), 'gh-bin');
    await mkdir(bin, { recursive: true });
    const asked = join(bin, 'asked');
    await writeFile(
      join(bin, 'gh'),
      `#!/bin/sh\necho "$*" >> ${asked}\n[ "$*" = "auth token --hostname 127.0.0.1" ] && echo ${token}\n`,
    );
    await chmod(join(bin, 'gh'), 0o755);
    const r = await runCli(['status', manifest, '--from-github', '--repo', `${gh.owner}/${gh.repo}`], {
      env: shell({ PATH: bin }),
    });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toBe(local.status);
    expect(await readFile(asked, 'utf8')).toBe('auth token --hostname 127.0.0.1\n');
  }, 30_000);

  it('sends a token only to api.github.com, or to the GitHub Enterprise Server GITHUB_API_URL names, for a repository on that host', () => {
    const dotcom = {
      apiUrl: 'https://api.github.com',
      tokenVariables: ['GITHUB_TOKEN', 'GH_TOKEN'],
      ghHost: 'github.com',
    };
    for (const api of [undefined, '', 'https://api.github.com', 'https://ghes.example.com/api/v3']) {
      expect(endpointFor('github.com', api)).toEqual(dotcom);
      expect(endpointFor('ssh.github.com', api)).toEqual(dotcom);
      expect(endpointFor('gitlab.com', api)).toBeUndefined();
      expect(endpointFor('github.com.example.org', api)).toBeUndefined();
    }
    expect(endpointFor('ghes.example.com', undefined)).toBeUndefined();
    expect(endpointFor('ghes.example.com', 'https://other.example.com/api/v3')).toBeUndefined();
    expect(endpointFor('ghes.example.com', 'https://GHES.example.com/api/v3')).toEqual({
      apiUrl: 'https://GHES.example.com/api/v3',
      tokenVariables: ['GH_ENTERPRISE_TOKEN', 'GITHUB_ENTERPRISE_TOKEN'],
      ghHost: 'ghes.example.com',
    });
  });
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
    expect(() => unzip(Buffer.from('not a zip at all, and long enough to look for its end'), WANT)).toThrow(
      /not a zip archive/,
    );
  });
});

const WANT = { names: new Set(['state.json', 'events.jsonl']), limit: 2 ** 20 };

describe("reading an artifact's zip within bounds", () => {
  const state = Buffer.from('{"version":1,"campaign":"c","tasks":{}}');

  it('reads the entries asked for, and passes over any other uninflated', () => {
    // Not a deflate stream at all: inflating it would fail.
    const other = { name: 'junk.bin', data: Buffer.from('not deflated'), stored: true, size: 2 ** 31 };
    const files = unzip(zipOf([other, { name: 'state.json', data: state }]), WANT);
    expect([...files.keys()]).toEqual(['state.json']);
    expect(files.get('state.json')).toEqual(state);
  });

  it('stops inflating an entry at the size it declares: a small archive of many zeros is refused unread', () => {
    const zeros = Buffer.alloc(16 * 2 ** 20);
    const bomb = zipOf([{ name: 'state.json', data: zeros, size: 100, crc: crc32(zeros.subarray(0, 100)) }]);
    expect(bomb.length).toBeLessThan(64 * 1024);
    expect(() => unzip(bomb, WANT)).toThrow('zip entry state.json inflates past the 100 bytes it declares');
  });

  it('refuses an entry that declares more than a state file may hold', () => {
    expect(() => unzip(zipOf([{ name: 'events.jsonl', data: state, size: 2 ** 20 + 1 }]), WANT)).toThrow(
      `zip entry events.jsonl declares ${2 ** 20 + 1} bytes, more than the ${2 ** 20} a state file may hold`,
    );
  });

  it('refuses an entry whose bytes do not match its CRC-32, stored or deflated', () => {
    for (const stored of [true, false]) {
      const bad = zipOf([{ name: 'state.json', data: state, crc: (crc32(state) ^ 1) >>> 0, stored }]);
      expect(() => unzip(bad, WANT)).toThrow('zip entry state.json does not match its CRC-32');
    }
  });

  it('refuses an archive holding one state file twice', () => {
    const twice = zipOf([
      { name: 'state.json', data: state },
      { name: 'state.json', data: Buffer.from('{}') },
    ]);
    expect(() => unzip(twice, WANT)).toThrow('the zip holds state.json twice');
  });
});
