/**
 * The core's part of a warning before the kill: what a timeout or a preemption of a
 * checkpointing phase earns (a continuation, with the remaining work's walltime), what a
 * timeout without a checkpoint earns (a walltime grown by time_factor up to the cap), how both
 * are recorded and shown, what an end after the checkpoint signal is (a continuation without its
 * output, whatever its status), and the queue held while the disk is full. Pure: no server.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { firstLogUnits } from '../../src/calibrate/progress.js';
import { retryPolicy } from '../../src/decide/policy.js';
import { afterWarning, classifyEnd } from '../../src/judge/attempt-end.js';
import type { EndClass } from '../../src/state/state.js';
import { applyEvents } from '../../src/decide/apply.js';
import { step } from '../../src/decide/step.js';
import { manifest as manifestSchema, type Manifest } from '../../src/manifest/schema.js';
import { planCampaign, type Plan } from '../../src/plan/plan.js';
import { grownBudget, remainingBudget } from '../../src/plan/walltime.js';
import { renderSummary } from '../../src/report/summary.js';
import { provenanceFiles, type Provenance } from '../../src/state/provenance.js';
import { parseExitMarker } from '../../src/render/wrapper.js';
import type { Action, CampaignEvent, Submission } from '../../src/state/events.js';
import { emptyState, type CampaignState } from '../../src/state/state.js';

const T0 = Date.parse('2026-01-01T00:00:00.000Z');
const at = (s: number): string => new Date(T0 + s * 1000).toISOString();

const SLURM = {
  executor: 'slurm',
  name: 'x',
  partitions: [
    { name: 'short', max_time: '10m' },
    { name: 'long', max_time: '1h' },
  ],
};

function setup(phase: object, cluster: object = SLURM): { manifest: Manifest; plan: Plan } {
  const manifest = manifestSchema.parse({
    campaign: 'c',
    cluster,
    workdir: '.',
    phases: [{ name: 'p', command: 'work', ...phase }],
  });
  return { manifest, plan: planCampaign(manifest) };
}

/** 40 steps of 6 s, margin 1.25: a 5 m budget in `short`. */
const COST = { unit: 'step', units: 40, per_unit: '6s', margin: 1.25, progress: { log: 'step (?<units>\\d+)' } };
const CHECKPOINTED = {
  cost: COST,
  checkpoint: { signal: 'USR1', before: '30s' },
  retry: { timeout: { attempts: 2 }, preempted: { attempts: 1 } },
};

const submissionsOf = (actions: readonly Action[]): Submission[] =>
  actions.flatMap((a) => (a.type === 'submit' ? a.submissions : []));

/** Steps once and accepts what was sent, each submission with the walltime the controller records. */
function send(s: { manifest: Manifest; plan: Plan }, state: CampaignState, when: number) {
  const { state: next, actions } = step(state, s.plan, at(when), 10);
  const subs = submissionsOf(actions);
  const events: CampaignEvent[] = subs.map((x) => ({
    type: 'submitted',
    task: x.task.id,
    attempt: x.attempt,
    at: at(when),
    handle: `${x.task.id}#${x.attempt}`,
    walltimeSeconds: x.array.budget.seconds,
  }));
  return { state: applyEvents(next, events, retryPolicy(s.manifest, s.plan)), subs, actions };
}

const ended = (
  attempt: number,
  cls: 'timeout' | 'preempted' | 'completed',
  when: number,
  units?: number,
  more: { unitsFrom?: number; reason?: string } = {},
) =>
  ({
    type: 'finished',
    task: 'p/task',
    attempt,
    at: at(when),
    class: cls,
    ...(units === undefined ? {} : { units }),
    ...more,
  }) as CampaignEvent;

