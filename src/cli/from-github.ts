/**
 * `--from-github`: the newest trusted state artifact of the campaign, fetched from the
 * repository's workflow runs into a directory here, so that `status`, `summary` and `results`
 * read a campaign that runs in CI as they read a local one. Trusted as the Action trusts a state
 * it restores (src/github/state-artifacts.ts): a run of a workflow in .github/workflows of this
 * repository (no fork), on the branch, started by push, workflow_dispatch or schedule.
 */
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { z } from 'zod';
import type { Campaign } from '../app/load.js';
import { mergeSaves } from '../app/merge-saves.js';
import { DROVE_FILE } from '../decide/parallel-states.js';
import { UserError } from '../errors.js';
import { GitHubReader } from '../github/reader.js';
import { apiUrlFor, parseRemote, parseRepoOption, type Repository } from '../github/repository.js';
import { parseStateArtifactName, STATE_FILES, untrustedBecause, type WorkflowRun } from '../github/state-artifacts.js';
import { unzip } from '../github/unzip.js';

export interface FromGitHubOptions {
  /** `OWNER/REPO`; else the `origin` remote of the manifest's checkout. */
  repo?: string;
  /** Else the repository's default branch. */
  branch?: string;
  /** Where the state lands; else a new temporary directory. */
  stateDir?: string;
}

/** Earlier runs' artifacts are listed newest first; the state is on the first pages or expired. */
const MAX_PAGES = 10;

const storedState = z.object({ campaign: z.string() });

/** Fetches the campaign's state and returns the campaign reading it from where it landed. */
export async function campaignFromGitHub(
  c: Campaign,
  o: FromGitHubOptions,
  env: NodeJS.ProcessEnv,
  note: (m: string) => void,
): Promise<Campaign> {
  const where = o.repo !== undefined ? parseRepoOption(o.repo) : await originOf(c.file);
  const reader = new GitHubReader({
    apiUrl: env.GITHUB_API_URL || apiUrlFor(where.host),
    token: await tokenFor(where, env),
    owner: where.owner,
    repo: where.repo,
  });
  const branch = o.branch ?? (await reader.defaultBranch());
  const campaign = c.manifest.campaign;
  const runs = new Map<number, Promise<WorkflowRun>>();
  const skipped: string[] = [];
  for (let page = 1; page <= MAX_PAGES; page++) {
    const { artifacts, total_count } = await reader.artifacts(page);
    for (const a of artifacts) {
      const runId = a.workflow_run?.id;
      if (a.expired || !runId || parseStateArtifactName(a.name)?.campaign !== campaign) continue;
      if (!runs.has(runId)) runs.set(runId, reader.run(runId));
      const run = await runs.get(runId)!;
      const why = untrustedBecause(run, { repository: reader.fullName, branch });
      if (why !== undefined) {
        skipped.push(`${a.name} (run ${runId}): ${why}`);
        continue;
      }
      let zip: Buffer;
      try {
        zip = await reader.artifactZip(a.id);
      } catch (e) {
        // A refusal of the token holds for every artifact; a failed download (expired, cut off) is this one's.
        if (e instanceof UserError) throw e;
        skipped.push(`${a.name} (run ${runId}): ${(e as Error).message}`);
        continue;
      }
      const files = stateFiles(zip, a.digest ?? undefined, campaign);
      if (typeof files === 'string') {
        skipped.push(`${a.name} (run ${runId}): ${files}`);
        continue;
      }
      // Jobs of its run may have driven phases at once: the newest save of each other job is merged in.
      const jobs = new Set([parseStateArtifactName(a.name)!.job]);
      const siblings: { name: string; files: Map<string, Buffer> }[] = [];
      for (const b of artifacts) {
        const job = parseStateArtifactName(b.name)?.job;
        if (b.workflow_run?.id !== runId || b.expired || job === undefined || jobs.has(job)) continue;
        if (parseStateArtifactName(b.name)?.campaign !== campaign) continue;
        jobs.add(job);
        const got = stateFiles(await reader.artifactZip(b.id), b.digest ?? undefined, campaign);
        if (typeof got === 'string') skipped.push(`${b.name} (run ${runId}): ${got}`);
        else siblings.push({ name: b.name, files: got });
      }
      const dir =
        o.stateDir !== undefined ? resolve(o.stateDir) : await mkdtemp(join(tmpdir(), 'campaign-from-github-'));
      await install(siblings.length > 0 ? await merged([files, ...siblings.map((x) => x.files)]) : files, dir);
      for (const s of skipped) note(`not read: ${s}`);
      const beside = siblings.length > 0 ? `, merged with ${siblings.map((x) => x.name).join(', ')}` : '';
      note(
        `the state of ${campaign} from ${reader.fullName}: artifact ${a.name} (id ${a.id}, made ${a.created_at ?? 'at an unknown time'}) of run ${runId} (${run.event} on ${branch}, ${run.path})${beside}, in ${dir}`,
      );
      return { ...c, stateDir: dir };
    }
    if (page * 100 >= total_count) break;
  }
  throw new UserError({
    message: `${reader.fullName} has no trusted state artifact of ${campaign} on branch ${branch}${skipped.length > 0 ? `:\n  ${skipped.join('\n  ')}` : ''}`,
    fix:
      skipped.length > 0
        ? 'only a push, workflow_dispatch or schedule run of a workflow of this repository on that branch is read: run the campaign there (or give --branch)'
        : 'run the campaign in a workflow of that repository first (campaign workflow FILE writes one), or give --repo and --branch',
  });
}

