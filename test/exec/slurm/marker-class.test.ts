/**
 * An ended Slurm task classed by its markers and log alone (exec/slurm/marker-class.ts), as
 * a pass does once the queue has forgotten the job: each branch, and the edges of the slack
 * that tells a time limit from a cancel.
 */
import { describe, expect, it } from 'vitest';
import { classifyByMarkers, killedForMemory } from '../../../src/exec/slurm/marker-class.js';
import type { TaskMarkers } from '../../../src/exec/slurm/markers.js';

const START = Date.parse('2025-01-01T00:00:00.000Z');
const WALLTIME = 300;
const iso = (secondsAfterStart: number): string => new Date(START + secondsAfterStart * 1000).toISOString();
/** What slurmstepd appends to the job's log when the cgroup's out-of-memory killer struck. */
const OOM_LOG =
  'hello\nslurmstepd: error: Detected 1 oom-kill event(s) in StepId=12.batch. Some of your processes may have been killed by the cgroup out-of-memory handler.\n';

/**
 * What slurmstepd appends when a cluster without cgroups enforces memory by its accounting poll
 * (JobAcctGatherParams=OverMemoryKill): the poll's error (jobacct_gather_handle_mem_limit, the
 * step named by %ps), then the notice it sends before the SIGKILL (_acct_kill_step).
 */
const OVER_MEMORY_KILL_LOG =
  'step 3\nslurmstepd: error: StepId=123.batch exceeded memory limit (1048576000 > 104857600), being killed\nslurmstepd: error: Exceeded job memory limit\n';

function markers(end?: TaskMarkers['end'], start: { at?: string; node?: string } = { at: iso(0), node: 'vm' }) {
  return {
    key: 'abcdef012345',
    index: 2,
    jobId: '12',
    ...(start.at ? { startedAt: start.at } : {}),
    ...(start.node ? { node: start.node } : {}),
    ...(end ? { end } : {}),
  } satisfies TaskMarkers;
}

const ended = (after: number, code: number, extra: { signal?: 'TERM'; gate?: string } = {}) => ({
  at: iso(after),
  code,
  ...extra,
});

describe('classifyByMarkers: an end marker', () => {
  it('exit 0 is completed, with its exit code and end time', () => {
    expect(classifyByMarkers(markers(ended(7, 0)), WALLTIME, iso(100), 'done\n')).toEqual({
      cls: 'completed',
      exitCode: 0,
      at: iso(7),
    });
  });

  it('another exit status is failed, and says which', () => {
    expect(classifyByMarkers(markers(ended(7, 3)), WALLTIME, iso(100), '')).toEqual({
      cls: 'failed',
      exitCode: 3,
      reason: 'exit 3',
      at: iso(7),
    });
  });

  it("a gate's end is failed with the gate's status here: the log's gate line makes it a gate (the executor's verify)", () => {
    expect(classifyByMarkers(markers(ended(1, 97, { gate: 'setup' })), WALLTIME, iso(100), '')).toEqual({
      cls: 'failed',
      exitCode: 97,
      reason: 'exit 97',
      at: iso(1),
    });
  });

  it("slurmstepd's oom-kill line in the log is out of memory, whatever the status", () => {
    for (const code of [137, 1, 0])
      expect(classifyByMarkers(markers(ended(4, code)), WALLTIME, iso(100), OOM_LOG)).toEqual({
        cls: 'out_of_memory',
        exitCode: code,
        reason: `over its memory limit (exit ${code})`,
        at: iso(4),
      });
    expect(classifyByMarkers(markers(ended(4, 137)), WALLTIME, iso(100), 'oom_kill event\n').cls).toBe('out_of_memory');
  });

  it('SIGTERM well before the walltime is cancelled (or preempted: the marker cannot tell)', () => {
    expect(classifyByMarkers(markers(ended(42.4, 143, { signal: 'TERM' })), WALLTIME, iso(100), '')).toEqual({
      cls: 'cancelled',
      exitCode: 143,
      reason:
        'ended by SIGTERM after 42s, before its walltime: cancelled or preempted (the scheduler no longer says which)',
      at: iso(42.4),
    });
  });

  it('SIGTERM at the walltime, or up to 5 s before it, is a timeout; earlier than that it is a cancel', () => {
    const cls = (after: number) =>
      classifyByMarkers(markers(ended(after, 143, { signal: 'TERM' })), WALLTIME, iso(400), '').cls;
    expect(cls(WALLTIME + 30)).toBe('timeout');
    expect(cls(WALLTIME)).toBe('timeout');
    expect(cls(WALLTIME - 5)).toBe('timeout');
    expect(cls(WALLTIME - 5.01)).toBe('cancelled');
    expect(classifyByMarkers(markers(ended(WALLTIME, 143, { signal: 'TERM' })), WALLTIME, iso(400), '')).toEqual({
      cls: 'timeout',
      exitCode: 143,
      reason: 'reached its walltime',
      at: iso(WALLTIME),
    });
  });

  it('SIGTERM wins over an oom-kill line: the signal says more about the end', () => {
    expect(classifyByMarkers(markers(ended(10, 143, { signal: 'TERM' })), WALLTIME, iso(100), OOM_LOG).cls).toBe(
      'cancelled',
    );
  });

  it('SIGTERM with no start marker to measure from counts as the walltime reached', () => {
    expect(classifyByMarkers(markers(ended(10, 143, { signal: 'TERM' }), {}), WALLTIME, iso(100), '').cls).toBe(
      'timeout',
    );
  });
});

