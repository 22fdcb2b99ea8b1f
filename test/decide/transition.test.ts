/**
 * The controller's decisions (decide/apply.ts, retry.ts, start.ts, step.ts and policy.ts): smoke
 * before full, the checklist releases the full arrays, failures block dependents with a reason,
 * retries are bounded, and a campaign always comes to rest (DESIGN rules 6 and 10).
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { manifest as manifestSchema, type Manifest } from '../../src/manifest/schema.js';
import { planCampaign, smokeDefinitions, type Plan } from '../../src/plan/plan.js';
import type { Action, CampaignEvent, Submission } from '../../src/state/events.js';
import { checklistKey } from '../../src/judge/checklist.js';
import { retryPolicy } from '../../src/decide/policy.js';
import {
  emptyState,
  FAILURE_CLASSES,
  TASK_STATUSES,
  TERMINAL,
  type CampaignState,
  type CheckResult,
  type FailureClass,
} from '../../src/state/state.js';
import { changedSince, indexOf, TaskIndex } from '../../src/state/task-index.js';
import { applyEvents } from '../../src/decide/apply.js';
import type { RetryPolicy } from '../../src/decide/retry.js';
import { checklistsChanged, startRun } from '../../src/decide/start.js';
import { atRest, diskFullTasks, step } from '../../src/decide/step.js';
import { rng } from '../helpers/random.js';

const T0 = Date.parse('2025-01-01T00:00:00.000Z');
const at = (minutes: number): string => new Date(T0 + minutes * 60_000).toISOString();

interface Setup {
  manifest: Manifest;
  plan: Plan;
  policy: RetryPolicy;
}

function setup(phases: object[], extra: object = {}): Setup {
  const manifest = manifestSchema.parse({
    campaign: 'c',
    cluster: { executor: 'local' },
    workdir: '.',
    phases,
    ...extra,
  });
  return { manifest, plan: planCampaign(manifest), policy: retryPolicy(manifest) };
}

const submissionsOf = (actions: readonly Action[]): Submission[] =>
  actions.flatMap((a) => (a.type === 'submit' ? a.submissions : []));
const idsOf = (actions: readonly Action[]): string[] => submissionsOf(actions).map((s) => s.task.id);

/** The executor's answer to a submit action: every submission accepted. */
const accepted = (subs: readonly Submission[], when: string): CampaignEvent[] =>
  subs.map((s) => ({
    type: 'submitted',
    task: s.task.id,
    attempt: s.attempt,
    at: when,
    handle: `h-${s.task.id}-${s.attempt}`,
    ...(s.memBytes === undefined ? {} : { memBytes: s.memBytes }),
  }));

const finished = (
  task: string,
  attempt: number,
  cls: 'completed' | FailureClass,
  when: string,
  reason?: string,
): CampaignEvent => ({ type: 'finished', task, attempt, at: when, class: cls, ...(reason ? { reason } : {}) });

const passed = (check: string): CheckResult => ({ check, passed: true, detail: 'ok' });

/** A small driver: step, accept every submission, return the new state and what was submitted. */
function submitStep(s: Setup, state: CampaignState, when: string, capacity = 100) {
  const r = step(state, s.plan, when, capacity);
  const subs = submissionsOf(r.actions);
  return { state: applyEvents(r.state, accepted(subs, when), s.policy), subs, actions: r.actions, stepped: r.state };
}

