/**
 * How an ended Slurm task is classed when the scheduler no longer knows it: with no `sacct`
 * (an automation node), a job leaves `squeue` MinJobAge after it ended, and what remains is
 * what its batch script recorded (its start and end markers) and its log. Pure.
 *
 * What can be told apart that way, and what cannot:
 * - completed, failed (its exit status), a gate, out of memory (slurmstepd's line in the log,
 *   see `killedForMemory`) are told apart as well as by the scheduler;
 * - SIGTERM at or after the walltime is a TIMEOUT; SIGTERM before it is a cancel or a
 *   preemption, which the marker cannot tell apart (both are judged `cancelled`); a time limit
 *   the scheduler cut below what was asked reads as a cancel too;
 * - no end marker: a task that ignored SIGTERM and was killed at its time limit (judged TIMEOUT
 *   when its walltime had passed), or a node that failed under it (judged NODE_FAIL).
 */
import type { FailureClass } from '../../state/state.js';
import type { TaskMarkers } from './markers.js';

/**
 * What slurmstepd writes to the job's log when it ends a task for memory, however the cluster
 * enforces it: the cgroup's out-of-memory killer ("Detected 1 oom-kill event(s) in
 * StepId=12.batch"), or, without cgroups, the accounting poll's kill
 * (JobAcctGatherParams=OverMemoryKill: "StepId=12.batch exceeded memory limit (X > Y), being
 * killed", "Job 12 …" in older versions, then the notice "Exceeded job memory limit"). Not
 * "Exceeded job memory limit at some point", which older cgroup plugins print of a task that
 * was not killed.
 */
const KILLED_FOR_MEMORY =
  /oom[-_]kill event|exceeded (?:virtual )?memory limit \(\d+ > \d+\), being killed|Exceeded job memory limit(?! at some point)/i;

/** Whether a Slurm job's log says slurmstepd ended it for memory (cgroup or OverMemoryKill). */
export function killedForMemory(log: string): boolean {
  return KILLED_FOR_MEMORY.test(log);
}

/** Slurm sends SIGTERM when the limit is reached, seen by a pass up to half a minute late: a little earlier still counts. */
const LIMIT_SLACK_S = 5;

export interface MarkerVerdict {
  cls: 'completed' | FailureClass;
  exitCode?: number;
  reason?: string;
  /** When it ended, where the marker says (ISO). */
  at?: string;
}

/**
 * The class of a task that started (its start marker is there) and that the queue no longer
 * lists. `now` is when the queue was seen without it; `log` is its log, read for slurmstepd's
 * out-of-memory line.
 */
export function classifyByMarkers(m: TaskMarkers, walltimeSeconds: number, now: string, log: string): MarkerVerdict {
  const started = m.startedAt === undefined ? undefined : Date.parse(m.startedAt);
  const end = m.end;
  if (end === undefined) {
    if (killedForMemory(log))
      return { cls: 'out_of_memory', reason: 'over its memory limit (the log says so; no end marker)' };
    if (started !== undefined && Date.parse(now) >= started + walltimeSeconds * 1000)
      return {
        cls: 'timeout',
        reason:
          'reached its walltime: it left no end marker, so it was killed at its time limit after ignoring SIGTERM',
      };
    return {
      cls: 'node_fail',
      reason: `left no end marker before its walltime${m.node ? ` on ${m.node}` : ''}: its node failed or it was killed`,
    };
  }
  const base = { exitCode: end.code, at: end.at };
  if (end.signal === 'TERM') {
    const ran = started === undefined ? Infinity : (Date.parse(end.at) - started) / 1000;
    if (ran >= walltimeSeconds - LIMIT_SLACK_S) return { ...base, cls: 'timeout', reason: 'reached its walltime' };
    return {
      ...base,
      cls: 'cancelled',
      reason: `ended by SIGTERM after ${Math.round(ran)}s, before its walltime: cancelled or preempted (the scheduler no longer says which)`,
    };
  }
  if (killedForMemory(log))
    return { ...base, cls: 'out_of_memory', reason: `over its memory limit (exit ${end.code})` };
  if (end.code === 0) return { ...base, cls: 'completed' };
  return { ...base, cls: 'failed', reason: `exit ${end.code}` };
}
