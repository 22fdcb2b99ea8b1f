/**
 * The action's GitHub adapters on GitHub Enterprise Server, whose REST API is under /api/v3 of
 * its host: every REST call, the artifact listing and the earlier run's download included, goes
 * to GITHUB_API_URL as the runner sets it. A file of its own: @actions/github reads
 * GITHUB_API_URL once, when first imported in a process, as it is in a runner's.
 */
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { emptyState } from '../../src/state/state.js';
import { GitHubStandin, TWIRP_PREFIX, type Run } from '../helpers/github-standin.js';

let gh: GitHubStandin;
let root: string;
let github: typeof import('../../src/action/services/index.js');

beforeAll(async () => {
  gh = await GitHubStandin.start({ apiPrefix: '/api/v3' });
  vi.stubEnv('GITHUB_API_URL', gh.apiUrl);
  github = await import('../../src/action/services/index.js');
  root = await mkdtemp(join(tmpdir(), 'campaign-gh-ghes-'));
});
afterAll(async () => {
  vi.unstubAllEnvs();
  await gh?.close();
  await rm(root, { recursive: true, force: true });
});

function services(run: Run, job: string) {
  const env = gh.jobEnv(run, { workspace: root, job });
  for (const [k, v] of Object.entries(env)) vi.stubEnv(k, v);
  const token = gh.issueToken(['actions:read', 'checks:write', 'actions:write']);
  return github.githubServices(env, token, () => {}, { waitUnitMs: 1 });
}

describe('GitHub Enterprise Server (a stand-in serving its REST API under /api/v3)', () => {
  it('sends every REST call under GITHUB_API_URL: the listing, the run, the download, the check run, the dispatch', async () => {
    const dir = join(root, 'saved');
    await mkdir(dir, { recursive: true });
    await writeFile(
      join(dir, 'state.json'),
      JSON.stringify({ ...emptyState('ghes', '2026-01-01T00:00:00.000Z'), marker: 'm1' }),
    );
    const saved = await services(gh.newRun(), 'settle').state.save('ghes', dir, 'settle');

    const later = services(gh.newRun(), 'resume');
    const into = join(root, 'restored');
    expect((await later.state.restoreNewest('ghes', into))?.id).toBe(saved.id);
    expect(JSON.parse(await readFile(join(into, 'state.json'), 'utf8'))).toMatchObject({ marker: 'm1' });
    await later.gate.publish({ campaign: 'ghes', phase: 'p', conclusion: 'success', title: 't', text: 't' });
    await later.handover.dispatchAgain({ campaign: 'c.yml' });

    const rest = gh.calls.filter((c) => !c.path.startsWith(TWIRP_PREFIX) && !c.path.startsWith('/devstoreaccount1/'));
    const repo = `/api/v3/repos/${gh.owner}/${gh.repo}`;
    expect(rest.map((c) => `${c.method} ${c.path} ${c.status}`)).toEqual([
      `GET ${repo}/actions/artifacts 200`,
      expect.stringMatching(new RegExp(`^GET ${repo}/actions/runs/\\d+ 200$`)),
      `GET ${repo}/actions/artifacts/${saved.id}/zip 302`,
      `POST ${repo}/check-runs 201`,
      `POST ${repo}/actions/workflows/campaign.yml/dispatches 204`,
    ]);
  });
});
