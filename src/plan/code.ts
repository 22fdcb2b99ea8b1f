/**
 * The code a campaign's tasks run (DESIGN rule 11), as data: the files of the manifest's
 * repository under its declared `code.paths`, each with its mode and the digest of its content.
 * The snapshot's id is a digest of them all, so one content is one snapshot whoever ships it; a
 * phase's code digest covers only the files under its own paths, so an edit re-runs only the
 * phases whose code it touches. Paths are the repository's, relative to its root, with `/`.
 */
import * as crypto from 'node:crypto';
import { z } from 'zod';
import type { Manifest, Phase } from '../manifest/schema.js';

/** How a file is shipped: a plain file, an executable, or a symbolic link (its target as content). */
export const CODE_MODES = ['file', 'exec', 'link'] as const;
export type CodeMode = (typeof CODE_MODES)[number];

/** A file of the snapshot as the definition sees it: `<mode> <sha256 of its content>`. */
export const codeFilesSchema = z.record(z.string(), z.string());
export type CodeFiles = z.infer<typeof codeFilesSchema>;

/** What the state keeps of a snapshot its attempts ran: enough to say which files changed since. */
export const codeSnapshotSchema = z.object({
  /** The repository's commit when the snapshot was taken. */
  commit: z.string().nullable(),
  /** Declared paths whose working-tree content differed from that commit. */
  dirty: z.array(z.string()),
  files: codeFilesSchema,
});
export type CodeSnapshotRecord = z.infer<typeof codeSnapshotSchema>;

/** The code a plan is made with: the snapshot's id and record. */
export interface CodeFacts extends CodeSnapshotRecord {
  id: string;
}

const sha256 = (text: string): string => crypto.createHash('sha256').update(text).digest('hex');

/** The entry of one file: its mode and content digest. */
export function codeEntry(mode: CodeMode, contentDigest: string): string {
  return `${mode} ${contentDigest}`;
}

/** Whether `path` is one of `paths`, or under one of them taken as a folder. */
export function underPaths(path: string, paths: readonly string[]): boolean {
  return paths.some((p) => {
    const folder = p.replace(/\/+$/, '');
    return path === folder || path.startsWith(`${folder}/`);
  });
}

/** A digest of the files under `paths` (all of them when absent): their paths, modes and contents. */
export function codeDigest(files: CodeFiles, paths?: readonly string[]): string {
  const chosen = Object.keys(files)
    .filter((f) => paths === undefined || underPaths(f, paths))
    .sort();
  return sha256(chosen.map((f) => `${JSON.stringify(f)} ${files[f]}\n`).join('')).slice(0, 16);
}

/** The snapshot's id: the digest of every file in it. */
export const snapshotId = (files: CodeFiles): string => codeDigest(files);

/** The code paths a phase's definition depends on: its own, or the campaign's. */
export function phaseCodePaths(manifest: Manifest, phase: Phase): readonly string[] | undefined {
  if (manifest.code === undefined) return undefined;
  return phase.code?.paths ?? manifest.code.paths;
}

/** The files under `paths` whose mode or content differ between two snapshots, or that one lacks. */
export function changedCodeFiles(before: CodeFiles, now: CodeFiles, paths: readonly string[]): string[] {
  const all = new Set([...Object.keys(before), ...Object.keys(now)]);
  return [...all].filter((f) => underPaths(f, paths) && before[f] !== now[f]).sort();
}

/** What a snapshot's folder is named: its id, as snapshotId writes it. */
export const SNAPSHOT_ID = /^[0-9a-f]{16}$/;