describe('stages: smoke first, full only after a passing checklist', () => {
  const phase = {
    name: 'train',
    grid: { seed: [1, 2, 3] },
    command: 'run ${seed}',
    output: 'out/${tag}.jsonl',
    smoke: {
      tasks: 1,
      trigger: [{ check: 'output_exists', otherwise: 'nothing was written' }],
    },
  };

  it('submits the smoke tasks first and nothing of the full stage, whatever the capacity', () => {
    const s = setup([phase]);
    const first = submitStep(s, emptyState('c', at(0)), at(0));
    expect(first.subs.map((x) => x.task.id)).toEqual(['train/smoke/seed1']);
    expect(first.subs[0]!.task.stage).toBe('smoke');
    expect(first.subs[0]!.attempt).toBe(1);
    expect(first.stepped.phases.train!.status).toBe('smoke');
    // While the smoke task runs, nothing else is submitted.
    const again = step(first.state, s.plan, at(1), 100);
    expect(again.actions).toEqual([]);
    expect(atRest(again.state, again.actions)).toBe(false);
  });

  it('submits a smoke stage of full runs, whose tasks have the ids of full tasks, as the smoke stage', () => {
    const s = setup([{ ...phase, smoke: { ...phase.smoke, tasks: 2, full_run: true } }]);
    const first = submitStep(s, emptyState('c', at(0)), at(0));
    expect(first.subs.map((x) => [x.task.id, x.array.stage])).toEqual([
      ['train/seed1', 'smoke'],
      ['train/seed2', 'smoke'],
    ]);
  });

  it('asks for the checklist once the smoke stage is done, and releases the full arrays only on a pass', () => {
    const s = setup([phase]);
    let state = submitStep(s, emptyState('c', at(0)), at(0)).state;
    state = applyEvents(state, [finished('train/smoke/seed1', 1, 'completed', at(1))], s.policy);
    const gate = step(state, s.plan, at(2), 100);
    expect(gate.actions).toEqual([{ type: 'evaluate_gate', phase: 'train' }]);
    expect(gate.state.phases.train!.status).toBe('gate');
    state = applyEvents(
      gate.state,
      [
        {
          type: 'gate',
          phase: 'train',
          at: at(3),
          results: [passed('all_completed'), passed('output_exists')],
          checklist: checklistKey(s.plan.phases[0]!.checklist),
          definitions: smokeDefinitions(s.plan.phases[0]!),
        },
      ],
      s.policy,
    );
    const full = step(state, s.plan, at(4), 100);
    expect(idsOf(full.actions)).toEqual(['train/seed1', 'train/seed2', 'train/seed3']);
    expect(full.state.phases.train!.status).toBe('full');
  });

  it('a failed checklist blocks the phase with the check, its detail and its interpretation, and blocks dependents', () => {
    const s = setup([phase, { name: 'eval', depends_on: 'train', grid: { k: [1, 2] }, command: 'eval' }]);
    let state = submitStep(s, emptyState('c', at(0)), at(0)).state;
    state = applyEvents(state, [finished('train/smoke/seed1', 1, 'completed', at(1))], s.policy);
    state = step(state, s.plan, at(2), 100).state;
    state = applyEvents(
      state,
      [
        {
          type: 'gate',
          phase: 'train',
          at: at(3),
          results: [
            passed('all_completed'),
            {
              check: 'output_exists',
              passed: false,
              detail: 'seed1: out/seed1.jsonl does not exist',
              otherwise: 'nothing was written',
            },
          ],
          checklist: checklistKey(s.plan.phases[0]!.checklist),
          definitions: smokeDefinitions(s.plan.phases[0]!),
        },
      ],
      s.policy,
    );
    const r = step(state, s.plan, at(4), 100);
    expect(submissionsOf(r.actions)).toEqual([]);
    expect(r.state.phases.train).toMatchObject({
      status: 'blocked',
      reason: 'smoke checklist failed: output_exists: seed1: out/seed1.jsonl does not exist → nothing was written',
    });
    for (const id of ['train/seed1', 'train/seed2', 'train/seed3']) expect(r.state.tasks[id]!.status).toBe('blocked');
    expect(r.state.phases.eval!.status).toBe('blocked');
    expect(r.state.phases.eval!.reason).toMatch(/^dependency train blocked: smoke checklist failed/);
    expect(r.state.tasks['eval/k1']).toMatchObject({ status: 'blocked', reason: r.state.phases.eval!.reason });
    expect(atRest(r.state, r.actions)).toBe(true);
    // And it stays so: a later pass submits nothing.
    const later = step(r.state, s.plan, at(60), 100);
    expect(later.actions).toEqual([]);
    expect(later.state.phases.train!.status).toBe('blocked');

    // The next run under the same checklist judges the same smoke results again; nothing is resent.
    expect(checklistsChanged(r.state, s.plan)).toEqual([]);
    const same = step(startRun(r.state, s.plan, { retryFailed: false }), s.plan, at(70), 100);
    expect(same.actions).toEqual([{ type: 'evaluate_gate', phase: 'train' }]);
    // Under a checklist edited since (keys reordered does not count), a new smoke stage runs:
    // a checklist is fixed before the smoke runs, never fitted to its results.
    const reordered = setup([
      phase,
      { name: 'eval', depends_on: 'train', grid: { k: [1, 2] }, command: 'eval' },
    ]).plan.phases.map((p) => ({
      ...p,
      checklist: p.checklist.map((c) => Object.fromEntries(Object.entries(c).reverse()) as typeof c),
    }));
    expect(checklistsChanged(r.state, { ...s.plan, phases: reordered })).toEqual([]);
    const edited = setup([
      { ...phase, smoke: { tasks: 1, trigger: [{ check: 'all_completed' }] } },
      { name: 'eval', depends_on: 'train', grid: { k: [1, 2] }, command: 'eval' },
    ]);
    expect(checklistsChanged(r.state, edited.plan)).toEqual(['train']);
    const again = submitStep(edited, startRun(r.state, edited.plan, { retryFailed: false }), at(80), 100);
    expect(again.subs.map((x) => [x.task.id, x.attempt])).toEqual([['train/smoke/seed1', 2]]);
  });
});

