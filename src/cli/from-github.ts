/**
 * `--from-github`: the newest trusted state artifact of the campaign, fetched from the
 * repository's workflow runs into a directory here, so that `status`, `summary` and `results`
 * read a campaign that runs in CI as they read a local one. Trusted as the Action trusts a state
 * it restores (src/github/state-artifacts.ts): a run of a workflow in .github/workflows of this
 * repository (no fork), on the branch, started by push, workflow_dispatch or schedule.
 */
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import type { Campaign } from '../app/load.js';
import { mergeSaves, readSave } from '../app/merge-saves.js';
import { UserError } from '../errors.js';
import { GitHubReader } from '../github/reader.js';
import {
  endpointFor,
  enterpriseHost,
  parseRemote,
  parseRepoOption,
  type Endpoint,
  type Repository,
} from '../github/repository.js';
import {
  MAX_SAVE_ZIP_BYTES,
  parseStateArtifactName,
  STATE_FILES,
  untrustedBecause,
  unzipSave,
  type WorkflowRun,
} from '../github/state-artifacts.js';

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

/** Fetches the campaign's state and returns the campaign reading it from where it landed. */
export async function campaignFromGitHub(
  c: Campaign,
  o: FromGitHubOptions,
  env: NodeJS.ProcessEnv,
  note: (m: string) => void,
): Promise<Campaign> {
  const where =
    o.repo !== undefined
      ? parseRepoOption(o.repo, enterpriseHost(env.GITHUB_API_URL) ?? 'github.com')
      : await originOf(c.file, env);
  const endpoint = endpointFor(where.host, env.GITHUB_API_URL)!;
  const reader = new GitHubReader({
    apiUrl: endpoint.apiUrl,
    token: await tokenFor(where, endpoint, env),
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
      const saves: { name: string; dir: string }[] = [];
      try {
        const first = await download(reader, a, campaign);
        if (typeof first === 'string') {
          skipped.push(`${a.name} (run ${runId}): ${first}`);
          continue;
        }
        saves.push({ name: a.name, dir: first.dir });
        // Jobs of its run may have driven phases at once: the newest save of each other job is merged in.
        const jobs = new Set([parseStateArtifactName(a.name)!.job]);
        for (const b of artifacts) {
          const job = parseStateArtifactName(b.name)?.job;
          if (b.workflow_run?.id !== runId || b.expired || job === undefined || jobs.has(job)) continue;
          if (parseStateArtifactName(b.name)?.campaign !== campaign) continue;
          jobs.add(job);
          const got = await download(reader, b, campaign);
          if (typeof got === 'string') skipped.push(`${b.name} (run ${runId}): ${got}`);
          else saves.push({ name: b.name, dir: got.dir });
        }
        const dir =
          o.stateDir !== undefined ? resolve(o.stateDir) : await mkdtemp(join(tmpdir(), 'campaign-from-github-'));
        const merged =
          saves.length > 1
            ? await mergeSaves(
                saves.map((x) => x.dir),
                campaign,
              )
            : undefined;
        await install(saves[0]!.dir, merged, dir);
        for (const s of skipped) note(`not read: ${s}`);
        const siblings = saves.slice(1).map((x) => x.name);
        const beside = siblings.length > 0 ? `, merged with ${siblings.join(', ')}` : '';
        note(
          `the state of ${campaign} from ${reader.fullName}: artifact ${a.name} (id ${a.id}, made ${a.created_at ?? 'at an unknown time'}) of run ${runId} (${run.event} on ${branch}, ${run.path})${beside}, in ${dir}`,
        );
        if (merged && merged.uncovered.length > 0)
          note(
            `no job of run ${runId} drove ${merged.uncovered.join(', ')}: ${merged.uncovered.length === 1 ? 'it is' : 'they are'} as ${a.name} holds ${merged.uncovered.length === 1 ? 'it' : 'them'}`,
          );
        return { ...c, stateDir: dir };
      } finally {
        for (const x of saves) await rm(x.dir, { recursive: true, force: true });
      }
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

/**
 * A state artifact downloaded into a new temporary directory (its state's files only) once it
 * proved whole and this campaign's state; else what is wrong with it.
 */
async function download(
  reader: GitHubReader,
  a: { id: number; name: string; digest?: string | null; size_in_bytes?: number },
  campaign: string,
): Promise<{ dir: string } | string> {
  let zip: Buffer;
  try {
    zip = await reader.artifactZip(a.id, Math.min(a.size_in_bytes ?? MAX_SAVE_ZIP_BYTES, MAX_SAVE_ZIP_BYTES));
  } catch (e) {
    // A refusal of the token holds for every artifact; a failed download (expired, cut off) is this one's.
    if (e instanceof UserError) throw e;
    return (e as Error).message;
  }
  if (a.digest?.startsWith('sha256:') && createHash('sha256').update(zip).digest('hex') !== a.digest.slice(7))
    return 'its download does not match its digest';
  let files: Map<string, Buffer>;
  try {
    files = unzipSave(zip);
  } catch (e) {
    return (e as Error).message;
  }
  const dir = await mkdtemp(join(tmpdir(), 'campaign-from-github-save-'));
  for (const [name, bytes] of files) await writeFile(join(dir, name), bytes);
  const save = await readSave(dir, campaign);
  if (typeof save !== 'string') return { dir };
  await rm(dir, { recursive: true, force: true });
  return save;
}

/**
 * The state's own files (never anything else an artifact holds) from a downloaded save, or the
 * merge of several, replacing those of an earlier state there. A merge is written whole, with
 * no journal and no previous copy: it is a state of its own.
 */
async function install(
  from: string,
  merged: { state: string; events: string } | undefined,
  dir: string,
): Promise<void> {
  await mkdir(dir, { recursive: true });
  for (const f of [...STATE_FILES.slice(1), STATE_FILES[0]!]) {
    const bytes = merged
      ? f === 'state.json'
        ? merged.state
        : f === 'events.jsonl'
          ? merged.events
          : undefined
      : await readFile(join(from, f)).catch(() => undefined);
    if (bytes === undefined) await rm(join(dir, f), { force: true });
    else await writeFile(join(dir, f), bytes);
  }
}

/** The repository the `origin` remote of the manifest's checkout names, on github.com or the GitHub Enterprise Server GITHUB_API_URL names. */
async function originOf(file: string, env: NodeJS.ProcessEnv): Promise<Repository> {
  const url = await run('git', ['remote', 'get-url', 'origin'], dirname(resolve(file)), env);
  const repo = url.ok ? parseRemote(url.stdout) : undefined;
  if (repo === undefined)
    throw new UserError({
      message: url.ok
        ? `the origin remote of ${file}'s checkout (${url.stdout.trim()}) is not a GitHub repository`
        : `cannot tell ${file}'s repository: its checkout has no origin remote (${url.said})`,
      fix: 'give --repo OWNER/REPO',
    });
  if (endpointFor(repo.host, env.GITHUB_API_URL) === undefined)
    throw new UserError({
      message: `the origin remote of ${file}'s checkout (${url.stdout.trim()}) is on ${repo.host}, which is neither github.com nor the GitHub Enterprise Server that GITHUB_API_URL names${env.GITHUB_API_URL ? ` (${env.GITHUB_API_URL})` : ''}: no token is sent there`,
      fix: `give --repo OWNER/REPO for a repository on github.com, or for a GitHub Enterprise Server set GITHUB_API_URL to its API (https://${repo.host}/api/v3)`,
    });
  return repo;
}

/** The token for the endpoint, as the GitHub CLI takes it: its variables, else `gh auth token --hostname HOST`. */
async function tokenFor(where: Repository, endpoint: Endpoint, env: NodeJS.ProcessEnv): Promise<string> {
  for (const name of endpoint.tokenVariables) {
    const given = env[name];
    if (given) return given;
  }
  const gh = await run('gh', ['auth', 'token', '--hostname', endpoint.ghHost], process.cwd(), env);
  if (gh.ok && gh.stdout.trim() !== '') return gh.stdout.trim();
  const [first, second] = endpoint.tokenVariables;
  const login = `gh auth login${endpoint.ghHost === 'github.com' ? '' : ` --hostname ${endpoint.ghHost}`}`;
  throw new UserError({
    message: `no GitHub token to read ${where.owner}/${where.repo}'s artifacts: ${first} and ${second} are not set, and ${gh.missing ? 'the GitHub CLI (gh) is not installed' : `\`gh auth token --hostname ${endpoint.ghHost}\` gave none (${gh.said})`}`,
    fix: `log in with the GitHub CLI (\`${login}\`), or set ${first} to a token that can read the repository's Actions (fine-grained: \`actions: read\`)`,
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

function run(command: string, args: string[], cwd: string, env: NodeJS.ProcessEnv): Promise<Ran> {
  return new Promise((done) => {
    execFile(command, args, { cwd, env, timeout: 20_000 }, (error, stdout, stderr) => {
      const missing = (error as NodeJS.ErrnoException | null)?.code === 'ENOENT';
      done({ ok: error === null, stdout, missing, said: stderr.trim().split('\n')[0] || error?.message || '' });
    });
  });
}
