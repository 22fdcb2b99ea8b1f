/**
 * `campaign workflow`'s default action: the repository's own (`OWNER/REPO@v1` from origin on
 * github.com) where the repository holds the actions, as a fork of campaign does; else
 * DEFAULT_OPTIONS'. Real git repositories in a temp directory.
 */
import { execFileSync } from 'node:child_process';
import { copyFile, mkdir, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { DEFAULT_OPTIONS, githubRepo } from '../../src/app/workflow-file.js';
import { main } from '../../src/cli/main.js';
import { readOptions } from '../../src/workflow/render.js';
import { REPO, makeTemp } from '../helpers/cli.js';

let root: string | undefined;
afterAll(() => (root ? rm(root, { recursive: true, force: true }) : undefined));

/** A Slurm campaign: a local one's generated workflow is refused on GitHub-hosted runners. */
const MANIFEST = join(REPO, 'examples', 'distill.yml');

/** A directory with a manifest, made a git repository with that origin (none: no remote) unless `git` is false. */
async function repo(name: string, opts: { origin?: string; actions: boolean; git?: boolean }): Promise<string> {
  root ??= await makeTemp('workflow-uses');
  const dir = join(root, name);
  await mkdir(join(dir, 'campaigns'), { recursive: true });
  await copyFile(MANIFEST, join(dir, 'campaigns', 'distill.yml'));
  if (opts.actions) {
    await mkdir(join(dir, 'lint'));
    await writeFile(join(dir, 'action.yml'), 'name: campaign\n');
    await writeFile(join(dir, 'lint', 'action.yml'), 'name: campaign lint\n');
  }
  if (opts.git !== false) {
    execFileSync('git', ['init', '-q', dir]);
    if (opts.origin) execFileSync('git', ['-C', dir, 'remote', 'add', 'origin', opts.origin]);
  }
  return dir;
}

/** The `uses` that `campaign workflow --stdout` writes for the repository's manifest. */
async function usesOf(dir: string): Promise<{ uses: string | undefined; text: string }> {
  let text = '';
  let stderr = '';
  const out = vi.spyOn(process.stdout, 'write').mockImplementation((chunk) => ((text += String(chunk)), true));
  const err = vi.spyOn(process.stderr, 'write').mockImplementation((chunk) => ((stderr += String(chunk)), true));
  try {
    expect(await main(['workflow', join(dir, 'campaigns', 'distill.yml'), '--stdout']), stderr).toBe(0);
  } finally {
    out.mockRestore();
    err.mockRestore();
  }
  return { uses: readOptions(text)?.uses, text };
}

describe('campaign workflow: the default action', () => {
  it("a repository holding the actions, origin on github.com: its own, at v1, lint's too", async () => {
    const dir = await repo('fork', { origin: 'git@github.com:alice/campaign.git', actions: true });
    const { uses, text } = await usesOf(dir);
    expect(uses).toBe('alice/campaign@v1');
    expect(text).toContain('uses: alice/campaign/lint@v1');
    expect(text).toContain('uses: alice/campaign@v1');
  });

  it('a repository of campaigns only (no actions in it): the default, whatever its origin', async () => {
    const dir = await repo('experiments', { origin: 'https://github.com/alice/experiments', actions: false });
    expect((await usesOf(dir)).uses).toBe(DEFAULT_OPTIONS.uses);
  });

  it('no origin, or one not on github.com: the default', async () => {
    expect((await usesOf(await repo('no-origin', { actions: true }))).uses).toBe(DEFAULT_OPTIONS.uses);
    const gitlab = await repo('gitlab', { origin: 'https://gitlab.com/alice/campaign.git', actions: true });
    expect((await usesOf(gitlab)).uses).toBe(DEFAULT_OPTIONS.uses);
  });

  it('a directory that only looks like a repository, inside one with a github.com origin: the default', async () => {
    const outer = await repo('outer', { origin: 'https://github.com/alice/campaign.git', actions: false });
    const inner = join(outer, 'inner');
    await mkdir(join(inner, '.git'), { recursive: true });
    await mkdir(join(inner, 'campaigns'));
    await mkdir(join(inner, 'lint'));
    await copyFile(MANIFEST, join(inner, 'campaigns', 'distill.yml'));
    await writeFile(join(inner, 'action.yml'), 'name: campaign\n');
    await writeFile(join(inner, 'lint', 'action.yml'), 'name: campaign lint\n');
    expect((await usesOf(inner)).uses).toBe(DEFAULT_OPTIONS.uses);
  });

  it('an earlier workflow keeps the action it was written with', async () => {
    const dir = await repo('kept', { origin: 'https://github.com/alice/campaign', actions: true });
    const first = await usesOf(dir);
    await mkdir(join(dir, '.github', 'workflows'), { recursive: true });
    await writeFile(
      join(dir, '.github', 'workflows', 'campaign-distill-sweep.yml'),
      first.text.replaceAll('alice/campaign@v1', 'bob/campaign@v2'),
    );
    expect((await usesOf(dir)).uses).toBe('bob/campaign@v2');
  });
});

describe('githubRepo', () => {
  it.each([
    ['https://github.com/alice/campaign.git', 'alice/campaign'],
    ['https://github.com/alice/campaign', 'alice/campaign'],
    ['https://github.com/alice/campaign/', 'alice/campaign'],
    ['git@github.com:alice/my.campaign.git', 'alice/my.campaign'],
    ['ssh://git@github.com/alice/campaign.git', 'alice/campaign'],
    ['github.com:alice/campaign', 'alice/campaign'],
    // A token in the URL stays out: only the owner and the name are taken.
    ['https://x-access-token:ghs_secret@github.com/alice/campaign.git', 'alice/campaign'],
  ])('%s is %s', (url, expected) => {
    expect(githubRepo(url)).toBe(expected);
  });

  it.each([
    'https://gitlab.com/alice/campaign.git',
    'https://notgithub.com/alice/campaign.git',
    'https://github.com.example.org/alice/campaign.git',
    'https://github.com/alice',
    'https://github.com/alice/campaign/tree/main',
    '/srv/git/campaign.git',
    "https://github.com/alice/camp'aign",
  ])('%s is none', (url) => {
    expect(githubRepo(url)).toBeUndefined();
  });
});