describe('failures in the full stage', () => {
  const phases = [
    { name: 'A', grid: { seed: [1, 2, 3] }, command: 'a' },
    { name: 'B', depends_on: ['A'], grid: { n: [1, 2] }, command: 'b' },
  ];

  it('a failed task fails its phase once the others have run to their end, and blocks dependents with the reason', () => {
    const s = setup(phases);
    // Capacity 1: the tasks run one after another, so the failure comes first.
    let r = submitStep(s, emptyState('c', at(0)), at(0), 1);
    expect(r.subs.map((x) => x.task.id)).toEqual(['A/seed1']);
    let state = applyEvents(r.state, [finished('A/seed1', 1, 'failed', at(1), 'exit 1')], s.policy);
    expect(state.tasks['A/seed1']).toMatchObject({ status: 'failed', reason: 'failed: exit 1' });

    r = submitStep(s, state, at(2), 1);
    expect(r.subs.map((x) => x.task.id)).toEqual(['A/seed2']);
    expect(r.stepped.phases.A!.status).toBe('full');
    expect(r.stepped.phases.B!.status).toBe('waiting');
    state = applyEvents(r.state, [finished('A/seed2', 1, 'completed', at(3))], s.policy);
    r = submitStep(s, state, at(4), 1);
    expect(r.subs.map((x) => x.task.id)).toEqual(['A/seed3']);
    state = applyEvents(r.state, [finished('A/seed3', 1, 'completed', at(5))], s.policy);

    const end = step(state, s.plan, at(6), 1);
    expect(end.actions).toEqual([]);
    expect(end.state.phases.A).toMatchObject({ status: 'failed', reason: '1 of 3 tasks did not complete' });
    expect(end.state.phases.B).toMatchObject({
      status: 'blocked',
      reason: 'dependency A failed: 1 of 3 tasks did not complete',
    });
    expect(end.state.tasks['B/n1']!.status).toBe('blocked');
    expect(end.state.tasks['B/n2']!.status).toBe('blocked');
    expect(end.state.tasks['A/seed2']!.status).toBe('completed');
    expect(atRest(end.state, end.actions)).toBe(true);
  });

  it('a phase whose tasks all complete is completed and its dependents start', () => {
    const s = setup(phases);
    let r = submitStep(s, emptyState('c', at(0)), at(0));
    expect(r.subs.map((x) => x.task.id)).toEqual(['A/seed1', 'A/seed2', 'A/seed3']);
    const state = applyEvents(
      r.state,
      r.subs.map((x) => finished(x.task.id, 1, 'completed', at(1))),
      s.policy,
    );
    r = submitStep(s, state, at(2));
    expect(r.stepped.phases.A!.status).toBe('completed');
    expect(r.subs.map((x) => x.task.id)).toEqual(['B/n1', 'B/n2']);
  });

  it('a submission the executor could not make fails the task with the reason', () => {
    const s = setup(phases);
    const r = step(emptyState('c', at(0)), s.plan, at(0), 1);
    const sub = submissionsOf(r.actions)[0]!;
    const state = applyEvents(
      r.state,
      [{ type: 'submit_failed', task: sub.task.id, attempt: 1, at: at(0), reason: 'sbatch: invalid account' }],
      s.policy,
    );
    expect(state.tasks['A/seed1']).toMatchObject({
      status: 'failed',
      reason: 'could not start: sbatch: invalid account',
    });
  });
});

