/**
 * How an ended attempt is classed from what it left: its exit marker, its log and its output.
 * Pure: the executors read those and ask here.
 */
import { compilePattern, type Pattern } from '../manifest/pattern.js';
import type { ExitMarker } from '../render/wrapper.js';
import { GATE_EXIT, GATE_LINE } from '../render/task-script.js';
import { recordProblems, type RecordExpectation } from './checklist.js';
import { gateShortfall } from './shortfall.js';
import type { EndClass } from '../state/state.js';

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

/** What an attempt's checkpoint signal tells of its end. */
export interface Warning {
  /** When the signal came (ISO). */
  at: string;
  /** When the attempt started and ended (ISO), where known. */
  startedAt?: string;
  endedAt: string;
  exitCode?: number;
  /**
   * Whether the phase's declared output is there (fresh, the attempt's own), where it declares
   * one.
   */
  outputThere?: boolean;
}

/** Seconds into the attempt as a clock reads them: `0:40`, `1:02:03`; the time itself where the start is unknown. */
function clock(at: string, startedAt: string | undefined): string {
  if (startedAt === undefined) return at;
  const total = Math.max(0, Math.round((Date.parse(at) - Date.parse(startedAt)) / 1000));
  const [hours, minutes, seconds] = [Math.floor(total / 3600), Math.floor(total / 60) % 60, total % 60];
  const two = (n: number): string => String(n).padStart(2, '0');
  return hours > 0 ? `${hours}:${two(minutes)}:${two(seconds)}` : `${minutes}:${two(seconds)}`;
}

/** The classes a command's own end gives; the others (a cancel, a node, a gate, memory, the disk) say more than the warning. */
const COMMAND_ENDS: ReadonlySet<EndClass['cls']> = new Set(['completed', 'failed', 'unverified', 'timeout']);

/**
 * An attempt its checkpoint signal reached, as the method has it: ended by its time limit, or
 * ended without its output (whatever its exit status, the command saved and stopped), it is a
 * continuation (`timeout`); with its output there, it finished its work and the normal
 * judgement stands. Where the phase declares no output, exit 0 is taken as done. The reason says
 * what happened, not what was hoped for.
 */
export function afterWarning(judged: EndClass, warning: Warning): EndClass {
  if (!COMMAND_ENDS.has(judged.cls)) return judged;
  const signalled = `signalled at ${clock(warning.at, warning.startedAt)}`;
  const ended = clock(warning.endedAt, warning.startedAt);
  if (judged.cls === 'timeout') return { cls: 'timeout', reason: `${signalled}, ended at ${ended} (time limit)` };
  if (warning.outputThere === true || (warning.outputThere === undefined && judged.cls === 'completed')) return judged;
  const status = warning.exitCode === undefined ? 'ended' : `exited ${warning.exitCode}`;
  const without = warning.outputThere === false ? ' without its output' : '';
  return { cls: 'timeout', reason: `${signalled}, ${status} at ${ended}${without}` };
}

export function classifyEnd(input: EndInput): EndClass {
  const judged = judgeEnd(input);
  const { marker, output } = input;
  if (marker.warnedAt === undefined) return judged;
  return afterWarning(judged, {
    at: marker.warnedAt,
    ...(marker.startedAt ? { startedAt: marker.startedAt } : {}),
    endedAt: marker.at,
    exitCode: marker.code,
    ...(output ? { outputThere: output.exists && output.fresh && output.linkedTo === undefined } : {}),
  });
}

function judgeEnd(input: EndInput): EndClass {
  const { marker, log } = input;
  if (marker.cause === 'cancel') return { cls: 'cancelled', reason: `by campaign cancel (exit ${marker.code})` };
  if (marker.cause === 'walltime') {
    const killed = marker.code === 137 ? '; killed after ignoring SIGTERM' : '';
    return { cls: 'timeout', reason: `walltime ${input.walltimeSeconds}s reached${killed}` };
  }
  const gate = GATE_LINE.exec(log);
  if (marker.code === GATE_EXIT && gate)
    return gateShortfall(gate[1]!, gate[2]!) ?? { cls: 'gate', reason: `gate ${gate[1]}:${gate[2]}` };
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
