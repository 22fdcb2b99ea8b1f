/**
 * The start and end markers the Slurm batch script leaves for each array task
 * (render/task-script.ts), read back. On an automation node the scheduler forgets an ended job
 * after MinJobAge and there is no sacct: what the script recorded is then all there is to judge
 * the task by. One `cat` of {@link markersGlob} patterns reads the markers of many submissions; its output
 * carries no file names, so each line says whose it is:
 *
 *     s <key> <index> <job> <epoch ms> <node> .
 *     w <key> <index> <job> <epoch ms> .
 *     e <key> <index> <job> <epoch ms> <rc> <signal> <gate> .
 *
 * `w` is written when a checkpointing phase's signal reached the batch script (`<index>.warn`).
 *
 * `<signal>` is `TERM` when Slurm sent SIGTERM (time limit, scancel, preemption), which says
 * more about the end than `<rc>` and `<gate>` do: a setup cut short by it still reads as the
 * setup gate with status 97, as the scheduler sees it. `-` stands for none in `<node>`,
 * `<signal>` and `<gate>`.
 *
 * A marker is written in place, so a line counts only with its terminator ` .`: without it, it
 * is still being written. Earlier releases renamed each marker into place, whole, and wrote the
 * same lines with capital kinds (`S`, `W`, `E`) and no terminator; a campaign sent by one of them
 * is still read. The kinds differ so that a new line cut just before its terminator is never
 * taken for an old, whole one.
 */
import { UserError } from '../../errors.js';

export interface TaskMarkers {
  /** The submission's key (its directory's name). */
  key: string;
  index: number;
  /** The array's job id (`SLURM_ARRAY_JOB_ID`). */
  jobId: string;
  /** When the batch script started (ISO), from the start marker. */
  startedAt?: string;
  node?: string;
  /** When the phase's checkpoint signal reached the batch script (ISO), from the warn marker. */
  warnedAt?: string;
  /** From the end marker, written by the script's EXIT trap. */
  end?: { at: string; code: number; signal?: 'TERM'; gate?: string };
}

/** How many fields each kind of marker line has, its terminator included. */
const FIELDS = new Map([
  ['s', 7],
  ['w', 6],
  ['e', 9],
  ['S', 6],
  ['W', 5],
  ['E', 8],
]);

/** A marker line's fields without its terminator; undefined where the line is not a whole marker. */
function wholeFields(line: string): string[] | undefined {
  const f = line.split(' ');
  const kind = f[0] ?? '';
  if (FIELDS.get(kind) !== f.length) return undefined;
  const renamedWhole = kind === kind.toUpperCase();
  if (renamedWhole) return f;
  return f.pop() === '.' ? [kind.toUpperCase(), ...f.slice(1)] : undefined;
}

/**
 * The markers read back, by handle `<job>_<index>`. A task with an end marker but no start
 * marker has an entry still; a line that is not a whole marker (one being written, or anything
 * else `cat` printed) is skipped.
 */
export function parseMarkers(text: string): Map<string, TaskMarkers> {
  const found = new Map<string, TaskMarkers>();
  for (const line of text.split('\n')) {
    const f = wholeFields(line);
    if (!f) continue;
    const [kind, key = '', index = '', jobId = '', ms = ''] = f;
    const at = epoch(ms);
    if (!key || !/^\d+$/.test(index) || !/^\d+$/.test(jobId) || !at) continue;
    if (kind === 'W') {
      entry(found, key, index, jobId, { warnedAt: at });
      continue;
    }
    if (kind === 'S') {
      const node = f[5]!;
      if (!node) continue;
      entry(found, key, index, jobId, { startedAt: at, ...(node === '-' ? {} : { node }) });
      continue;
    }
    const [code = '', signal = '', gate = ''] = f.slice(5);
    if (!/^\d{1,3}$/.test(code) || Number(code) > 255 || (signal !== 'TERM' && signal !== '-') || !gate) continue;
    entry(found, key, index, jobId, {
      end: {
        at,
        code: Number(code),
        ...(signal === 'TERM' ? { signal } : {}),
        ...(gate === '-' ? {} : { gate }),
      },
    });
  }
  return found;
}

function entry(
  found: Map<string, TaskMarkers>,
  key: string,
  index: string,
  jobId: string,
  part: Partial<TaskMarkers>,
): void {
  const handle = `${jobId}_${Number(index)}`;
  found.set(handle, { key, index: Number(index), jobId, ...found.get(handle), ...part });
}

/** An epoch in milliseconds as ISO, or undefined when it is not one. */
function epoch(ms: string): string | undefined {
  if (!/^\d{1,15}$/.test(ms)) return undefined;
  return new Date(Number(ms)).toISOString();
}

/**
 * The markers of one submission (`submission`, its key) of the campaign whose Slurm root
 * (sbatch.ts's slurmRoot) is `root`, as a pattern for the remote shell to expand: `cat` of it
 * reads them all at once. The root is not quoted (an
 * automation node's forced command takes its words as they are), so it must hold nothing a
 * shell would read as a pattern or split at: such a root is refused. What it allows is what
 * transport/words.ts takes as a plain glob word.
 */
export function markersGlob(root: string, submission: string): string {
  if (!/^\/[A-Za-z0-9_.,:=%@+/-]*$/.test(root) || !/^[A-Za-z0-9_.-]+$/.test(submission)) {
    throw new UserError({
      message: `the campaign's Slurm directory ${JSON.stringify(root)} holds characters a shell would expand or split at`,
      fix: 'use a workdir of letters, digits and . _ - / only',
    });
  }
  return `${root}/${submission}/markers/*`;
}