describe('retries', () => {
  /** Runs one task through failures of the given classes, returning what was submitted. */
  function drive(s: Setup, classes: ('completed' | FailureClass)[], capacity = 10) {
    let state = emptyState('c', at(0));
    const subs: Submission[] = [];
    let minute = 0;
    for (const cls of classes) {
      const r = submitStep(s, state, at(minute), capacity);
      expect(r.subs).toHaveLength(1);
      subs.push(r.subs[0]!);
      state = applyEvents(r.state, [finished(r.subs[0]!.task.id, r.subs[0]!.attempt, cls, at(minute + 1))], s.policy);
      minute += 2;
    }
    const rest = step(state, s.plan, at(minute + 1000), capacity);
    return { subs, state: rest.state, actions: rest.actions };
  }

  const one = (extra: object = {}) => ({ name: 'p', command: 'x', ...extra });

  it('out_of_memory is retried `attempts` times, memory × mem_factor each time, then fails', () => {
    const s = setup([one()], {
      defaults: {
        resources: { mem: '1G' },
        retry: { out_of_memory: { attempts: 2, mem_factor: 1.5 } },
      },
    });
    const r = drive(s, ['out_of_memory', 'out_of_memory', 'out_of_memory']);
    const G = 1024 ** 3;
    expect(r.subs.map((x) => [x.attempt, x.memBytes])).toEqual([
      [1, G],
      [2, Math.ceil(G * 1.5)],
      [3, Math.ceil(Math.ceil(G * 1.5) * 1.5)],
    ]);
    expect(r.state.tasks['p/task']).toMatchObject({ status: 'failed', reason: 'out_of_memory (after 2 retries)' });
    expect(submissionsOf(r.actions)).toEqual([]);
    expect(r.state.phases.p!.status).toBe('failed');
  });

  it('a retry that then completes completes the task and the phase', () => {
    const s = setup([one()], { defaults: { retry: { out_of_memory: { attempts: 2 } } } });
    const r = drive(s, ['out_of_memory', 'completed']);
    expect(r.subs.map((x) => x.attempt)).toEqual([1, 2]);
    expect(r.state.tasks['p/task']!.status).toBe('completed');
    expect(r.state.phases.p!.status).toBe('completed');
  });

  it('a packed task its element never started is sent again as the next attempt, with no retry spent', () => {
    const s = setup([one()], { defaults: { retry: { timeout: { attempts: 1 } } } });
    let r = submitStep(s, emptyState('c', at(0)), at(0));
    let state = applyEvents(
      r.state,
      [{ type: 'unstarted', task: 'p/task', attempt: 1, at: at(1), reason: 'its element 7_0 ended TIMEOUT' }],
      s.policy,
    );
    expect(state.tasks['p/task']!.status).toBe('pending');
    expect(state.tasks['p/task']!.attempts[0]).toMatchObject({ class: 'cancelled', unstarted: true });
    r = submitStep(s, state, at(2));
    expect(r.subs.map((x) => x.attempt)).toEqual([2]);
    // Its one timeout retry is still there to spend.
    state = applyEvents(r.state, [finished('p/task', 2, 'timeout', at(3))], s.policy);
    expect(state.tasks['p/task']!.status).toBe('retrying');
  });

  it('a packed retry takes a job of its own within the room, and first attempts fill whole elements', () => {
    const s = setup(
      [
        {
          name: 'p',
          grid: { k: Array.from({ length: 40 }, (_, i) => i + 1) },
          command: 'run ${k}',
          walltime: '1m',
          pack: 10,
          retry: { failed: { attempts: 1 } },
        },
      ],
      { cluster: { executor: 'slurm', name: 't', partitions: [{ name: 'debug', max_time: '30m' }] } },
    );
    // Room for two jobs: two elements of ten.
    let r = submitStep(s, emptyState('c', at(0)), at(0), 2);
    expect(r.subs.length).toBe(20);
    const failing = r.subs[2]!.task.id;
    const state = applyEvents(
      r.state,
      r.subs.map((x) => finished(x.task.id, 1, x.task.id === failing ? 'failed' : 'completed', at(1))),
      s.policy,
    );
    // Two jobs again: the retry's element, alone, and one element of ten first attempts (not 19).
    r = submitStep(s, state, at(30), 2);
    expect(r.subs.filter((x) => x.attempt === 2).map((x) => x.task.id)).toEqual([failing]);
    expect(r.subs.filter((x) => x.attempt === 1).length).toBe(10);
  });

  it('timeout with attempts 0 is not retried', () => {
    const s = setup([one()], { defaults: { retry: { timeout: { attempts: 0 } } } });
    const r = drive(s, ['timeout']);
    expect(r.state.tasks['p/task']).toMatchObject({ status: 'failed', reason: 'timeout' });
    expect(r.actions).toEqual([]);
    expect(atRest(r.state, r.actions)).toBe(true);
  });

  it("a phase's retry rule wins over the defaults", () => {
    const s = setup([one({ retry: { timeout: { attempts: 1 } } })], {
      defaults: { retry: { timeout: { attempts: 0 } } },
    });
    const r = drive(s, ['timeout', 'timeout']);
    expect(r.subs.map((x) => x.attempt)).toEqual([1, 2]);
    expect(r.state.tasks['p/task']).toMatchObject({ status: 'failed', reason: 'timeout (after 1 retries)' });
  });

  it('a lost task is retried twice by default, a plain failure not at all', () => {
    const s = setup([one()]);
    const lost = drive(s, ['lost', 'lost', 'lost']);
    expect(lost.subs.map((x) => x.attempt)).toEqual([1, 2, 3]);
    expect(lost.state.tasks['p/task']).toMatchObject({ status: 'failed', reason: 'lost (after 2 retries)' });
    const failed = drive(s, ['failed']);
    expect(failed.state.tasks['p/task']!.status).toBe('failed');
    expect(failed.actions).toEqual([]);
  });

  it('a gate failure or a cancellation is never retried, whatever the manifest allows', () => {
    const s = setup([one({ retry: { failed: { attempts: 5 } } })]);
    expect(drive(s, ['gate']).state.tasks['p/task']!.status).toBe('failed');
    expect(drive(s, ['cancelled']).state.tasks['p/task']!.status).toBe('failed');
  });

  it('a retry is not submitted before its delay has passed, and the campaign is not at rest meanwhile', () => {
    const s = setup([one({ retry: { failed: { attempts: 1, delay: '10m' } } })]);
    let r = submitStep(s, emptyState('c', at(0)), at(0));
    const state = applyEvents(r.state, [finished('p/task', 1, 'failed', at(1))], s.policy);
    expect(state.tasks['p/task']).toMatchObject({ status: 'retrying', notBefore: at(11) });
    const early = step(state, s.plan, at(10), 10);
    expect(early.actions).toEqual([]);
    expect(atRest(early.state, early.actions)).toBe(false);
    r = submitStep(s, early.state, at(11));
    expect(r.subs.map((x) => [x.task.id, x.attempt])).toEqual([['p/task', 2]]);
  });

  it('an unverified result draws on the `failed` allowance: mixing the two does not double it', () => {
    const s = setup([one({ retry: { failed: { attempts: 1 } } })]);
    const r = drive(s, ['failed', 'unverified']);
    expect(r.subs.map((x) => x.attempt)).toEqual([1, 2]);
    expect(r.state.tasks['p/task']).toMatchObject({ status: 'failed', reason: 'unverified (after 1 retries)' });
    expect(r.actions).toEqual([]);
  });

  it('an unschedulable task is not sent again, whatever failed allows; a preempted one is, three times by default', () => {
    const stuck = setup([one()], { defaults: { retry: { failed: { attempts: 3 } } } });
    const r = drive(stuck, ['unschedulable']);
    expect(r.subs.map((x) => x.attempt)).toEqual([1]);
    expect(r.state.tasks['p/task']!.status).toBe('failed');
    const preempted = drive(setup([one()]), ['preempted', 'preempted', 'preempted', 'completed']);
    expect(preempted.subs.map((x) => x.attempt)).toEqual([1, 2, 3, 4]);
    expect(preempted.state.tasks['p/task']!.status).toBe('completed');
  });

  it('retries of different classes each use their own allowance', () => {
    const s = setup([one()], { defaults: { retry: { node_fail: { attempts: 1 }, lost: { attempts: 1 } } } });
    const r = drive(s, ['node_fail', 'lost', 'completed']);
    expect(r.subs.map((x) => x.attempt)).toEqual([1, 2, 3]);
    expect(r.state.tasks['p/task']!.status).toBe('completed');
  });
});

