/**
 * The campaign's state directory kept as workflow artifacts. Every save is a new artifact named
 * for the campaign, run, attempt and job (artifact names are unique within a run), so no save
 * overwrites another and the newest one is the state. Restoring looks in this run first, then in
 * earlier runs through the REST API, and accepts a download only once its digest matches and its
 * state parses; otherwise it falls back to the next newest, so a damaged artifact costs a
 * reconciliation with the cluster, not the campaign. The cache is not used: artifacts alone
 * are durable for their 90-day retention, and the state is small.
 *
 * A state decides what runs and what passed, so an earlier run's artifact is restored only when
 * that run is one the repository's owners control: a run of this workflow file, in this
 * repository (not a fork's head), on this run's branch, started by push, workflow_dispatch or
 * schedule. Anyone who can open a pull request can make a run upload an artifact of any name;
 * none of those runs qualifies. A run whose origin cannot be read is not trusted either. Only
 * the state's own files are restored, never a `lock` or anything else an artifact holds.
 */
import { DefaultArtifactClient } from '@actions/artifact';
import { mkdir, mkdtemp, readdir, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { mergeSaves, readSave } from '../../app/merge-saves.js';
import { UserError } from '../../errors.js';
import {
  artifactList,
  MAX_SAVE_ZIP_BYTES,
  parseStateArtifactName,
  STATE_FILES,
  stateArtifactName,
  untrustedBecause,
  unzipSave,
  workflowRun,
} from '../../github/state-artifacts.js';
import type { GitHubRest, RunContext } from './rest.js';
import type { StateArtifactRef, StateArtifacts } from './index.js';

export { parseStateArtifactName, stateArtifactName } from '../../github/state-artifacts.js';

/** Files of the state directory that belong to a live process, never to the stored state. */
const NOT_STATE = /^(lock|lock\.takeover)$|\.tmp/;
/** Earlier runs' artifacts are listed newest first; the state is on the first pages or expired. */
const MAX_PAGES = 10;

interface Candidate {
  name: string;
  id: number;
  runId: number;
  createdAt: number;
  digest?: string;
  /** The zip's size as listed: its download is refused past it. */
  size?: number;
}

export interface ArtifactStateOptions {
  ctx: RunContext;
  rest: GitHubRest;
  token: string;
  warn: (message: string) => void;
  client?: DefaultArtifactClient;
  /** Workflow files of this repository (names alone) whose runs keep the same campaign's state. */
  companions?: readonly string[];
}

export class ArtifactStateStore implements StateArtifacts {
  private readonly client: DefaultArtifactClient;
  /** Per earlier run: why its artifacts are not trusted, or undefined when they are. */
  private readonly untrusted = new Map<number, Promise<string | undefined>>();

  constructor(private readonly o: ArtifactStateOptions) {
    this.client = o.client ?? new DefaultArtifactClient();
  }

  async save(campaign: string, dir: string, job: string): Promise<StateArtifactRef> {
    const files = (await readdir(dir, { withFileTypes: true }))
      .filter((f) => f.isFile() && !NOT_STATE.test(f.name))
      .map((f) => join(dir, f.name));
    if (!files.some((f) => basename(f) === 'state.json')) {
      throw new Error(`${dir} holds no state.json to save; the controller saves it on every pass`);
    }
    const { runId, runAttempt: attempt } = this.o.ctx;
    const mine = await this.thisRun(campaign);
    const seq = 1 + Math.max(0, ...mine.map((candidate) => parseStateArtifactName(candidate.name)!.seq));
    const name = stateArtifactName({ campaign, runId, attempt, job, seq });
    const { id } = await this.client.uploadArtifact(name, files, dir);
    if (id === undefined) throw new Error(`the artifact service did not confirm ${name}`);
    return { name, id, runId };
  }

  async restoreNewest(campaign: string, dir: string): Promise<StateArtifactRef | undefined> {
    const tried: string[] = [];
    const unusable = (candidate: Candidate, problem: string): void => {
      tried.push(`${candidate.name} (id ${candidate.id}, run ${candidate.runId}): ${problem}`);
      this.o.warn(`state artifact ${candidate.name} is unusable (${problem}); trying the next newest`);
    };
    for (const source of [() => this.thisRun(campaign), () => this.earlierRuns(campaign)]) {
      const found = await source();
      // Jobs of one run may have driven phases at once: the newest save of each is merged.
      const group = parallelGroup(found);
      const downloads: Download[] = [];
      try {
        for (const candidate of group) {
          const d = await this.download(candidate, campaign, dir);
          if (typeof d === 'string') unusable(candidate, d);
          else downloads.push(d);
        }
        if (downloads.length > 1) {
          const uncovered = await installMerged(downloads, campaign, dir);
          const [base, ...rest] = downloads;
          return {
            name: base!.candidate.name,
            id: base!.candidate.id,
            runId: base!.candidate.runId,
            merged: rest.map((d) => d.candidate.name),
            ...(uncovered.length > 0 ? { uncovered } : {}),
          };
        }
        if (downloads.length === 1) {
          await install(downloads[0]!.tmp, dir);
          const { candidate } = downloads[0]!;
          return { name: candidate.name, id: candidate.id, runId: candidate.runId };
        }
        for (const candidate of found.filter((x) => !group.includes(x))) {
          const d = await this.download(candidate, campaign, dir);
          if (typeof d === 'string') {
            unusable(candidate, d);
            continue;
          }
          downloads.push(d);
          await install(d.tmp, dir);
          return { name: candidate.name, id: candidate.id, runId: candidate.runId };
        }
      } finally {
        for (const d of downloads) await rm(d.tmp, { recursive: true, force: true });
      }
    }
    if (tried.length > 0) {
      throw new UserError({
        message: `no usable state artifact of campaign ${campaign}:\n  ${tried.join('\n  ')}`,
        fix: 'delete these artifacts (the run page, or `gh api -X DELETE repos/OWNER/REPO/actions/artifacts/ID`) and run again: with no state artifact the state is rebuilt from the cluster, where the jobs carry the campaign name',
      });
    }
    return undefined;
  }

  /** This run's state artifacts of the campaign, newest first (through the run's own token). */
  private async thisRun(campaign: string): Promise<Candidate[]> {
    const { artifacts } = await this.client.listArtifacts({ latest: true });
    return newestFirst(
      artifacts
        .filter((a) => parseStateArtifactName(a.name)?.campaign === campaign)
        .map((a) => ({
          name: a.name,
          id: a.id,
          runId: this.o.ctx.runId,
          createdAt: a.createdAt?.getTime() ?? 0,
          ...(a.digest ? { digest: a.digest } : {}),
          size: a.size,
        })),
    );
  }

  /** Earlier runs' state artifacts of the campaign, newest first (needs `actions: read`). */
  private async earlierRuns(campaign: string): Promise<Candidate[]> {
    const { owner, repo, runId } = this.o.ctx;
    const found: Candidate[] = [];
    for (let page = 1; page <= MAX_PAGES; page++) {
      const res = await this.o.rest.call(
        {
          method: 'GET',
          path: `/repos/${owner}/${repo}/actions/artifacts?per_page=100&page=${page}`,
          permission: 'actions: read',
        },
        artifactList,
      );
      for (const a of res.artifacts) {
        const run = a.workflow_run?.id;
        if (a.expired || !run || run === runId || parseStateArtifactName(a.name)?.campaign !== campaign) continue;
        const why = await this.whyUntrusted(run);
        if (why !== undefined) {
          this.o.warn(`state artifact ${a.name} (run ${run}) is not restored: ${why}`);
          continue;
        }
        found.push({
          name: a.name,
          id: a.id,
          runId: run,
          createdAt: a.created_at ? Date.parse(a.created_at) : 0,
          ...(a.digest ? { digest: a.digest } : {}),
          ...(a.size_in_bytes !== undefined ? { size: a.size_in_bytes } : {}),
        });
      }
      // The list is newest first: once a page held some, later pages hold only older ones.
      if (found.length > 0 || page * 100 >= res.total_count) break;
      if (page === MAX_PAGES) {
        this.o.warn(
          `no state artifact of ${campaign} among the newest ${MAX_PAGES * 100} of the repository's ${res.total_count} artifacts; the state is rebuilt from the cluster`,
        );
      }
    }
    return newestFirst(found);
  }

  /**
   * Why an earlier run's artifacts are not to be trusted (see the module's comment), or
   * undefined when its run is this workflow's, in this repository, on this branch, from a
   * trusted event. Asked once per run.
   */
  private whyUntrusted(runId: number): Promise<string | undefined> {
    let why = this.untrusted.get(runId);
    if (why === undefined) {
      why = this.readOrigin(runId);
      this.untrusted.set(runId, why);
    }
    return why;
  }

  private async readOrigin(runId: number): Promise<string | undefined> {
    const { owner, repo, ref, workflowPath } = this.o.ctx;
    const branch = ref?.startsWith('refs/heads/') ? ref.slice('refs/heads/'.length) : undefined;
    if (branch === undefined || workflowPath === undefined)
      return 'this run names no branch or workflow file (GITHUB_REF, GITHUB_WORKFLOW_REF) to check its origin against';
    try {
      const run = await this.o.rest.call(
        { method: 'GET', path: `/repos/${owner}/${repo}/actions/runs/${runId}`, permission: 'actions: read' },
        workflowRun,
      );
      const workflowPaths = [workflowPath, ...(this.o.companions ?? []).map((f) => `.github/workflows/${f}`)];
      return untrustedBecause(run, { repository: `${owner}/${repo}`, branch, workflowPaths });
    } catch (e) {
      return `its run's origin cannot be read (${(e as Error).message})`;
    }
  }

  /** Downloads next to `dir`: the download once whole and this campaign's, else what is wrong with it. */
  private async download(candidate: Candidate, campaign: string, dir: string): Promise<Download | string> {
    await mkdir(dirname(dir), { recursive: true });
    const tmp = await mkdtemp(join(dirname(dir), `.${basename(dir)}.download-`));
    const problem = await this.fetchInto(candidate, campaign, tmp);
    if (problem === undefined) return { candidate, tmp };
    await rm(tmp, { recursive: true, force: true });
    return problem;
  }

  private async fetchInto(candidate: Candidate, campaign: string, tmp: string): Promise<string | undefined> {
    try {
      const { owner, repo, runId } = this.o.ctx;
      const cap = Math.min(candidate.size ?? MAX_SAVE_ZIP_BYTES, MAX_SAVE_ZIP_BYTES);
      if (candidate.size !== undefined && candidate.size > MAX_SAVE_ZIP_BYTES)
        return `its zip of ${candidate.size} bytes is larger than a save's files can be (${MAX_SAVE_ZIP_BYTES})`;
      // The zip as it is, inflated here within bounds (github/unzip.ts): the library would
      // inflate every entry to whatever size it claims.
      const options = {
        path: tmp,
        skipDecompress: true,
        ...(candidate.digest ? { expectedHash: candidate.digest } : {}),
      };
      const { digestMismatch } =
        candidate.runId === runId
          ? await this.client.downloadArtifact(candidate.id, options)
          : await this.client.downloadArtifact(candidate.id, {
              ...options,
              findBy: {
                token: this.o.token,
                workflowRunId: candidate.runId,
                repositoryOwner: owner,
                repositoryName: repo,
              },
            });
      if (digestMismatch) return 'its download does not match its digest';
      const problem = await inflateSave(tmp, cap);
      if (problem !== undefined) return problem;
      // Checked as the controller loads it: a state that parses but is not a campaign state is passed over too.
      const save = await readSave(tmp, campaign);
      return typeof save === 'string' ? save : undefined;
    } catch (e) {
      const status = (e as { status?: unknown }).status;
      if (status === 401 || status === 403 || status === 404) {
        throw new UserError({
          message: `downloading ${candidate.name} from run ${candidate.runId} was refused (${status})`,
          fix: "the token lacks actions: read; add `actions: read` under the job's `permissions:`",
        });
      }
      return (e as Error).message;
    }
  }
}

/**
 * Replaces the one zip downloaded into `dir` with the save's own files from it; else says what
 * is wrong with it. A zip over `cap` bytes is not read.
 */
async function inflateSave(dir: string, cap: number): Promise<string | undefined> {
  const [name, ...more] = await readdir(dir);
  if (name === undefined || more.length > 0) return 'its download is not one zip file';
  const zipPath = join(dir, name);
  const { size } = await stat(zipPath);
  if (size > cap) return `its download of ${size} bytes is larger than its listing (${cap})`;
  let files: Map<string, Buffer>;
  try {
    files = unzipSave(await readFile(zipPath));
  } catch (e) {
    return (e as Error).message;
  }
  await rm(zipPath);
  for (const [file, bytes] of files) await writeFile(join(dir, file), bytes);
  return undefined;
}

interface Download {
  candidate: Candidate;
  /** Where it was downloaded: a directory beside the state directory. */
  tmp: string;
}

/**
 * The saves to restore from `found` (newest first): the newest save of each job of the newest
 * run among them, newest first. Jobs of one run may have run at once, each saving its phase's
 * progress; runs of one workflow never overlap (its concurrency group queues them).
 */
function parallelGroup(found: Candidate[]): Candidate[] {
  const newest = found[0];
  if (newest === undefined) return [];
  const byJob = new Map<string, Candidate>();
  for (const candidate of found) {
    const job = parseStateArtifactName(candidate.name)?.job;
    if (candidate.runId !== newest.runId || job === undefined || byJob.has(job)) continue;
    byJob.set(job, candidate);
  }
  return [...byJob.values()];
}

/**
 * The state's own files only, into the directory as it is: nothing else of it is moved or
 * removed. Each by rename (state.json last), and one the download lacks removed: no file of an
 * older state stays.
 */
async function install(from: string, dir: string): Promise<void> {
  await mkdir(dir, { recursive: true });
  for (const f of [...STATE_FILES.slice(1), STATE_FILES[0]!]) {
    await rename(join(from, f), join(dir, f)).catch(async (e: NodeJS.ErrnoException) => {
      if (e.code !== 'ENOENT') throw e;
      await rm(join(dir, f), { force: true });
    });
  }
}

/** Merges parallel jobs' saves (newest first) into the first download, then installs it; the phases no save drove. */
async function installMerged(downloads: Download[], campaign: string, dir: string): Promise<string[]> {
  const merged = await mergeSaves(
    downloads.map((d) => d.tmp),
    campaign,
  );
  const into = downloads[0]!.tmp;
  // Written whole, with no journal and no previous copy: the merge is a state of its own.
  await rm(join(into, 'state.journal.jsonl'), { force: true });
  await rm(join(into, 'state.prev.json'), { force: true });
  await writeFile(join(into, 'events.jsonl'), merged.events);
  await writeFile(join(into, 'state.json'), merged.state);
  await install(into, dir);
  return merged.uncovered;
}

function newestFirst(cs: Candidate[]): Candidate[] {
  return cs.sort((a, b) => b.createdAt - a.createdAt || b.id - a.id);
}
