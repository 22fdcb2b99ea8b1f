/**
 * The action's GitHub adapters, driven through the real @actions/artifact and Octokit
 * (@actions/github with its retry and throttling plugins) against a local stand-in of GitHub's services
 * (test/helpers/github-standin.ts), never against github.com.
 */
import { createHash } from 'node:crypto';
import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { UserError } from '../../src/errors.js';
import { emptyState } from '../../src/state/state.js';
import type { GitHubServices } from '../../src/action/services/index.js';
import { GitHubStandin, type Run } from '../helpers/github-standin.js';
import { zipOf, type ZipEntry } from '../helpers/zip.js';
import { MAX_STATE_FILE_BYTES } from '../../src/github/state-artifacts.js';

let gh: GitHubStandin;
let root: string;
let token: string;
let github: typeof import('../../src/action/services/index.js');
let artifacts: typeof import('../../src/action/services/artifacts.js');

beforeAll(async () => {
  gh = await GitHubStandin.start();
  // @actions/github fixes its API root from GITHUB_API_URL when first imported, as in a runner's process.
  vi.stubEnv('GITHUB_API_URL', gh.url);
  github = await import('../../src/action/services/index.js');
  artifacts = await import('../../src/action/services/artifacts.js');
  root = await mkdtemp(join(tmpdir(), 'campaign-gh-services-'));
  token = gh.issueToken(['actions:read', 'checks:write', 'actions:write']);
});
afterAll(async () => {
  vi.unstubAllEnvs();
  await gh?.close();
  await rm(root, { recursive: true, force: true });
});
beforeEach(() => {
  gh.faults.length = 0;
});

let jobs = 0;
/** The services as a step of `job` in `run` sees them: the runner's variables in process.env, as the library reads them. */
function asJob(
  run: Run,
  job: string,
  withToken = token,
  companions: string[] = [],
): { services: GitHubServices; warnings: string[] } {
  const env = gh.jobEnv(run, { workspace: join(root, `ws-${++jobs}`), job });
  for (const [k, v] of Object.entries(env)) vi.stubEnv(k, v);
  const warnings: string[] = [];
  // Octokit's waits (a retry's backoff, a retry-after) last a millisecond a second here.
  return {
    services: github.githubServices(env, withToken, (w) => warnings.push(w), { waitUnitMs: 1 }, companions),
    warnings,
  };
}

/** A state directory: a campaign state (its schema keeps keys it does not know, here a marker), events, a lock. */
async function stateDir(campaign: string, marker: string, fields: object = {}): Promise<string> {
  const dir = join(root, `state-${++jobs}`);
  await mkdir(dir, { recursive: true });
  await writeFile(
    join(dir, 'state.json'),
    JSON.stringify({ ...emptyState(campaign, '2026-01-01T00:00:00.000Z'), marker, ...fields }),
  );
  await writeFile(join(dir, 'events.jsonl'), `{"marker":"${marker}"}\n`);
  await writeFile(join(dir, 'lock'), 'held by a live process');
  return dir;
}

const marker = async (dir: string): Promise<string> =>
  (JSON.parse(await readFile(join(dir, 'state.json'), 'utf8')) as { marker: string }).marker;