describe('a full disk pauses the campaign', () => {
  const grid = {
    name: 'p',
    grid: { k: [1, 2, 3, 4] },
    command: 'x',
    output: 'o${k}',
    retry: { failed: { attempts: 3 } },
  };

  it('holds back every task not yet sent, spends no retry, and the next run sends them all again', () => {
    const s = setup([grid, { name: 'q', depends_on: 'p', command: 'y' }]);
    // Two slots: k1 and k2 go out; k1 finds the disk full, k2 is still running.
    let r = submitStep(s, emptyState('c', at(0)), at(0), 2);
    expect(r.subs.map((x) => x.task.id)).toEqual(['p/k1', 'p/k2']);
    let state = applyEvents(r.state, [finished('p/k1', 1, 'disk_full', at(1), 'the disk is full: x')], s.policy);
    expect(state.tasks['p/k1']).toMatchObject({ status: 'failed' });
    r = submitStep(s, state, at(2), 10);
    expect(r.subs).toEqual([]);
    for (const id of ['p/k3', 'p/k4', 'q/task'])
      expect(r.state.tasks[id], id).toMatchObject({
        status: 'blocked',
        reason: expect.stringMatching(/^paused: the disk is full \(p\/k1\)/),
      });
    expect(atRest(r.state, r.actions)).toBe(false);
    state = applyEvents(r.state, [finished('p/k2', 1, 'completed', at(3))], s.policy);
    const rest = step(state, s.plan, at(4), 10);
    expect(atRest(rest.state, rest.actions)).toBe(true);

    // Room again: the next run sends k1 (its retries intact), k3 and k4.
    const again = submitStep(s, startRun(rest.state, s.plan, { retryFailed: false }), at(10), 10);
    expect(again.subs.map((x) => [x.task.id, x.attempt])).toEqual([
      ['p/k1', 2],
      ['p/k3', 1],
      ['p/k4', 1],
    ]);
    state = applyEvents(again.state, [finished('p/k1', 2, 'failed', at(11))], s.policy);
    expect(state.tasks['p/k1']).toMatchObject({ status: 'retrying' });
  });
});

/** The index a state's tasks record carries from state to state is the one a fresh look builds. */
function expectIndexFresh(state: CampaignState): void {
  const kept = indexOf(state.tasks);
  const fresh = TaskIndex.build(structuredClone(state.tasks));
  const sorted = (ids: ReadonlySet<string>): string[] => [...ids].sort();
  for (const status of TASK_STATUSES) expect(sorted(kept.ids(status)), status).toEqual(sorted(fresh.ids(status)));
  expect(sorted(kept.diskFullIds())).toEqual(sorted(fresh.diskFullIds()));
}

/** What a save is told changed between two states covers every task that is not the same object. */
function expectChangesKnown(older: CampaignState, newer: CampaignState): void {
  const told = changedSince(older.tasks, newer.tasks);
  expect(told).toBeDefined();
  for (const id of new Set([...Object.keys(older.tasks), ...Object.keys(newer.tasks)]))
    if (older.tasks[id] !== newer.tasks[id]) expect(told!.has(id), id).toBe(true);
}

