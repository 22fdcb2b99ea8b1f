/**
 * Gathering a phase's outputs for its results: which to read again, how much of each, and what
 * is kept between gatherings. An output is read again only when its stamp (size, inode and
 * modification time, as the machine it is on says them) differs from the one kept; what is kept
 * is its result, not its text, so a kept gathering stays small whatever the outputs weigh.
 */
import { z } from 'zod';
import { OutputResult } from './output-result.js';

/** One file as a gathering found it. */
export interface GatheredFile {
  stamp: string;
  /** Its text (or head and tail, see joinEnds); absent when the stamp is the one already known. */
  text?: string;
  /** Why its text was not read (too large, not a regular file). */
  problem?: string;
}

/** Called with each file found, as it arrives; a file not found (missing) is never passed. */
export type TakeFile = (path: string, file: GatheredFile) => void;

/** Outputs at least this large are read only at their ends where the last record is all that counts. */
export const ENDS_FROM = 1024 * 1024;
/** How much of each end is read. */
export const END_BYTES = 64 * 1024;
/** The largest output read whole. */
export const WHOLE_LIMIT = 64 * 1024 * 1024;
/** How many bytes of outputs one transfer carries at most, so that none holds more than this in memory. */
export const TRANSFER_BYTES = 32 * 1024 * 1024;

/** How a file of `size` bytes is read: whole, at its ends, or not at all (and why). */
export function howToRead(size: number, endsSuffice: boolean): 'whole' | 'ends' | { problem: string } {
  if (endsSuffice && size >= ENDS_FROM) return 'ends';
  if (size > WHOLE_LIMIT)
    return {
      problem: `it is ${size} bytes, more than the ${WHOLE_LIMIT} read whole (record: best and all read it all)`,
    };
  return 'whole';
}

/**
 * A large output's head and tail as one text its records can be read from: the head's first
 * line (a CSV header, or a first JSON line) and the tail's whole lines. Lines between are left
 * out, so record places in it mean nothing; only its last record is used.
 */
export function joinEnds(head: string, tail: string): string {
  const firstLine = head.split('\n', 1)[0]!;
  const cut = tail.indexOf('\n');
  return `${firstLine}\n${cut < 0 ? '' : tail.slice(cut + 1)}`;
}

/** Whole files in groups of at most TRANSFER_BYTES (a larger file alone in its group). */
export function transferGroups<T extends { size: number }>(files: readonly T[]): T[][] {
  const groups: T[][] = [];
  let group: T[] = [];
  let bytes = 0;
  for (const f of files) {
    if (group.length > 0 && bytes + f.size > TRANSFER_BYTES) {
      groups.push(group);
      group = [];
      bytes = 0;
    }
    group.push(f);
    bytes += f.size;
  }
  if (group.length > 0) groups.push(group);
  return groups;
}

/**
 * What a gathering keeps under the state directory: for each output, its stamp and its result.
 * `source` names where the outputs are (the login and workdir) and `declaration` the phase's
 * results declaration: when either changes, nothing kept holds.
 */
export const KeptResults = z.object({
  version: z.literal(1),
  source: z.string(),
  declaration: z.string(),
  files: z.record(z.string(), z.object({ stamp: z.string(), result: OutputResult })),
});
export type KeptResults = z.infer<typeof KeptResults>;

/** The stamps to tell the machine (path → stamp): those of the kept results that still hold. */
export function knownStamps(kept: KeptResults | undefined, source: string, declaration: string): Map<string, string> {
  if (kept === undefined || kept.source !== source || kept.declaration !== declaration) return new Map();
  return new Map(Object.entries(kept.files).map(([path, f]) => [path, f.stamp]));
}