describe("state artifacts (against a local stand-in of GitHub's artifact service)", () => {
  it('saves the state directory without its lock and restores it in a later job of the run', async () => {
    const run = gh.newRun();
    const saved = await asJob(run, 'start').services.state.save('alpha', await stateDir('alpha', 'a1'), 'start');
    expect(artifacts.parseStateArtifactName(saved.name)).toEqual({
      campaign: 'alpha',
      runId: run.id,
      attempt: 1,
      job: 'start',
      seq: 1,
    });
    expect(saved.runId).toBe(run.id);

    const restoreCalls = gh.calls.length;
    const dir = join(root, 'fresh-1', 'state');
    const got = await asJob(run, 'settle').services.state.restoreNewest('alpha', dir);
    expect(got).toEqual(saved);
    expect(await marker(dir)).toBe('a1');
    expect(await readFile(join(dir, 'events.jsonl'), 'utf8')).toBe('{"marker":"a1"}\n');
    await expect(readFile(join(dir, 'lock'))).rejects.toThrow(/ENOENT/);
    // Found through the run's own artifact service, without the REST API.
    expect(gh.calls.slice(restoreCalls).some((c) => c.path.startsWith('/repos/'))).toBe(false);
  });

  it('keeps every save of a job under its own name, and restores the newest', async () => {
    const run = gh.newRun();
    const { services } = asJob(run, 'settle');
    const first = await services.state.save('beta', await stateDir('beta', 'b1'), 'settle');
    const second = await services.state.save('beta', await stateDir('beta', 'b2'), 'settle');
    expect(second.name).not.toBe(first.name);
    const dir = join(root, 'fresh-2');
    expect((await asJob(run, 'report').services.state.restoreNewest('beta', dir))?.name).toBe(second.name);
    expect(await marker(dir)).toBe('b2');
  });

  it("finds the newest state of earlier runs through the REST API and downloads it with the job's token", async () => {
    const r1 = gh.newRun();
    await asJob(r1, 'settle').services.state.save('gamma', await stateDir('gamma', 'g1'), 'settle');
    const r2 = gh.newRun();
    const newest = await asJob(r2, 'settle').services.state.save('gamma', await stateDir('gamma', 'g2'), 'settle');
    // Another campaign's newer artifact is not this campaign's state.
    await asJob(r2, 'other').services.state.save('gamma.x', await stateDir('gamma.x', 'x'), 'other');

    const r3 = gh.newRun();
    const before = gh.calls.length;
    const dir = join(root, 'fresh-3');
    const got = await asJob(r3, 'resume').services.state.restoreNewest('gamma', dir);
    expect(got).toEqual({ name: newest.name, id: newest.id, runId: r2.id });
    expect(await marker(dir)).toBe('g2');
    const paths = gh.calls.slice(before).map((c) => `${c.method} ${c.path} ${c.status}`);
    expect(paths).toContain(`GET /repos/${gh.owner}/${gh.repo}/actions/artifacts 200`);
    expect(paths).toContain(`GET /repos/${gh.owner}/${gh.repo}/actions/artifacts/${newest.id}/zip 302`);
  });

  it("pages through a busy repository's artifacts, and says when the state lies beyond what it reads", async () => {
    const saved = await asJob(gh.newRun(), 'settle').services.state.save(
      'theta',
      await stateDir('theta', 't1'),
      'settle',
    );
    gh.addUnrelatedArtifacts(gh.newRun(), 250);
    const dir = join(root, 'fresh-theta');
    expect((await asJob(gh.newRun(), 'resume').services.state.restoreNewest('theta', dir))?.id).toBe(saved.id);
    expect(await marker(dir)).toBe('t1');

    gh.addUnrelatedArtifacts(gh.newRun(), 1000);
    const { services, warnings } = asJob(gh.newRun(), 'resume');
    expect(await services.state.restoreNewest('theta', join(root, 'never'))).toBeUndefined();
    expect(warnings).toEqual([
      expect.stringMatching(/no state artifact of theta among the newest 1000 .* rebuilt from the cluster/),
    ]);
  });

  it('says there is none when the campaign has no artifact, and leaves the directory alone', async () => {
    const dir = await stateDir('delta', 'local');
    expect(await asJob(gh.newRun(), 'start').services.state.restoreNewest('delta', dir)).toBeUndefined();
    expect(await marker(dir)).toBe('local');
  });

  it('refuses a wrong token with a 401 instead of reading it as "no state"', async () => {
    const { services } = asJob(gh.newRun(), 'resume', 'ghs_not-a-token');
    const err = await services.state.restoreNewest('gamma', join(root, 'never')).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(UserError);
    expect(String(err)).toMatch(/refused \(401: Bad credentials\).*give the `token` input a valid one/);
    expect(gh.calls.at(-1)).toMatchObject({ path: `/repos/${gh.owner}/${gh.repo}/actions/artifacts`, status: 401 });
  });

  it('names the missing permission when the token cannot read earlier runs', async () => {
    const { services } = asJob(gh.newRun(), 'resume', gh.issueToken(['checks:write']));
    await expect(services.state.restoreNewest('gamma', join(root, 'never'))).rejects.toThrow(
      /403: Resource not accessible by integration.*lacks actions: read; add `actions: read` under the job's `permissions:`/,
    );
  });

  it('refuses an upload with a forged runtime token (401 from the artifact service)', async () => {
    const run = gh.newRun();
    const { services } = asJob(run, 'start');
    const forged = gh.runtimeToken(run).replace(/\.[^.]+$/, '.forged');
    vi.stubEnv('ACTIONS_RUNTIME_TOKEN', forged);
    await expect(services.state.save('eps', await stateDir('eps', 'e1'), 'start')).rejects.toThrow(/401/);
    expect(gh.artifacts.filter((a) => a.name.includes('.eps.'))).toEqual([]);
  });

  it.each(['flip', 'truncate'] as const)(
    'detects a damaged download (%s) and restores the previous intact state instead',
    async (kind) => {
      const campaign = `zeta-${kind}`;
      const r1 = gh.newRun();
      await asJob(r1, 'settle').services.state.save(campaign, await stateDir(campaign, 'intact'), 'settle');
      const r2 = gh.newRun();
      const damaged = await asJob(r2, 'settle').services.state.save(
        campaign,
        await stateDir(campaign, 'newest'),
        'settle',
      );
      gh.faults.push({ artifactId: damaged.id, kind });

      const dir = await stateDir(campaign, 'local');
      const { services, warnings } = asJob(gh.newRun(), 'resume');
      const got = await services.state.restoreNewest(campaign, dir);
      expect(got?.runId).toBe(r1.id);
      expect(await marker(dir)).toBe('intact');
      // Either fails the digest of the zip as downloaded, before anything of it is inflated.
      expect(warnings.join('\n')).toContain(
        `state artifact ${damaged.name} is unusable (its download does not match its digest`,
      );
    },
    60_000,
  );

  it("inflates only a save's own files, each within a state file's bounds: any other entry stays uninflated, and a state claiming more is passed over", async () => {
    const campaign = 'zeta-bounds';
    const r1 = gh.newRun();
    await asJob(r1, 'settle').services.state.save(campaign, await stateDir(campaign, 'intact'), 'settle');
    const newest = JSON.stringify({ ...emptyState(campaign, '2026-01-01T00:00:00.000Z'), marker: 'newest' });
    const plant = async (entries: ZipEntry[]): Promise<string> => {
      const saved = await asJob(gh.newRun(), 'settle').services.state.save(
        campaign,
        await stateDir(campaign, 'replaced'),
        'settle',
      );
      const stored = gh.artifacts.find((a) => a.id === saved.id)!;
      stored.bytes = zipOf(entries);
      stored.size = stored.bytes.length;
      stored.digest = `sha256:${createHash('sha256').update(stored.bytes).digest('hex')}`;
      return saved.name;
    };

    // Not a deflate stream at all, claiming 2 GiB: inflating it would fail, or fill the disk.
    await plant([
      { name: 'junk.bin', data: Buffer.from('not deflated'), stored: true, size: 2 ** 31 },
      { name: 'state.json', data: Buffer.from(newest) },
    ]);
    let dir = await stateDir(campaign, 'local');
    await asJob(gh.newRun(), 'resume').services.state.restoreNewest(campaign, dir);
    expect(await marker(dir)).toBe('newest');
    expect(await readdir(dir)).not.toContain('junk.bin');

    const name = await plant([{ name: 'state.json', data: Buffer.from(newest), size: MAX_STATE_FILE_BYTES + 1 }]);
    dir = await stateDir(campaign, 'local');
    const { services, warnings } = asJob(gh.newRun(), 'resume');
    await services.state.restoreNewest(campaign, dir);
    expect(await marker(dir)).toBe('newest');
    expect(warnings.join('\n')).toMatch(
      new RegExp(`state artifact ${name} is unusable \\(.*state\\.json.*${MAX_STATE_FILE_BYTES + 1}`),
    );
  });

  it('restores only a state its owners could have written: never a fork’s, a pull request’s, another branch’s or another workflow’s, and says why', async () => {
    const campaign = 'trust';
    const trusted = gh.newRun({ event: 'schedule' });
    const kept = await asJob(trusted, 'settle').services.state.save(
      campaign,
      await stateDir(campaign, 'trusted'),
      'settle',
    );
    const origins = [
      [{ event: 'pull_request', headRepository: 'mallory/experiments' }, /from mallory\/experiments \(a fork\)/],
      [{ event: 'pull_request' }, /made by a pull_request run; only push, workflow_dispatch and schedule/],
      [{ event: 'pull_request_target' }, /made by a pull_request_target run/],
      [{ branch: 'feature' }, /made on branch feature, not main/],
      [
        { workflowFile: 'other.yml' },
        /made by workflow \.github\/workflows\/other\.yml, not \.github\/workflows\/campaign\.yml/,
      ],
    ] as const;
    const planted: { name: string }[] = [];
    for (const [origin] of origins) {
      // Each plants a newer state whose gate passed, with a lock that would break every later run.
      const dir = await stateDir(campaign, `planted-${JSON.stringify(origin)}`);
      planted.push(await asJob(gh.newRun(origin), 'settle').services.state.save(campaign, dir, 'settle'));
    }
    const dir = join(root, 'fresh-trust');
    await mkdir(dir, { recursive: true });
    await writeFile(join(dir, 'notes.txt'), 'mine');
    const { services, warnings } = asJob(gh.newRun({ event: 'workflow_dispatch' }), 'resume');
    const got = await services.state.restoreNewest(campaign, dir);
    expect(got).toEqual({ name: kept.name, id: kept.id, runId: trusted.id });
    expect(await marker(dir)).toBe('trusted');
    for (const [i, [, why]] of origins.entries()) {
      const said = warnings.find((w) => w.includes(planted[i]!.name));
      expect(said, planted[i]!.name).toMatch(why);
      expect(said).toMatch(/is not restored: /);
    }
    // Only the state's files came: no planted lock; and nothing of the directory was removed.
    await expect(readFile(join(dir, 'lock'))).rejects.toThrow(/ENOENT/);
    expect(await readFile(join(dir, 'notes.txt'), 'utf8')).toBe('mine');
  });

  it('restores the state of the workflow the step names as its companion (the scheduled resume), and of no other', async () => {
    const campaign = 'companion';
    const resumed = await asJob(
      gh.newRun({ event: 'schedule', workflowFile: 'campaign-x-resume.yml' }),
      'resume',
    ).services.state.save(campaign, await stateDir(campaign, 'resumed'), 'resume');
    const other = gh.newRun({ workflowFile: 'campaign-y-resume.yml' });
    await asJob(other, 'settle').services.state.save(campaign, await stateDir(campaign, 'other'), 'settle');

    // Not named: the campaign workflow's job trusts its own workflow's runs alone.
    const alone = asJob(gh.newRun(), 'train-smoke');
    expect(await alone.services.state.restoreNewest(campaign, join(root, 'companion-alone'))).toBeUndefined();
    expect(alone.warnings.join('\n')).toMatch(
      /made by workflow \.github\/workflows\/campaign-x-resume\.yml, not \.github\/workflows\/campaign\.yml$/m,
    );
    // Named: the resume's state is restored, never the other workflow's, newer as it is.
    const { services, warnings } = asJob(gh.newRun(), 'train-smoke', token, ['campaign-x-resume.yml']);
    const dir = join(root, 'companion-named');
    expect(await services.state.restoreNewest(campaign, dir)).toMatchObject({ name: resumed.name });
    expect(await marker(dir)).toBe('resumed');
    expect(warnings.join('\n')).toMatch(
      /made by workflow \.github\/workflows\/campaign-y-resume\.yml, not \.github\/workflows\/campaign\.yml or \.github\/workflows\/campaign-x-resume\.yml/,
    );
  });

  it('with only untrusted states, restores none, and a user’s state directory is never deleted', async () => {
    const campaign = 'trust-none';
    await asJob(
      gh.newRun({ event: 'pull_request', headRepository: 'mallory/experiments' }),
      'settle',
    ).services.state.save(campaign, await stateDir(campaign, 'planted'), 'settle');
    const dir = await stateDir(campaign, 'local');
    await writeFile(join(dir, 'results.csv'), 'precious');
    const { services, warnings } = asJob(gh.newRun(), 'resume');
    expect(await services.state.restoreNewest(campaign, dir)).toBeUndefined();
    expect(warnings.join('\n')).toMatch(/is not restored: it was made by a run from mallory\/experiments \(a fork\)/);
    expect(await marker(dir)).toBe('local');
    expect(await readFile(join(dir, 'results.csv'), 'utf8')).toBe('precious');
  });

  it('passes over a save that parses but is no campaign state, beside another job of its run too, for the next', async () => {
    const campaign = 'theta';
    await asJob(gh.newRun(), 'settle').services.state.save(campaign, await stateDir(campaign, 'older'), 'settle');
    const run = gh.newRun();
    await asJob(run, 'train').services.state.save(campaign, await stateDir(campaign, 'train'), 'train');
    const bad = await asJob(run, 'evaluate').services.state.save(
      campaign,
      await stateDir(campaign, 'bad', { tasks: 'none' }),
      'evaluate',
    );
    const dir = join(root, 'fresh-theta');
    const { services, warnings } = asJob(gh.newRun(), 'resume');
    const got = await services.state.restoreNewest(campaign, dir);
    // The other job's save of that run, alone: nothing is merged with a save that is no state.
    expect(got?.name).toMatch(/\.train\.1$/);
    expect(got?.merged).toBeUndefined();
    expect(await marker(dir)).toBe('train');
    expect(warnings.join('\n')).toContain(
      `state artifact ${bad.name} is unusable (its state.json is not a campaign state (tasks: `,
    );
  });

  it('keeps the local state when every artifact is damaged, and says how to go on', async () => {
    const campaign = 'eta';
    const saved = await asJob(gh.newRun(), 'settle').services.state.save(
      campaign,
      await stateDir(campaign, 'only'),
      'settle',
    );
    gh.faults.push({ artifactId: saved.id, kind: 'flip' });
    const dir = await stateDir(campaign, 'local');
    const err = await asJob(gh.newRun(), 'resume')
      .services.state.restoreNewest(campaign, dir)
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(UserError);
    expect(String(err)).toMatch(
      /no usable state artifact of campaign eta:\n {2}campaign-state\.eta\.\d+-1\.settle\.1 \(id \d+, run \d+\): .*digest.*delete these artifacts.*rebuilt from the cluster/s,
    );
    expect(await marker(dir)).toBe('local');
  });
});