describe('the tasks that found the disk full', () => {
  // Carried from state to state rather than looked for among all tasks each time: always what a fresh look finds.
  const fresh = (state: CampaignState): string[] => diskFullTasks(structuredClone(state));
  it('are what a fresh look finds, however the state was made', () => {
    const s = setup([{ name: 'p', grid: { k: [1, 2, 3, 4] }, command: 'x', output: 'o${k}' }]);
    let r = submitStep(s, emptyState('c', at(0)), at(0), 3);
    let state = r.state;
    const seen: string[][] = [];
    const check = (x: CampaignState): void => {
      expect(diskFullTasks(x)).toEqual(fresh(x));
      seen.push(diskFullTasks(x));
    };
    check(state);
    state = applyEvents(state, [finished('p/k2', 1, 'disk_full', at(1))], s.policy);
    check(state);
    // Changed in place, as the controller's second application in a pass does.
    const owned = applyEvents(state, [finished('p/k1', 1, 'completed', at(2))], s.policy);
    state = applyEvents(owned, [finished('p/k3', 1, 'disk_full', at(2))], s.policy, owned.tasks);
    check(state);
    r = submitStep(s, state, at(3), 10);
    check(r.state);
    const restarted = startRun(r.state, s.plan, { retryFailed: false });
    expectIndexFresh(restarted);
    const again = submitStep(s, restarted, at(4), 10);
    check(again.state);
    state = applyEvents(again.state, [finished('p/k2', 2, 'completed', at(5))], s.policy);
    check(state);
    expect(seen).toEqual([[], ['p/k2'], ['p/k2', 'p/k3'], ['p/k2', 'p/k3'], [], []]);
  });
});

describe('a manifest that grew', () => {
  it('adds the new tasks as pending to a state made for the smaller plan', () => {
    const small = setup([{ name: 'p', grid: { k: [1, 2] }, command: 'x' }]);
    const big = setup([{ name: 'p', grid: { k: [1, 2, 3] }, command: 'x' }]);
    let state = submitStep(small, emptyState('c', at(0)), at(0), 10).state;
    state = applyEvents(state, [finished('p/k1', 1, 'completed', at(1))], small.policy);
    state = step(state, small.plan, at(2), 0).state;
    expect(Object.keys(state.tasks)).toEqual(['p/k1', 'p/k2']);
    const grown = step(state, big.plan, at(3), 10);
    expect(Object.keys(grown.state.tasks)).toEqual(['p/k1', 'p/k2', 'p/k3']);
    expect(grown.state.tasks['p/k3']).toEqual({ status: 'pending', attempts: [] });
    expect(submissionsOf(grown.actions).map((x) => x.task.id)).toEqual(['p/k3']);
  });
});

describe('a pass that changes nothing', () => {
  it('leaves the state as it was (its time too), so that saving it writes nothing', () => {
    const s = setup([{ name: 'A', grid: { seed: [1, 2] }, command: 'a' }]);
    const r = submitStep(s, emptyState('c', at(0)), at(0));
    const idle = step(r.state, s.plan, at(1), 0);
    expect(idle.state.updated).toBe(r.state.updated);
    expect(step(idle.state, s.plan, at(2), 0).state).toBe(idle.state);
  });
});

describe('capacity', () => {
  it('never submits more tasks than the capacity, across phases', () => {
    const s = setup([
      { name: 'a', grid: { i: [1, 2, 3, 4, 5] }, command: 'x' },
      { name: 'b', grid: { i: [1, 2, 3] }, command: 'x' },
    ]);
    expect(idsOf(step(emptyState('c', at(0)), s.plan, at(0), 0).actions)).toEqual([]);
    const r = submitStep(s, emptyState('c', at(0)), at(0), 2);
    expect(r.subs.map((x) => x.task.id)).toEqual(['a/i1', 'a/i2']);
    const next = submitStep(s, r.state, at(1), 4);
    expect(next.subs.map((x) => x.task.id)).toEqual(['a/i3', 'a/i4', 'a/i5', 'b/i1']);
    // Submission indices are the tasks' positions in their arrays.
    expect(next.subs.map((x) => x.index)).toEqual([2, 3, 4, 0]);
  });
});

describe('preconditions', () => {
  const phases = [
    { name: 'train', command: 'x', output: 'ckpt/${tag}.pt' },
    {
      name: 'distill',
      depends_on: 'train',
      grid: { n: [1, 2] },
      command: 'y',
      preconditions: [{ exists: 'ckpt/task.pt' }],
    },
  ];

  it('are checked once the dependencies completed, before anything of the phase is submitted', () => {
    const s = setup(phases);
    let r = submitStep(s, emptyState('c', at(0)), at(0));
    expect(r.actions.some((a) => a.type === 'check_preconditions')).toBe(false);
    let state = applyEvents(r.state, [finished('train/task', 1, 'completed', at(1))], s.policy);
    const check = step(state, s.plan, at(2), 10);
    expect(check.actions).toEqual([{ type: 'check_preconditions', phase: 'distill' }]);
    expect(check.state.phases.distill).toMatchObject({ status: 'waiting', reason: 'checking preconditions' });
    state = applyEvents(check.state, [{ type: 'preconditions', phase: 'distill', at: at(3), missing: [] }], s.policy);
    r = submitStep(s, state, at(4));
    expect(r.subs.map((x) => x.task.id)).toEqual(['distill/n1', 'distill/n2']);
  });

  it('a missing precondition blocks the phase with the missing paths', () => {
    const s = setup(phases);
    let state = submitStep(s, emptyState('c', at(0)), at(0)).state;
    state = applyEvents(state, [finished('train/task', 1, 'completed', at(1))], s.policy);
    state = step(state, s.plan, at(2), 10).state;
    const missing = ['ckpt/a.pt', 'ckpt/b.pt', 'ckpt/c.pt', 'ckpt/d.pt', 'ckpt/e.pt'];
    state = applyEvents(state, [{ type: 'preconditions', phase: 'distill', at: at(3), missing }], s.policy);
    const r = step(state, s.plan, at(4), 10);
    expect(r.actions).toEqual([]);
    expect(r.state.phases.distill).toMatchObject({
      status: 'blocked',
      reason: 'precondition missing: ckpt/a.pt, ckpt/b.pt, ckpt/c.pt and 2 more',
    });
    expect(r.state.tasks['distill/n1']!.status).toBe('blocked');
    expect(atRest(r.state, r.actions)).toBe(true);
  });
});

