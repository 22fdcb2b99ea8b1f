/**
 * What the Action and the CLI agree on about a campaign's state kept as workflow artifacts: how
 * an artifact is named, which files of it are the state, and which runs' artifacts are trusted.
 *
 * A state decides what runs and what passed, so an artifact is trusted only when its run is one
 * the repository's owners control: a run of a workflow file in .github/workflows (the expected
 * one, where the reader knows it), in this repository (not a fork's head), on the expected
 * branch, started by push, workflow_dispatch or schedule. Anyone who can open a pull request can
 * make a run upload an artifact of any name; none of those runs qualifies.
 */
import { z } from 'zod';
import { DROVE_FILE } from '../decide/parallel-states.js';
import { unzip } from './unzip.js';

const PREFIX = 'campaign-state';
/** The files a state directory is restored with: what the state store reads (exec/store/file-store.ts). */
export const STATE_FILES = ['state.json', 'state.prev.json', 'state.journal.jsonl', 'events.jsonl'];
/**
 * The most bytes one state file may hold, as the state store reads it (exec/store/state-file.ts):
 * the bound of what a downloaded artifact's entries may inflate to.
 */
export const MAX_STATE_FILE_BYTES = 500 * 2 ** 20;
/** What is read of a save's zip: the state's own files and which phases its job drove. */
export const SAVE_FILES: ReadonlySet<string> = new Set([...STATE_FILES, DROVE_FILE]);
/** A save's zip holds at most these files, each at most a state file's limit (and some room for the zip's own records). */
export const MAX_SAVE_ZIP_BYTES = SAVE_FILES.size * MAX_STATE_FILE_BYTES + 2 ** 20;

/**
 * A save's own files from its zip, each inflated no further than it declares and the state's
 * limit; throws a plain Error saying what is wrong with a damaged archive.
 */
export function unzipSave(zip: Buffer): Map<string, Buffer> {
  return unzip(zip, { names: SAVE_FILES, limit: MAX_STATE_FILE_BYTES });
}
/** The events whose runs only the repository's writers can start. */
export const TRUSTED_EVENTS = new Set(['push', 'workflow_dispatch', 'schedule']);

export interface NameParts {
  campaign: string;
  runId: number;
  attempt: number;
  job: string;
  seq: number;
}

export function stateArtifactName(p: NameParts): string {
  return `${PREFIX}.${p.campaign}.${p.runId}-${p.attempt}.${p.job}.${p.seq}`;
}

/** The parts of a state artifact's name; undefined for any other artifact. */
export function parseStateArtifactName(name: string): NameParts | undefined {
  // Job ids hold no '.', so the campaign (which may) is everything before the run.
  const m = /^campaign-state\.(.+)\.(\d+)-(\d+)\.([^.]+)\.(\d+)$/.exec(name);
  if (!m) return undefined;
  return { campaign: m[1]!, runId: Number(m[2]), attempt: Number(m[3]), job: m[4]!, seq: Number(m[5]) };
}

/** The workflow file's path in a workflow ref or a run's `path` (`owner/repo/.github/workflows/x.yml@ref`, or bare). */
export function workflowFilePath(ref: string): string | undefined {
  return /(?:^|\/)(\.github\/workflows\/[^@/]+)(?:@|$)/.exec(ref)?.[1];
}

/** A page of `GET /repos/{owner}/{repo}/actions/artifacts`, newest first. */
export const artifactList = z.object({
  total_count: z.number(),
  artifacts: z.array(
    z.object({
      id: z.number(),
      name: z.string(),
      expired: z.boolean(),
      /** The zip's size: its download is read no further. */
      size_in_bytes: z.number().optional(),
      created_at: z.string().nullable(),
      digest: z.string().nullable().optional(),
      workflow_run: z.object({ id: z.number().nullable().optional() }).nullable().optional(),
    }),
  ),
});

/** The fields of `GET /repos/{owner}/{repo}/actions/runs/{id}` that say where a run came from. */
export const workflowRun = z.object({
  event: z.string(),
  head_branch: z.string().nullable(),
  path: z.string(),
  repository: z.object({ full_name: z.string() }),
  head_repository: z.object({ full_name: z.string() }).nullable(),
});
export type WorkflowRun = z.infer<typeof workflowRun>;

/** Where a trusted run comes from. */
export interface TrustedOrigin {
  /** `owner/repo`. */
  repository: string;
  branch: string;
  /**
   * The workflow files (`.github/workflows/x.yml`) when the reader knows them (a campaign's
   * workflow and its scheduled resume share a state); else any file there.
   */
  workflowPaths?: readonly string[];
}

/** Why a run's artifacts are not to be trusted (see the module's comment), or undefined when they are. */
export function untrustedBecause(run: WorkflowRun, want: TrustedOrigin): string | undefined {
  const here = want.repository.toLowerCase();
  if (run.repository.full_name.toLowerCase() !== here || run.head_repository?.full_name.toLowerCase() !== here)
    return `it was made by a run from ${run.head_repository?.full_name ?? 'an unknown repository'} (a fork), not from ${want.repository}`;
  if (!TRUSTED_EVENTS.has(run.event))
    return `it was made by a ${run.event} run; only push, workflow_dispatch and schedule runs are trusted`;
  if (run.head_branch !== want.branch)
    return `it was made on branch ${run.head_branch ?? '(none)'}, not ${want.branch}`;
  const file = workflowFilePath(run.path);
  if (want.workflowPaths !== undefined && (file === undefined || !want.workflowPaths.includes(file)))
    return `it was made by workflow ${file ?? run.path}, not ${want.workflowPaths.join(' or ')}`;
  if (file === undefined) return `it was made by ${run.path}, not by a workflow file in .github/workflows`;
  return undefined;
}