describe("the smoke gate check run (against a local stand-in of GitHub's checks API)", () => {
  const text =
    '| check | result |\n| --- | --- |\n| output_exists | **FAIL** | the job ran but wrote nothing: check the flush unit |';

  it('publishes each conclusion under the stable name on this commit; only success reads as success', async () => {
    const { services } = asJob(gh.newRun(), 'gate');
    const publish = (phase: string, conclusion: 'success' | 'failure' | 'pending') =>
      services.gate.publish({ campaign: 'c1', phase, conclusion, title: `${conclusion} title`, text });
    await publish('train', 'pending');
    await publish('train', 'failure');
    await publish('distill', 'success');
    expect(github.gateCheckName('c1', 'train')).toBe('campaign/c1/train/smoke-gate');
    const runs = gh.checkRuns.filter((c) => c.name.startsWith('campaign/c1/'));
    expect(runs.map((c) => [c.name, c.head_sha, c.status, c.conclusion])).toEqual([
      // Pending is an unfinished check, which branch protection does not count as passed.
      ['campaign/c1/train/smoke-gate', gh.sha, 'in_progress', null],
      ['campaign/c1/train/smoke-gate', gh.sha, 'completed', 'failure'],
      ['campaign/c1/distill/smoke-gate', gh.sha, 'completed', 'success'],
    ]);
    expect(runs[1]?.output).toEqual({ title: 'failure title', summary: 'failure title', text });
  });

  it("cuts a checklist longer than GitHub's limit for a check run's text", async () => {
    const { services } = asJob(gh.newRun(), 'gate');
    await services.gate.publish({
      campaign: 'c2',
      phase: 'p',
      conclusion: 'failure',
      title: 't',
      text: 'x'.repeat(70_000),
    });
    const out = gh.checkRunsNamed('campaign/c2/p/smoke-gate')[0]?.output?.text ?? '';
    expect(out.length).toBeLessThanOrEqual(65_535);
    expect(out).toMatch(/the job summary has the rest\)$/);
  });

  it('names checks: write when the token cannot create check runs', async () => {
    const { services } = asJob(gh.newRun(), 'gate', gh.issueToken(['actions:read']));
    await expect(
      services.gate.publish({ campaign: 'c4', phase: 'p', conclusion: 'success', title: 't', text: 't' }),
    ).rejects.toThrow(/lacks checks: write/);
    expect(gh.checkRunsNamed('campaign/c4/p/smoke-gate')).toEqual([]);
  });
});