describe('applyEvents', () => {
  it('does not change the state it is given, and finishes an attempt once', () => {
    const s = setup([{ name: 'p', command: 'x' }]);
    const r = submitStep(s, emptyState('c', at(0)), at(0));
    const before = structuredClone(r.state);
    const done = applyEvents(r.state, [finished('p/task', 1, 'completed', at(1))], s.policy);
    expect(r.state).toEqual(before);
    const replay = applyEvents(done, [finished('p/task', 1, 'out_of_memory', at(2))], s.policy);
    expect(replay.tasks['p/task']).toEqual(done.tasks['p/task']);
  });
});

// ---------------------------------------------------------------------------------------------
// Property: any plan, any world, the loop comes to rest with every task terminal.

const CLASSES = ['completed', ...FAILURE_CLASSES] as const;

const retryClassArb = fc.record(
  { attempts: fc.integer({ min: 0, max: 2 }), delay: fc.constantFrom('0s', '1m', '5m') },
  { requiredKeys: ['attempts'] },
);

const phaseArb = (i: number) =>
  fc.record(
    {
      grid: fc.dictionary(fc.constantFrom('a', 'b'), fc.integer({ min: 1, max: 3 }), { maxKeys: 2 }),
      smoke: fc.option(fc.record({ tasks: fc.integer({ min: 1, max: 3 }), fullRun: fc.boolean() }), { nil: undefined }),
      preconditions: fc.boolean(),
      deps: fc.subarray(
        Array.from({ length: i }, (_, k) => `ph${k}`),
        { minLength: 0 },
      ),
      retry: fc.record(
        {
          out_of_memory: retryClassArb.map((r) => ({ ...r, mem_factor: 1.5 })),
          failed: retryClassArb,
          lost: retryClassArb,
          timeout: retryClassArb,
          node_fail: retryClassArb,
        },
        { requiredKeys: [] },
      ),
      mem: fc.boolean(),
    },
    { requiredKeys: ['grid', 'preconditions', 'deps', 'retry', 'mem'] },
  );

const campaignArb = fc
  .integer({ min: 1, max: 3 })
  .chain((n) => fc.tuple(...Array.from({ length: n }, (_, i) => phaseArb(i))))
  .map((specs) =>
    specs.map((p, i) => ({
      name: `ph${i}`,
      command: 'x',
      grid: Object.fromEntries(
        Object.entries(p.grid).map(([axis, count]) => [axis, Array.from({ length: count }, (_, k) => k)]),
      ),
      ...(p.deps.length > 0 ? { depends_on: p.deps } : {}),
      ...(p.preconditions ? { preconditions: [{ exists: 'in/${tag}' }] } : {}),
      ...(p.smoke === undefined
        ? {}
        : { smoke: { tasks: p.smoke.tasks, full_run: p.smoke.fullRun, trigger: [{ check: 'all_completed' }] } }),
      retry: p.retry,
      ...(p.mem ? { resources: { mem: '1G' } } : {}),
    })),
  );