/** The state's files of a downloaded artifact, or what is wrong with it. */
function stateFiles(zip: Buffer, digest: string | undefined, campaign: string): Map<string, Buffer> | string {
  if (digest?.startsWith('sha256:') && createHash('sha256').update(zip).digest('hex') !== digest.slice(7))
    return 'its download does not match its digest';
  let files: Map<string, Buffer>;
  try {
    files = unzip(zip);
  } catch (e) {
    return (e as Error).message;
  }
  const state = files.get('state.json');
  if (state === undefined) return 'it holds no state.json';
  let parsed;
  try {
    parsed = storedState.safeParse(JSON.parse(state.toString('utf8')));
  } catch {
    return 'its state.json does not parse';
  }
  if (!parsed.success || parsed.data.campaign !== campaign) return 'its state.json is not this campaign’s state';
  return files;
}

/** The saves of jobs that ran at once (newest first) as one state's files (app/merge-saves.ts). */
async function merged(saves: Map<string, Buffer>[]): Promise<Map<string, Buffer>> {
  const dirs: string[] = [];
  try {
    for (const files of saves) {
      const dir = await mkdtemp(join(tmpdir(), 'campaign-from-github-save-'));
      dirs.push(dir);
      for (const f of [...STATE_FILES, DROVE_FILE]) {
        const bytes = files.get(f);
        if (bytes !== undefined) await writeFile(join(dir, f), bytes);
      }
    }
    const m = await mergeSaves(dirs);
    return new Map([
      ['state.json', Buffer.from(m.state)],
      ['events.jsonl', Buffer.from(m.events)],
    ]);
  } finally {
    for (const dir of dirs) await rm(dir, { recursive: true, force: true });
  }
}

/** The state's own files (never anything else an artifact holds), replacing those of an earlier state there. */
async function install(files: Map<string, Buffer>, dir: string): Promise<void> {
  await mkdir(dir, { recursive: true });
  for (const f of [...STATE_FILES.slice(1), STATE_FILES[0]!]) {
    const bytes = files.get(f);
    if (bytes === undefined) await rm(join(dir, f), { force: true });
    else await writeFile(join(dir, f), bytes);
  }
}

/** The repository the `origin` remote of the manifest's checkout names. */
async function originOf(file: string): Promise<Repository> {
  const url = await run('git', ['remote', 'get-url', 'origin'], dirname(resolve(file)));
  const repo = url.ok ? parseRemote(url.stdout) : undefined;
  if (repo === undefined)
    throw new UserError({
      message: url.ok
        ? `the origin remote of ${file}'s checkout (${url.stdout.trim()}) is not a GitHub repository`
        : `cannot tell ${file}'s repository: its checkout has no origin remote (${url.said})`,
      fix: 'give --repo OWNER/REPO',
    });
  return repo;
}

/** GITHUB_TOKEN, GH_TOKEN, else the GitHub CLI's login for the host. */
async function tokenFor(where: Repository, env: NodeJS.ProcessEnv): Promise<string> {
  const given = env.GITHUB_TOKEN || env.GH_TOKEN;
  if (given) return given;
  const gh = await run(
    'gh',
    ['auth', 'token', ...(where.host === 'github.com' ? [] : ['--hostname', where.host])],
    process.cwd(),
  );
  if (gh.ok && gh.stdout.trim() !== '') return gh.stdout.trim();
  throw new UserError({
    message: `no GitHub token to read ${where.owner}/${where.repo}'s artifacts: GITHUB_TOKEN and GH_TOKEN are not set, and ${gh.missing ? 'the GitHub CLI (gh) is not installed' : `\`gh auth token\` gave none (${gh.said})`}`,
    fix: `log in with the GitHub CLI (\`gh auth login${where.host === 'github.com' ? '' : ` --hostname ${where.host}`}\`), or set GITHUB_TOKEN to a token that can read the repository's Actions (fine-grained: \`actions: read\`)`,
  });
}

interface Ran {
  ok: boolean;
  stdout: string;
  /** The program is not installed. */
  missing: boolean;
  /** The first line of what it said when it failed. */
  said: string;
}

function run(command: string, args: string[], cwd: string): Promise<Ran> {
  return new Promise((done) => {
    execFile(command, args, { cwd, timeout: 20_000 }, (error, stdout, stderr) => {
      const missing = (error as NodeJS.ErrnoException | null)?.code === 'ENOENT';
      done({ ok: error === null, stdout, missing, said: stderr.trim().split('\n')[0] || error?.message || '' });
    });
  });
}