describe('a timeout of a checkpointing phase', () => {
  it('is continued with CAMPAIGN_RESUME and the walltime of the work left, recorded and shown', () => {
    const s = setup(CHECKPOINTED);
    const policy = retryPolicy(s.manifest, s.plan);
    let { state, subs } = send(s, emptyState('c', at(0)), 0);
    expect(subs[0]!.array.budget).toMatchObject({ seconds: 300, partition: 'short' });
    expect(subs[0]!.resume).toBeUndefined();

    state = applyEvents(state, [ended(1, 'timeout', 300, 30)], policy);
    const t = state.tasks['p/task']!;
    expect(t.status).toBe('retrying');
    expect(t.resume).toBe(true);
    // 10 steps left × 6 s × 1.25 = 75 s, in whole minutes.
    expect(t.nextWalltime).toMatchObject({ seconds: 120, partition: 'short' });
    expect(t.nextWalltime!.why).toBe(
      'after 30 steps: 10 of 40 steps left: 6s/step × 10 steps × margin 1.25 = 1m15s → short (cap 10m)',
    );

    ({ state, subs } = send(s, state, 301));
    expect(subs[0]).toMatchObject({ attempt: 2, resume: true, array: { budget: { seconds: 120 } } });
    // The plan's array is not changed by a continuation.
    expect(s.plan.phases[0]!.arrays.find((a) => a.stage === 'full')!.budget.seconds).toBe(300);
    const a2 = state.tasks['p/task']!.attempts[1]!;
    expect(a2).toMatchObject({ resumed: true, walltimeSeconds: 120 });
    expect(a2.retimed).toMatch(/^after 30 steps/);
    expect(state.tasks['p/task']).not.toHaveProperty('nextWalltime');

    state = applyEvents(state, [ended(2, 'completed', 400)], policy);
    expect(state.tasks['p/task']!.status).toBe('completed');
    const summary = renderSummary({ plan: s.plan, state, tails: new Map() });
    expect(summary).toContain('## Tasks continued or given more time');
    // The first attempt's log gave no progress line: nothing shows where the second started.
    expect(summary).toContain(
      '| p/task | 2 | completed | 2m | sent to continue from its checkpoint; its progress does not show where it started; walltime after 30 steps: ',
    );
  });

  it("takes where a run started from its log's first progress line", () => {
    expect(firstLogUnits('step (?<units>\\d+)', 'resumed at 23\nstep 24\nstep 25\n')).toBe(24);
    expect(firstLogUnits('^step$', 'step\nstep\n')).toBeUndefined();
    expect(firstLogUnits('step (?<units>\\d+)', 'nothing yet\n')).toBeUndefined();
  });

  it('says "continued from its checkpoint" only where the next attempt\'s progress started past the first\'s', () => {
    const s = setup({ ...CHECKPOINTED, output: 'out.txt' });
    const policy = retryPolicy(s.manifest, s.plan);
    const summaryAfter = (secondFrom: number): { summary: string; provenance: Provenance } => {
      let { state } = send(s, emptyState('c', at(0)), 0);
      const signalled = 'signalled at 4:30, ended at 5:00 (time limit)';
      state = applyEvents(state, [ended(1, 'timeout', 300, 30, { unitsFrom: 1, reason: signalled })], policy);
      ({ state } = send(s, state, 301));
      state = applyEvents(state, [ended(2, 'completed', 400, undefined, { unitsFrom: secondFrom })], policy);
      expect(state.tasks['p/task']!.attempts[1]!.unitsFrom).toBe(secondFrom);
      return {
        summary: renderSummary({ plan: s.plan, state, tails: new Map() }),
        provenance: JSON.parse(provenanceFiles(s.plan, state, ['p/task'])[0]!.text) as Provenance,
      };
    };
    const firstEnded = 'attempt 1 signalled at 4:30, ended at 5:00 (time limit); ';
    const continued = summaryAfter(24);
    expect(continued.provenance.continued).toEqual([
      `${firstEnded}attempt 2 continued from its checkpoint (its progress started at 24)`,
    ]);
    expect(continued.summary).toContain(
      '| p/task | 2 | completed | 2m | attempt 1 `signalled at 4:30, ended at 5:00 (time limit)`; continued from its checkpoint (its progress started at 24); walltime after 30 steps: ',
    );
    const over = summaryAfter(1);
    expect(over.provenance.continued).toEqual([
      `${firstEnded}attempt 2 sent to continue from its checkpoint, but started over (its progress began at 1, as at first)`,
    ]);
    expect(over.summary).toContain(
      '| p/task | 2 | completed | 2m | attempt 1 `signalled at 4:30, ended at 5:00 (time limit)`; sent to continue from its checkpoint, but started over (its progress began at 1, as at first); walltime after 30 steps: ',
    );
    expect(over.summary).not.toContain('continued from its checkpoint');
  });

  it('without progress to go by, continues under the same walltime; a preemption is continued too', () => {
    const s = setup(CHECKPOINTED);
    const policy = retryPolicy(s.manifest, s.plan);
    let { state } = send(s, emptyState('c', at(0)), 0);
    state = applyEvents(state, [ended(1, 'preempted', 100)], policy);
    expect(state.tasks['p/task']).toMatchObject({ status: 'retrying', resume: true, nextWalltime: { seconds: 300 } });
    expect(state.tasks['p/task']!.nextWalltime!.why).toBe('as planned, 5m (no progress to go by)');
  });

  it('is continued only within retry.timeout', () => {
    const s = setup({ ...CHECKPOINTED, retry: { timeout: { attempts: 1 } } });
    const policy = retryPolicy(s.manifest, s.plan);
    let { state } = send(s, emptyState('c', at(0)), 0);
    state = applyEvents(state, [ended(1, 'timeout', 300, 10)], policy);
    ({ state } = send(s, state, 301));
    state = applyEvents(state, [ended(2, 'timeout', 700, 20)], policy);
    expect(state.tasks['p/task']).toMatchObject({ status: 'failed' });
    expect(state.tasks['p/task']!.reason).toMatch(/^timeout.*\(after 1 retries\)$/);
  });
});