describe('killedForMemory: slurmstepd ended it for memory, however the cluster enforces it', () => {
  it("the cgroup's oom-kill line, and each of OverMemoryKill's lines on its own", () => {
    expect(killedForMemory(OOM_LOG)).toBe(true);
    expect(killedForMemory(OVER_MEMORY_KILL_LOG)).toBe(true);
    for (const line of [
      'slurmstepd: error: StepId=123.batch exceeded memory limit (1048576000 > 104857600), being killed',
      // Older versions name the job, not the step.
      'slurmstepd: error: Job 123 exceeded memory limit (1048576000 > 104857600), being killed',
      'slurmstepd: error: StepId=123.batch exceeded virtual memory limit (3145728000 > 125829120), being killed',
      'slurmstepd: error: Exceeded job memory limit',
    ])
      expect(killedForMemory(`hello\n${line}\n`), line).toBe(true);
  });

  it('not a log that only mentions memory, nor the warning of a task that was not killed', () => {
    for (const log of [
      'hello\n',
      'slurmstepd: error: Exceeded job memory limit at some point.\n',
      'my model exceeded memory limit checks: fine\n',
      'RuntimeError: out of memory\n',
    ])
      expect(killedForMemory(log), log).toBe(false);
  });
});

describe('classifyByMarkers: out of memory by OverMemoryKill (no cgroup)', () => {
  it('killed with SIGKILL, so no end marker: out of memory, as by the cgroup line', () => {
    expect(classifyByMarkers(markers(), WALLTIME, iso(100), OVER_MEMORY_KILL_LOG)).toEqual({
      cls: 'out_of_memory',
      reason: 'over its memory limit (the log says so; no end marker)',
    });
  });

  it('with an end marker (the batch shell outlived the kill), out of memory with its exit status', () => {
    expect(classifyByMarkers(markers(ended(4, 137)), WALLTIME, iso(100), OVER_MEMORY_KILL_LOG)).toEqual({
      cls: 'out_of_memory',
      exitCode: 137,
      reason: 'over its memory limit (exit 137)',
      at: iso(4),
    });
  });
});

describe('classifyByMarkers: no end marker', () => {
  it('an oom-kill line in the log is out of memory, with no exit code or end time', () => {
    expect(classifyByMarkers(markers(), WALLTIME, iso(100), OOM_LOG)).toEqual({
      cls: 'out_of_memory',
      reason: 'over its memory limit (the log says so; no end marker)',
    });
  });

  it('seen gone at or after its walltime is a timeout (it ignored SIGTERM and was killed)', () => {
    for (const now of [WALLTIME, WALLTIME + 600])
      expect(classifyByMarkers(markers(), WALLTIME, iso(now), '')).toEqual({
        cls: 'timeout',
        reason:
          'reached its walltime: it left no end marker, so it was killed at its time limit after ignoring SIGTERM',
      });
  });

  it('seen gone before its walltime is a node failure, naming the node where the start marker does', () => {
    expect(classifyByMarkers(markers(), WALLTIME, iso(WALLTIME - 0.001), '')).toEqual({
      cls: 'node_fail',
      reason: 'left no end marker before its walltime on vm: its node failed or it was killed',
    });
    expect(classifyByMarkers(markers(undefined, { at: iso(0) }), WALLTIME, iso(10), '')).toEqual({
      cls: 'node_fail',
      reason: 'left no end marker before its walltime: its node failed or it was killed',
    });
  });

  it('with no start marker either, nothing says the walltime passed: a node failure', () => {
    expect(classifyByMarkers(markers(undefined, {}), WALLTIME, iso(WALLTIME * 10), '').cls).toBe('node_fail');
  });
});