describe('the run context', () => {
  it("names the runner's variable that is missing", () => {
    const env = gh.jobEnv(gh.newRun(), { workspace: root, job: 'x' });
    delete env.GITHUB_REPOSITORY;
    expect(() => github.githubServices(env, token)).toThrow(
      /GITHUB_REPOSITORY is not set.*inside a GitHub Actions job/,
    );
    expect(() => github.githubServices({ ...env, GITHUB_REPOSITORY: 'o/r', GITHUB_SHA: 'main' }, token)).toThrow(
      /GITHUB_SHA is not a commit id/,
    );
  });
});

describe("the handover (against a local stand-in of GitHub's actions API)", () => {
  it('dispatches the same workflow on the same ref with the campaign file', async () => {
    const { services } = asJob(gh.newRun(), 'settle');
    await services.handover.dispatchAgain({ campaign: 'campaigns/x.yml' });
    expect(gh.dispatches.at(-1)).toEqual({
      workflow: gh.workflowFile,
      ref: 'refs/heads/main',
      inputs: { campaign: 'campaigns/x.yml' },
    });
  });

  it('says a workflow without workflow_dispatch, and the way out, when GitHub refuses the dispatch (422)', async () => {
    const { services } = asJob(gh.newRun(), 'settle');
    gh.dispatchable = false;
    try {
      const e = await services.handover.dispatchAgain({}).catch((x: unknown) => x);
      expect(e).toBeInstanceOf(UserError);
      expect((e as UserError).message).toMatch(/refused \(422: Workflow does not have 'workflow_dispatch' trigger\)/);
      expect((e as UserError).problems[0]!.fix).toMatch(/add `workflow_dispatch:` to the `on:` of .*handover: none/);
    } finally {
      gh.dispatchable = true;
    }
  });

  it('names a spent rate limit as such, with its reset, not as a missing permission', async () => {
    const { services } = asJob(gh.newRun(), 'settle');
    gh.rateLimited = true;
    try {
      const e = await services.handover.dispatchAgain({}).catch((x: unknown) => x);
      expect(e).toBeInstanceOf(UserError);
      expect((e as UserError).message).toMatch(
        /^GitHub's API rate limit is spent: .*\(403: API rate limit exceeded.*\) \(it resets at 2027-01-01T00:00:00.000Z\)/,
      );
      expect((e as UserError).problems[0]!.fix).not.toMatch(/permission/);
    } finally {
      gh.rateLimited = false;
    }
  });

  it('names actions: write when the token cannot dispatch', async () => {
    const { services } = asJob(gh.newRun(), 'settle', gh.issueToken(['actions:read', 'checks:write']));
    await expect(services.handover.dispatchAgain({ campaign: 'c.yml' })).rejects.toThrow(/lacks actions: write/);
  });
});

