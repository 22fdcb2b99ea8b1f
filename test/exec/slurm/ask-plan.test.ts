/**
 * What a pass of the Slurm executor asks and how it judges an attempt by the answers
 * (exec/slurm/ask-plan.ts), without a cluster: markers first, the queue on its cadence, and
 * an ended task settled by its witness, accounting with a shell and the queue on an automation
 * node.
 */
import { describe, expect, it } from 'vitest';
import type { JobRecord } from '../../../src/exec/slurm/accounting.js';
import {
  ACCOUNTING,
  firstAsks,
  laggingEnds,
  QUEUE,
  SCHEDULER_EVERY_MS,
  verdictOf,
  type Answered,
  type PassSeen,
  type SeenAttempt,
} from '../../../src/exec/slurm/ask-plan.js';

const NOW = Date.parse('2025-01-01T01:00:00.000Z');
const iso = (msBefore: number): string => new Date(NOW - msBefore).toISOString();

const seen = (index: number, extra: Partial<SeenAttempt> = {}): SeenAttempt => ({
  handle: `12_${index}`,
  job: '12',
  startedAt: iso(10_000),
  walltimeSeconds: 300,
  end: undefined,
  ...extra,
});
const pass = (extra: Partial<PassSeen>): PassSeen => ({
  open: [],
  ended: [],
  pending: new Set(),
  nowMs: NOW,
  queueAskedAt: NOW - 1_000,
  ...extra,
});
const record = (state: string, extra: Partial<JobRecord> = {}): JobRecord => ({
  handle: '12_0',
  name: 'c~k',
  state,
  ...extra,
});
const answered = (extra: Partial<Answered>): Answered => ({
  markers: undefined,
  record: undefined,
  job: '12',
  packed: false,
  reread: false,
  ...extra,
});
const endMarkers = (code: number, signal?: 'TERM') => ({
  key: 'abcdef012345',
  index: 0,
  jobId: '12',
  startedAt: iso(10_000),
  end: { at: iso(2_000), code, ...(signal ? { signal } : {}) },
});

describe('the first questions of a pass', () => {
  it('asks nothing of tasks that run and ended well, until the cadence or a walltime comes', () => {
    const ended = [seen(1, { end: { at: iso(2_000), code: 0 } })];
    expect(firstAsks(ACCOUNTING, pass({ open: [seen(0)], ended }))).toEqual({ queue: false, jobs: new Set() });
    expect(firstAsks(QUEUE, pass({ open: [seen(0)], ended }))).toEqual({ queue: false, jobs: new Set() });
    const due = pass({ open: [seen(0)], queueAskedAt: NOW - SCHEDULER_EVERY_MS });
    expect(firstAsks(ACCOUNTING, due).queue).toBe(true);
    const overdue = pass({ open: [seen(0, { startedAt: iso(301_000) })], queueAskedAt: NOW - 2_000 });
    expect(firstAsks(QUEUE, overdue).queue).toBe(true);
  });

  it("puts a failure to accounting at once with a shell, and a signal's end to the queue without one", () => {
    const failed = pass({ open: [seen(0)], ended: [seen(1, { end: { at: iso(2_000), code: 3 } })] });
    expect(firstAsks(ACCOUNTING, failed)).toEqual({ queue: false, jobs: new Set(['12']) });
    // Without accounting, the markers tell a plain failure as well as the queue would.
    expect(firstAsks(QUEUE, failed)).toEqual({ queue: false, jobs: new Set() });
    const killed = pass({ open: [seen(0)], ended: [seen(1, { end: { at: iso(2_000), code: 143, signal: 'TERM' } })] });
    expect(firstAsks(QUEUE, killed)).toEqual({ queue: true, jobs: new Set() });
  });

  it('settles the last ends by the queue only where accounting was asked of them all', () => {
    const ended = [seen(0, { end: { at: iso(2_000), code: 0 } })];
    const lagging = new Map([['12_0', record('RUNNING')]]);
    expect(laggingEnds(pass({ ended }), lagging, { queue: false, jobs: new Set(['12']) }, true)).toEqual(
      new Set(['12_0']),
    );
    expect(laggingEnds(pass({ ended }), lagging, { queue: false, jobs: new Set() }, true)).toEqual(new Set());
    expect(laggingEnds(pass({ ended }), lagging, { queue: false, jobs: new Set(['12']) }, false)).toEqual(new Set());
  });
});

describe('the verdict on an attempt', () => {
  const asked = { queue: true, jobs: new Set(['12']) };

  it("judges an ended task by accounting's record, never by the queue's alone", () => {
    const m = endMarkers(0);
    expect(verdictOf(ACCOUNTING, answered({ markers: m, record: record('COMPLETED') }), asked, true, NOW)).toEqual({
      by: 'record',
    });
    const queueOnly = answered({ markers: m, record: record('COMPLETED', { queueOnly: true }) });
    expect(verdictOf(ACCOUNTING, queueOnly, asked, true, NOW)).toEqual({
      by: 'later',
      askAgain: true,
      placeFree: true,
    });
    // Accounting failing: the markers judge it.
    expect(verdictOf(ACCOUNTING, queueOnly, asked, false, NOW)).toEqual({ by: 'markers' });
  });

  it("judges an ended task by the queue's record without accounting, and by its markers once the queue forgot it", () => {
    const m = endMarkers(143, 'TERM');
    const inQueue = answered({ markers: m, record: record('CANCELLED', { queueOnly: true }) });
    expect(verdictOf(QUEUE, inQueue, asked, false, NOW)).toEqual({ by: 'record' });
    expect(verdictOf(QUEUE, answered({ markers: m }), asked, false, NOW)).toEqual({ by: 'markers' });
    expect(verdictOf(QUEUE, inQueue, { queue: false, jobs: new Set() }, false, NOW)).toEqual({ by: 'markers' });
  });

  it('takes a packed task whose element ended before its turn for one that never started', () => {
    const verdict = verdictOf(ACCOUNTING, answered({ packed: true, record: record('TIMEOUT') }), asked, true, NOW);
    expect(verdict).toEqual({ by: 'unstarted' });
    expect(verdictOf(ACCOUNTING, answered({}), asked, true, NOW)).toEqual({ by: 'absent' });
  });
});