describe('a timeout without a checkpoint', () => {
  it('grows the walltime by time_factor, into a longer partition, up to the largest cap', () => {
    const s = setup({ walltime: '8m', retry: { timeout: { attempts: 3, time_factor: 3 } } });
    const policy = retryPolicy(s.manifest, s.plan);
    let { state, subs } = send(s, emptyState('c', at(0)), 0);
    expect(subs[0]!.array.budget).toMatchObject({ seconds: 480, partition: 'short' });
    const walls: number[] = [];
    for (let n = 1; n <= 3; n++) {
      state = applyEvents(state, [ended(n, 'timeout', n * 10_000)], policy);
      ({ state, subs } = send(s, state, n * 10_000 + 1));
      expect(subs[0]!.resume).toBeUndefined();
      walls.push(subs[0]!.array.budget.seconds);
    }
    // 8m × 3 = 24m (long), × 3 = 72m capped at long's 1h, and there it stays.
    expect(walls).toEqual([1440, 3600, 3600]);
    expect(subs[0]!.array.budget.partition).toBe('long');
    expect(state.tasks['p/task']!.attempts.map((a) => a.retimed)).toEqual([
      undefined,
      'walltime grown after a timeout: 8m × time_factor 3 = 24m',
      'walltime grown after a timeout: 24m × time_factor 3 = 1h (the cap of long)',
      'walltime grown after a timeout: 1h × time_factor 3 = 1h (the cap of long)',
    ]);
  });

  it('is retried as it was without time_factor, and a preemption never grows the walltime', () => {
    const s = setup({ walltime: '8m', retry: { timeout: { attempts: 1 }, preempted: { attempts: 1 } } });
    const policy = retryPolicy(s.manifest, s.plan);
    let { state } = send(s, emptyState('c', at(0)), 0);
    state = applyEvents(state, [ended(1, 'timeout', 500)], policy);
    expect(state.tasks['p/task']).not.toHaveProperty('nextWalltime');
    const g = setup({
      walltime: '8m',
      retry: { preempted: { attempts: 1 }, timeout: { attempts: 1, time_factor: 2 } },
    });
    ({ state } = send(g, emptyState('c', at(0)), 0));
    state = applyEvents(state, [ended(1, 'preempted', 500)], retryPolicy(g.manifest, g.plan));
    expect(state.tasks['p/task']).toMatchObject({ status: 'retrying' });
    expect(state.tasks['p/task']).not.toHaveProperty('nextWalltime');
  });
});

describe('the walltime arithmetic', () => {
  const input = (cluster: object) => {
    const { manifest } = setup(CHECKPOINTED, cluster);
    return { phase: manifest.phases[0]!, cluster: manifest.cluster, cell: {} };
  };

  it('budgets the units left, never less than one, placed in the partitions', () => {
    expect(remainingBudget(input(SLURM), 0).seconds).toBe(300);
    expect(remainingBudget(input(SLURM), undefined).seconds).toBe(300);
    expect(remainingBudget(input(SLURM), 39)).toMatchObject({ seconds: 60, partition: 'short' });
    expect(remainingBudget(input(SLURM), 400)).toMatchObject({ seconds: 60, costSeconds: 6 });
    expect(remainingBudget(input({ executor: 'local' }), 20)).toMatchObject({ seconds: 180 });
  });

  it('grows without partitions as asked, and never shrinks', () => {
    const local = manifestSchema.shape.cluster.parse({ executor: 'local' });
    expect(grownBudget(local, 600, 1.5, undefined).seconds).toBe(900);
    const slurm = manifestSchema.shape.cluster.parse(SLURM);
    expect(grownBudget(slurm, 600, 2, 'short')).toMatchObject({ seconds: 600, partition: 'short' });
  });
});

describe('the disk-full pause', () => {
  const twoTasks = { grid: { k: [1, 2, 3] }, command: 'work ${k}', walltime: '5m' };

  it('takes the attempts still waiting in a Slurm queue out of it, and holds nothing elsewhere', () => {
    for (const [cluster, held] of [
      [SLURM, ['p/k2', 'p/k3']],
      [{ executor: 'local' }, []],
    ] as const) {
      const s = setup(twoTasks, cluster);
      const policy = retryPolicy(s.manifest, s.plan);
      let { state } = send(s, emptyState('c', at(0)), 0);
      state = applyEvents(
        state,
        [
          { type: 'started', task: 'p/k1', attempt: 1, at: at(1) },
          { type: 'finished', task: 'p/k1', attempt: 1, at: at(2), class: 'disk_full', reason: 'the disk is full' },
        ],
        policy,
      );
      const { actions } = step(state, s.plan, at(3), 10);
      const hold = actions.find((a) => a.type === 'hold');
      expect(hold?.tasks.map((t) => t.task) ?? []).toEqual(held);
      if (hold) expect(hold.reason).toMatch(/^held: taken out of the queue while the disk is full \(p\/k1\)/);
      expect(submissionsOf(actions)).toEqual([]);
    }
  });
});