describe("REST through Octokit (against a local stand-in of GitHub's REST API)", () => {
  it('retries a call GitHub answered with a server error, and then it succeeds', async () => {
    const { services } = asJob(gh.newRun(), 'settle');
    const before = gh.calls.length;
    gh.serverErrors = 2;
    await services.handover.dispatchAgain({ campaign: 'retried.yml' });
    expect(gh.calls.slice(before).map((c) => c.status)).toEqual([502, 502, 204]);
    expect(gh.dispatches.at(-1)?.inputs).toEqual({ campaign: 'retried.yml' });
  });

  it('waits out a secondary rate limit once, saying so; hit again, names it as such', async () => {
    const { services, warnings } = asJob(gh.newRun(), 'gate');
    const report = { campaign: 'c5', phase: 'p', conclusion: 'success', title: 't', text: 't' } as const;
    const before = gh.calls.length;
    gh.secondaryLimits = 1;
    await services.gate.publish(report);
    expect(gh.calls.slice(before).map((c) => c.status)).toEqual([403, 201]);
    expect(gh.checkRunsNamed('campaign/c5/p/smoke-gate')).toHaveLength(1);
    expect(warnings).toEqual([expect.stringMatching(/^GitHub's secondary rate limit: waiting 1 s before POST /)]);

    gh.secondaryLimits = 2;
    const e = await services.gate.publish(report).catch((x: unknown) => x);
    expect(e).toBeInstanceOf(UserError);
    expect((e as UserError).message).toMatch(/^GitHub's secondary rate limit stopped this again after a wait: POST /);
    expect((e as UserError).problems[0]!.fix).not.toMatch(/permission/);
  });
});
