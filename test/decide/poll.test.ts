/** How long the controller waits between passes: the scheduler asked rarely, but on time. */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { manifest as manifestSchema } from '../../src/manifest/schema.js';
import { planCampaign } from '../../src/plan/plan.js';
import { PollPacer, pollLimits } from '../../src/decide/poll.js';
import { emptyState, TASK_STATUSES, type CampaignState, type TaskState } from '../../src/state/state.js';

const T0 = Date.parse('2026-11-30T12:00:00.000Z');
const iso = (offsetSeconds: number): string => new Date(T0 + offsetSeconds * 1000).toISOString();

/** A phase of `size` tasks, p/n1 to p/nSIZE. */
function planOf(timing: Record<string, unknown>, size = 5) {
  const n = Array.from({ length: size }, (_, i) => i + 1);
  return planCampaign(
    manifestSchema.parse({
      campaign: 'c',
      cluster: { executor: 'slurm', name: 'x' },
      workdir: 'w',
      phases: [{ name: 'p', grid: { n }, command: 'true', ...timing }],
    }),
  );
}
// Each task is expected to take 10 s (its walltime is a minute).
const cost = { unit: 'step', units: 10, per_unit: '1s', measured_on: 'x' };
const costed = planOf({ cost });
const fixed = planOf({ walltime: '5m' });
/** Twelve tasks of 10 s, packed as `pack` says. */
const packedPlan = (pack: unknown) => planOf({ cost, pack }, 12);

const running = (startedAt: number): TaskState => ({
  status: 'running',
  attempts: [{ n: 1, submittedAt: iso(-60), startedAt: iso(startedAt) }],
});
const queued: TaskState = { status: 'submitted', attempts: [{ n: 1, submittedAt: iso(-60) }] };
const done: TaskState = { status: 'completed', attempts: [{ n: 1, submittedAt: iso(-60), class: 'completed' }] };

function stateWith(tasks: Record<string, TaskState>): CampaignState {
  return { ...emptyState('c', iso(-100)), phases: { p: { status: 'full' } }, tasks };
}
const slurm = pollLimits('slurm');

