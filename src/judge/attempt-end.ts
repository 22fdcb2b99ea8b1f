/**
 * How an ended attempt is classed from what it left: its exit marker, its log and its output.
 * Pure: the executors read those and ask here.
 */
import { compilePattern, type Pattern } from '../manifest/pattern.js';
import type { ExitMarker } from '../render/wrapper.js';
import { GATE_EXIT, GATE_LINE } from '../render/task-script.js';
import { recordProblems, type RecordExpectation } from './checklist.js';
import type { FailureClass } from '../state/state.js';

/** What the usual CUDA and PyTorch out-of-memory messages say; a manifest's `oom.patterns` replace them. */
export const DEFAULT_OOM_PATTERNS = [
  'CUDA out of memory',
  'torch\\.OutOfMemoryError',
  'CUDA error: out of memory',
  'CUBLAS_STATUS_ALLOC_FAILED',
];

/** What a write to a full disk or an exhausted quota prints (errno's own words, from any program). */
const DISK_FULL = /^.*(No space left on device|Disk quota exceeded).*$/m;

/**
 * A failure whose log says the disk is full is the cluster's, not the task's: the campaign
 * pauses instead of spending the task's retries (see `step`).
 */
export function diskFull(log: string): EndClass | undefined {
  const line = DISK_FULL.exec(log)?.[0].trim();
  return line === undefined ? undefined : { cls: 'disk_full', reason: `the disk is full: ${line.slice(0, 200)}` };
}

export interface EndInput {
  marker: ExitMarker;
  /** The attempt's whole log. */
  log: string;
  walltimeSeconds: number;
  /** Patterns that mark an out-of-memory log; none: only exit status 137 does. */
  oomPatterns: readonly Pattern[];
  /** The declared output, and whether it exists and was written after the attempt began. */
  output?: { path: string; exists: boolean; fresh: boolean; linkedTo?: string };
  /** The output's text and what it must hold, where its phase expects records of it. */
  records?: OutputRecords;
}

export interface OutputRecords {
  expect: RecordExpectation;
  text: string;
}

/** A fresh output that does not hold the records its phase expects: unverified, with the first problem. */
export function recordsVerdict(ended: string, path: string, records: OutputRecords | undefined): EndClass | undefined {
  if (records === undefined) return undefined;
  const problems = recordProblems(records.text, records.expect.count, records.expect.fields);
  return problems.length === 0 ? undefined : { cls: 'unverified', reason: `${ended} but ${path}: ${problems[0]}` };
}

export interface EndClass {
  cls: 'completed' | FailureClass;
  reason?: string;
}

export function classifyEnd(input: EndInput): EndClass {
  const { marker, log } = input;
  if (marker.cause === 'cancel') return { cls: 'cancelled', reason: `by campaign cancel (exit ${marker.code})` };
  if (marker.cause === 'walltime') {
    const killed = marker.code === 137 ? '; killed after ignoring SIGTERM' : '';
    return { cls: 'timeout', reason: `walltime ${input.walltimeSeconds}s reached${killed}` };
  }
  const gate = GATE_LINE.exec(log);
  if (marker.code === GATE_EXIT && gate) return { cls: 'gate', reason: `gate ${gate[1]}:${gate[2]}` };
  if (marker.code === GATE_EXIT && marker.step) return { cls: 'gate', reason: `gate ${marker.step}` };
  // A run that printed an out-of-memory message and then recovered is judged by its output alone.
  if (marker.code === 0) {
    const out = input.output;
    if (out === undefined) return { cls: 'completed' };
    if (!out.exists) return diskFull(log) ?? { cls: 'unverified', reason: `exit 0 but ${out.path} does not exist` };
    if (out.linkedTo) return { cls: 'unverified', reason: `exit 0 but ${out.path} is a symlink to ${out.linkedTo}` };
    if (!out.fresh) return { cls: 'unverified', reason: `exit 0 but ${out.path} is older than the attempt` };
    return recordsVerdict('exit 0', out.path, input.records) ?? { cls: 'completed' };
  }
  const full = diskFull(log);
  if (full) return full;
  const oom = input.oomPatterns.find((p) => p.test(log));
  if (oom) return { cls: 'out_of_memory', reason: `exit ${marker.code}; the log matches /${oom.source}/` };
  if (marker.code === 137) {
    return { cls: 'out_of_memory', reason: 'killed by SIGKILL (exit 137: the kernel OOM killer, or a person)' };
  }
  return { cls: 'failed', reason: `exit ${marker.code}` };
}

/** The manifest's patterns compiled (multiline, so `^` and `$` match at any line of the log). */
export function oomPatterns(patterns: readonly string[] | undefined): Pattern[] {
  return (patterns ?? DEFAULT_OOM_PATTERNS).map(compilePattern);
}