describe('an end after the checkpoint signal', () => {
  const warning = { at: at(40), startedAt: at(0), endedAt: at(41), exitCode: 0 };

  it('without its output is a continuation, whatever its status, said as it happened', () => {
    expect(
      afterWarning(
        { cls: 'unverified', reason: 'exit 0 but out.txt does not exist' },
        {
          ...warning,
          outputThere: false,
        },
      ),
    ).toEqual({ cls: 'timeout', reason: 'signalled at 0:40, exited 0 at 0:41 without its output' });
    expect(afterWarning({ cls: 'failed', reason: 'exit 3' }, { ...warning, exitCode: 3, outputThere: false })).toEqual({
      cls: 'timeout',
      reason: 'signalled at 0:40, exited 3 at 0:41 without its output',
    });
    expect(afterWarning({ cls: 'timeout' }, { ...warning, endedAt: at(3723), exitCode: 143 })).toEqual({
      cls: 'timeout',
      reason: 'signalled at 0:40, ended at 1:02:03 (time limit)',
    });
  });

  it('with its output is judged as any end is; where no output is declared, exit 0 is done', () => {
    expect(afterWarning({ cls: 'completed' }, { ...warning, outputThere: true })).toEqual({ cls: 'completed' });
    const short = { cls: 'unverified' as const, reason: 'exit 0 but out.txt: 3 records, 4 expected' };
    expect(afterWarning(short, { ...warning, outputThere: true })).toEqual(short);
    expect(afterWarning({ cls: 'failed', reason: 'exit 3' }, { ...warning, exitCode: 3, outputThere: true })).toEqual({
      cls: 'failed',
      reason: 'exit 3',
    });
    expect(afterWarning({ cls: 'completed' }, warning)).toEqual({ cls: 'completed' });
    expect(afterWarning({ cls: 'failed', reason: 'exit 3' }, { ...warning, exitCode: 3 })).toEqual({
      cls: 'timeout',
      reason: 'signalled at 0:40, exited 3 at 0:41',
    });
  });

  it('never hides a cancel, a node, memory, the disk or a gate, and never completes what lacks its output', () => {
    const command = fc.constantFrom('completed', 'failed', 'unverified', 'timeout');
    const other = fc.constantFrom('cancelled', 'preempted', 'node_fail', 'lost', 'out_of_memory', 'disk_full', 'gate');
    const there = fc.option(fc.boolean(), { nil: undefined });
    const code = fc.integer({ min: 0, max: 255 });
    fc.assert(
      fc.property(fc.oneof(command, other), there, code, (cls, outputThere, exitCode) => {
        const judged = { cls, reason: 'as judged' } as EndClass;
        const out = afterWarning(judged, {
          ...warning,
          exitCode,
          ...(outputThere === undefined ? {} : { outputThere }),
        });
        if (!['completed', 'failed', 'unverified', 'timeout'].includes(cls)) expect(out).toBe(judged);
        else if (outputThere === false) expect(out.cls).toBe('timeout');
        if (out.cls === 'completed') expect(outputThere).not.toBe(false);
        if (out.cls === 'timeout') expect(out.reason).toMatch(/^signalled at 0:40, /);
      }),
    );
  });

  it('is recorded by the wrapper and judged so by classifyEnd, with the times of the marker', () => {
    const marker = parseExitMarker(`0 ${T0 + 41_000} ${T0} exit - ${T0 + 40_000}`, at(99));
    expect(marker).toMatchObject({ code: 0, warnedAt: at(40), startedAt: at(0), at: at(41) });
    const end = (exists: boolean) =>
      classifyEnd({
        marker,
        log: '',
        walltimeSeconds: 60,
        oomPatterns: [],
        output: { path: 'o', exists, fresh: exists },
      });
    expect(end(false)).toEqual({ cls: 'timeout', reason: 'signalled at 0:40, exited 0 at 0:41 without its output' });
    expect(end(true)).toEqual({ cls: 'completed' });
    // A marker of an older wrapper, or of a phase without a checkpoint, says nothing of a warning.
    expect(parseExitMarker(`0 ${T0 + 41_000} ${T0} exit -`, at(99))).not.toHaveProperty('warnedAt');
  });
});