describe('polling a scheduler', () => {
  it('without a cost model nor a completed task, looks soon after a task starts, then less and less often', () => {
    const pacer = new PollPacer(fixed, slurm);
    const waits = [0, 5, 12, 40, 600].map((since) =>
      pacer.next(stateWith({ 'p/n1': running(-since), 'p/n2': running(-600), 'p/n3': queued }), T0),
    );
    expect(waits).toEqual([1, 2.5, 6, 20, 30]);
  });

  it('without a cost model nor a completed task, looks soon after a submission, as the tasks may end at once', () => {
    const submitted = (at: number): TaskState => ({ status: 'submitted', attempts: [{ n: 1, submittedAt: iso(at) }] });
    const pacer = new PollPacer(fixed, slurm);
    expect([0, -8, -300].map((at) => pacer.next(stateWith({ 'p/n1': submitted(at) }), T0))).toEqual([1, 4, 30]);
  });

  it('without a cost model, takes the median run time of the completed tasks of the stratum for one', () => {
    const ran = (seconds: number): TaskState => ({
      status: 'completed',
      attempts: [
        { n: 1, submittedAt: iso(-100), startedAt: iso(-90), endedAt: iso(-90 + seconds), class: 'completed' },
      ],
    });
    const pacer = new PollPacer(fixed, slurm);
    // Run times 4, 6 and 50 s: 6 s it is. The running ones end at +2 s and +5 s, the last at +5 s.
    const last = stateWith({
      'p/n1': ran(4),
      'p/n2': ran(50),
      'p/n3': ran(6),
      'p/n4': running(-4),
      'p/n5': running(-1),
    });
    expect(pacer.next(last, T0)).toBe(6);
    // With more to submit, the first end frees room: 2 s, and a second to record it.
    const more = stateWith({ 'p/n1': ran(4), 'p/n2': ran(50), 'p/n3': ran(6), 'p/n4': running(-4) });
    expect(pacer.next(more, T0)).toBe(3);
  });

  it('with more tasks queued than run, looks when the last wave of them can have run in the running ones’ places', () => {
    const state = stateWith({
      'p/n1': running(-5),
      'p/n2': running(-5),
      'p/n3': queued,
      'p/n4': queued,
      'p/n5': queued,
    });
    // The running ones end at +5 s; then two waves of 10 s: +25 s, and a second to record it.
    expect(new PollPacer(costed, pollLimits('slurm', 60)).next(state, T0)).toBe(26);
    expect(new PollPacer(costed, slurm).next(state, T0)).toBe(26);
  });

  it('a pass between two waves (few running) counts the places as many as it saw taken before', () => {
    const pacer = new PollPacer(costed, pollLimits('slurm', 60));
    const before = { 'p/n1': running(-5), 'p/n2': running(-5), 'p/n3': queued, 'p/n4': queued, 'p/n5': queued };
    expect(pacer.next(stateWith(before), T0)).toBe(26);
    // One of the two ended and its place is not taken yet: still two places, not one (+35 s).
    expect(pacer.next(stateWith({ ...before, 'p/n1': done }), T0)).toBe(26);
  });

  it('in the last round, looks right after the queued tasks can have run in the running ones’ place', () => {
    const state = stateWith({ 'p/n1': running(-5), 'p/n2': running(-3), 'p/n3': queued, 'p/n4': queued, 'p/n5': done });
    // The running ones end at +5 s and +7 s; the queued ones, started then, 10 s later.
    expect(new PollPacer(costed, pollLimits('slurm', 60)).next(state, T0)).toBe(18);
  });

  it('with nothing running, waits for the time a queued task needs once started', () => {
    const state = stateWith({ 'p/n1': queued, 'p/n2': queued, 'p/n3': done, 'p/n4': done, 'p/n5': done });
    expect(new PollPacer(costed, slurm).next(state, T0)).toBe(11);
  });

  it('looks right after the last expected end, when it ends the campaign', () => {
    const state = stateWith({ 'p/n1': running(-8), 'p/n2': running(-3), 'p/n3': done, 'p/n4': done, 'p/n5': done });
    // The last ends at +7 s; a second more lets accounting record it.
    expect(new PollPacer(costed, slurm).next(state, T0)).toBe(8);
  });

  it('looks right after the first expected end when tasks wait for the room it frees', () => {
    const state = stateWith({ 'p/n1': running(-8), 'p/n2': running(-3) });
    expect(new PollPacer(costed, slurm).next(state, T0)).toBe(3);
  });

  it('looks soon after a task overruns its expected end, then less and less often', () => {
    const pacer = new PollPacer(costed, slurm);
    const waits = [11, 20, 50, 200].map((since) => pacer.next(stateWith({ 'p/n1': running(-since) }), T0));
    expect(waits).toEqual([1, 5, 20, 30]);
  });

  describe('packed tasks, which run in turn in their array element', () => {
    // Each task of element `e` carries the element's handle, as the executor records it.
    const inElement = (e: number, t: TaskState): TaskState => ({
      ...t,
      attempts: t.attempts.map((a) => ({ ...a, handle: `7_${e}` })),
    });
    /** The grid's 12 tasks in elements of `size`: `first`, then `rest` for the others. */
    const elementsOf = (size: number, first: TaskState[], rest: TaskState): Record<string, TaskState> => {
      const tasks = [...first, ...Array<TaskState>(12 - first.length).fill(rest)];
      return Object.fromEntries(tasks.map((t, i) => [`p/n${i + 1}`, inElement(Math.floor(i / size), t)]));
    };

    it('looks when the element with the most left can have run it all, not when its tasks would be spread over the places', () => {
      // Two elements of 6 (the second's last task waits in turn): the first's running task ends
      // at +6 s, then 3 more of 10 s each: +36 s. Spread over the two places they would end at +26 s.
      const tasks = elementsOf(6, [running(-4), queued, queued, queued, done, done, running(-8), queued], done);
      expect(new PollPacer(packedPlan(6), pollLimits('slurm', 60)).next(stateWith(tasks), T0)).toBe(37);
    });

    it('counts the waves of an element that runs its tasks side by side', () => {
      // Four tasks two at a time: the running ones end at +6 s and +8 s, the other two together 10 s later.
      const tasks = elementsOf(4, [running(-4), running(-2), queued, queued], done);
      const packed = packedPlan({ tasks: 4, parallel: 2 });
      expect(new PollPacer(packed, pollLimits('slurm', 60)).next(stateWith(tasks), T0)).toBe(19);
    });

    it('while its elements start, looks again soon: the places they take are not all seen yet', () => {
      const pacer = new PollPacer(packedPlan(4), pollLimits('slurm', 60));
      // Sent 2 s ago.
      const sent: TaskState = { status: 'submitted', attempts: [{ n: 1, submittedAt: iso(-2) }] };
      const all = (first: TaskState[]) => stateWith(elementsOf(4, first, sent));
      // Nothing runs yet, so no task can end before its 10 s.
      expect(pacer.next(all([]), T0)).toBe(11);
      // One element of three started: the other two may be starting too, not waiting for its place.
      expect(pacer.next(all([running(-1)]), T0)).toBe(1);
      // All three started: each runs its four tasks in turn, the last (started now) ends at +40 s.
      const started = [running(-1), sent, sent, sent, running(-1), sent, sent, sent, running(0)];
      expect(pacer.next(all(started), T0)).toBe(41);
    });

    it('does not look every second while elements that waited long in the queue start one by one', () => {
      const pacer = new PollPacer(packedPlan(4), pollLimits('slurm', 120));
      const all = (first: TaskState[]) => stateWith(elementsOf(4, first, queued));
      pacer.next(all([running(-1)]), T0);
      // A second element started, the third sent a minute ago waits: it takes a place when one
      // frees, at +40 s, and runs its 40 s.
      expect(pacer.next(all([running(-1), queued, queued, queued, running(0)]), T0)).toBe(81);
    });
  });

  it('comes back when a retry may be submitted', () => {
    const state = stateWith({
      'p/n1': { status: 'retrying', notBefore: iso(12), attempts: [{ n: 1, submittedAt: iso(-60), class: 'failed' }] },
      'p/n2': queued,
    });
    expect(new PollPacer(fixed, slurm).next(state, T0)).toBe(13);
  });

  it('keeps the longest interval a user sets, and never looks more often than every second', () => {
    expect(pollLimits('slurm', 5)).toEqual({ costly: true, minSeconds: 1, maxSeconds: 5 });
    expect(pollLimits('slurm', 0.5)).toEqual({ costly: true, minSeconds: 0.5, maxSeconds: 0.5 });
  });

  it('stays within its limits over any passes it sees, packed or not', () => {
    const task = fc.record({
      status: fc.constantFrom(...TASK_STATUSES),
      submitted: fc.integer({ min: -10_000, max: 0 }),
      started: fc.option(fc.integer({ min: -10_000, max: 100 })),
      notBefore: fc.option(fc.integer({ min: -10_000, max: 10_000 })),
      element: fc.option(fc.integer({ min: 0, max: 3 })),
    });
    const plans = [costed, fixed, packedPlan(4), packedPlan({ tasks: 4, parallel: 2 }), packedPlan('auto')];
    type RandomTask = typeof task extends fc.Arbitrary<infer T> ? T : never;
    const stateOf = (tasks: RandomTask[]) =>
      stateWith(
        Object.fromEntries(
          tasks.map((t, i): [string, TaskState] => [
            `p/n${i + 1}`,
            {
              status: t.status,
              attempts: [
                {
                  n: 1,
                  submittedAt: iso(t.submitted),
                  ...(t.started === null ? {} : { startedAt: iso(t.started) }),
                  ...(t.element === null ? {} : { handle: `7_${t.element}` }),
                },
              ],
              ...(t.notBefore === null ? {} : { notBefore: iso(t.notBefore) }),
            },
          ]),
        ),
      );
    fc.assert(
      fc.property(
        fc.constantFrom(...plans),
        fc.array(fc.array(task, { maxLength: 12 }), { minLength: 1, maxLength: 4 }),
        fc.integer({ min: 1, max: 120 }),
        (plan, passes, max) => {
          const limits = pollLimits('slurm', max);
          const pacer = new PollPacer(plan, limits);
          for (const tasks of passes) {
            const state = stateOf(tasks);
            expect(pacer.quietSeconds(state, T0)).toBeGreaterThanOrEqual(0);
            const wait = pacer.next(state, T0);
            expect(wait).toBeGreaterThanOrEqual(limits.minSeconds);
            expect(wait).toBeLessThanOrEqual(limits.maxSeconds);
          }
        },
      ),
    );
  });
});

describe('polling processes that are free to look at', () => {
  it('looks again soon after something changed, less and less often while nothing does', () => {
    const pacer = new PollPacer(fixed, pollLimits('local'));
    const a = stateWith({ 'p/n1': running(-1) });
    const b = stateWith({ 'p/n1': done });
    const waits = [a, a, a, b, b].map((s) => pacer.next(s, T0));
    expect(waits.map((w) => Math.round(w * 1000))).toEqual([100, 150, 225, 100, 150]);
  });
});