describe('the loop always comes to rest', () => {
  it('random plans and a random world: terminal tasks, no repeated attempts, phase completed iff its tasks are', () => {
    fc.assert(
      fc.property(campaignArb, fc.integer({ min: 1, max: 4 }), fc.integer(), (phases, maxParallel, seed) => {
        const s = setup(phases);
        const random = rng(seed);
        let state = emptyState('c', at(0));
        let minute = 0;
        const completed = new Set<string>();
        const fullIds = new Map(s.plan.phases.map((p) => [p.name, p.tasks.map((t) => t.id)]));
        const smokeOf = new Map(s.plan.phases.flatMap((p) => p.smoke.map((t) => [t.id, p.name] as const)));
        const phaseOfFull = new Map(s.plan.phases.flatMap((p) => p.tasks.map((t) => [t.id, p] as const)));
        let rested = false;
        const LIMIT = 2000;
        for (let n = 0; n < LIMIT; n++) {
          const now = at(minute);
          const active = Object.values(state.tasks).filter((t) => t.status === 'submitted' || t.status === 'running');
          const r = step(state, s.plan, now, maxParallel - active.length);
          if (atRest(r.state, r.actions)) {
            state = r.state;
            rested = true;
            break;
          }
          const events: CampaignEvent[] = [];
          const subs = submissionsOf(r.actions);
          expect(subs.length).toBeLessThanOrEqual(Math.max(0, maxParallel - active.length));
          const seen = new Set<string>();
          for (const sub of subs) {
            const id = sub.task.id;
            const before = r.state.tasks[id]!;
            // Never an attempt number the task already had, never a completed task again.
            expect(before.attempts.map((a) => a.n)).not.toContain(sub.attempt);
            expect(seen.has(id)).toBe(false);
            seen.add(id);
            expect(completed.has(id)).toBe(false);
            expect(['pending', 'retrying']).toContain(before.status);
            if (before.notBefore !== undefined) expect(before.notBefore <= now).toBe(true);
            // A full task only after its phase's checklist passed (when it has a smoke stage), but
            // for the smoke tasks of a smoke stage of full runs, which are full tasks.
            const owner = phaseOfFull.get(id);
            if (owner && owner.smoke.length > 0 && sub.array.stage === 'full')
              expect(r.state.phases[owner.name]!.gate?.passed).toBe(true);
            if (random(20) === 0) {
              events.push({ type: 'submit_failed', task: id, attempt: sub.attempt, at: now, reason: 'refused' });
            } else {
              events.push(...accepted([sub], now));
            }
          }
          for (const a of r.actions) {
            if (a.type === 'evaluate_gate') {
              const ok = random(3) !== 0;
              events.push({
                type: 'gate',
                phase: a.phase,
                at: now,
                results: [{ check: 'all_completed', passed: ok, detail: ok ? 'ok' : 'a smoke task failed' }],
                checklist: checklistKey(s.plan.phases.find((p) => p.name === a.phase)!.checklist),
                definitions: smokeDefinitions(s.plan.phases.find((p) => p.name === a.phase)!),
              });
            } else if (a.type === 'check_preconditions') {
              events.push({
                type: 'preconditions',
                phase: a.phase,
                at: now,
                missing: random(4) === 0 ? ['in/missing'] : [],
              });
            }
          }
          // The world moves the tasks that were already running: start, finish, or keep running.
          for (const [id, t] of Object.entries(r.state.tasks)) {
            if (t.status !== 'submitted' && t.status !== 'running') continue;
            const attempt = t.attempts[t.attempts.length - 1]!.n;
            const roll = random(4);
            if (roll === 0) continue;
            if (roll === 1 && t.status === 'submitted') {
              events.push({ type: 'started', task: id, attempt, at: now });
              continue;
            }
            const cls = random(2) === 0 ? 'completed' : CLASSES[random(CLASSES.length)]!;
            events.push(finished(id, attempt, cls, now));
          }
          expectIndexFresh(r.state);
          // A record step made in this pass is the controller's own: sometimes changed in place, as it does.
          const owned = r.state.tasks !== state.tasks && random(2) === 0 ? r.state.tasks : undefined;
          const before = state;
          state = applyEvents(r.state, events, s.policy, owned);
          expectIndexFresh(state);
          expectChangesKnown(before, state);
          for (const [id, t] of Object.entries(state.tasks)) if (t.status === 'completed') completed.add(id);
          minute += 1 + random(3);
        }
        expect(rested).toBe(true);

        for (const [id, t] of Object.entries(state.tasks)) {
          expect(TERMINAL.has(t.status), `${id} ended ${t.status}`).toBe(true);
          expect(t.status).not.toBe('stuck');
          if (t.status !== 'completed') expect(t.reason, `${id} ${t.status} without a reason`).toBeTruthy();
          // Attempt numbers are 1, 2, 3… in order.
          expect(t.attempts.map((a) => a.n)).toEqual(t.attempts.map((_, k) => k + 1));
        }
        for (const p of s.plan.phases) {
          const ps = state.phases[p.name]!;
          expect(['completed', 'failed', 'blocked']).toContain(ps.status);
          const allDone = fullIds.get(p.name)!.every((id) => state.tasks[id]!.status === 'completed');
          // A smoke stage of full runs can complete every task and still fail its checklist.
          const checklistFailed = ps.gate?.passed === false;
          expect(ps.status === 'completed').toBe(allDone && !checklistFailed);
          if (ps.status !== 'completed') expect(ps.reason).toBeTruthy();
          // A dependent of a phase that did not complete never ran.
          for (const dep of p.dependsOn) {
            if (state.phases[dep]!.status !== 'completed') {
              expect(ps.status).toBe('blocked');
              for (const t of [...p.smoke, ...p.tasks]) expect(state.tasks[t.id]!.attempts).toEqual([]);
            }
          }
        }
        for (const id of smokeOf.keys()) expect(state.tasks[id]).toBeDefined();
      }),
      { numRuns: 300 },
    );
  });
});
