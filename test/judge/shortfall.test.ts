/**
 * Adapt or abort (DESIGN rule 9, judge/shortfall.ts): a shortfall in a part of the task's
 * definition (plan/definition.ts's GRANT_PARTS: GPUs today) ends the attempt as `shortfall`
 * with what was asked and granted, whatever its end said; its output is never the task's
 * result, and it is retried within its retries, then reported. A shortfall in cost only (a
 * shorter limit, another partition) is adapted to and recorded, as before.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { retryPolicy } from '../../src/decide/policy.js';
import { applyEvents } from '../../src/decide/apply.js';
import { step } from '../../src/decide/step.js';
import { shortfalls } from '../../src/exec/slurm/accounting.js';
import { classifyEnd } from '../../src/judge/attempt-end.js';
import { gateShortfall, judgeShortfalls, type Shortfall } from '../../src/judge/shortfall.js';
import { GATE_EXIT } from '../../src/render/task-script.js';
import { manifest as manifestSchema } from '../../src/manifest/schema.js';
import { DEFINITION_PARTS, GRANT_PARTS, type Grant } from '../../src/plan/definition.js';
import { planCampaign } from '../../src/plan/plan.js';
import { emptyState, FAILURE_CLASSES, type CampaignState } from '../../src/state/state.js';
import type { CampaignEvent } from '../../src/state/events.js';

const GPUS: Shortfall = { of: 'gpus', asked: '2', granted: '1', words: '1 GPU instead of 2' };
const TIME: Shortfall = { of: 'time', asked: '5m', granted: '4m', words: 'a time limit of 4m instead of 5m' };
const PARTITION: Shortfall = {
  of: 'partition',
  asked: 'debug',
  granted: 'short',
  words: 'partition short instead of debug',
};

describe('which shortfalls abort: the definition module says', () => {
  it('GPUs are a part of the definition; the time limit and the partition are cost', () => {
    expect(GRANT_PARTS).toEqual({ time: null, partition: null, gpus: 'gpus' });
    for (const part of Object.values(GRANT_PARTS)) if (part !== null) expect(DEFINITION_PARTS).toContain(part);
  });
});

describe('judgeShortfalls', () => {
  it('a job granted fewer GPUs than it asked ends as shortfall, saying what was asked and granted, even completed', () => {
    expect(judgeShortfalls({ cls: 'completed' }, [GPUS])).toEqual({
      end: {
        cls: 'shortfall',
        reason: "granted 1 GPU instead of 2, and gpus is part of the task's definition: its output is not its result",
      },
      adapted: [],
    });
  });

  it('a shorter limit or another partition is adapted to: the end stands, the shortfall recorded', () => {
    expect(judgeShortfalls({ cls: 'completed' }, [TIME, PARTITION])).toEqual({
      end: { cls: 'completed' },
      adapted: ['a time limit of 4m instead of 5m', 'partition short instead of debug'],
    });
  });

  it('with both, it aborts and still records the cost-only ones; a failed end is said after', () => {
    expect(judgeShortfalls({ cls: 'failed', reason: 'exit 3' }, [TIME, GPUS])).toEqual({
      end: {
        cls: 'shortfall',
        reason:
          "granted 1 GPU instead of 2, and gpus is part of the task's definition: its output is not its result; it ended failed: exit 3",
      },
      adapted: ['a time limit of 4m instead of 5m'],
    });
  });

  it('for any end and any shortfalls: shortfall exactly when one is of a part of the definition (a cancel stands)', () => {
    const grants = Object.keys(GRANT_PARTS) as Grant[];
    const shortfall = fc.constantFrom(...grants).map((of) => ({ of, asked: 'a', granted: 'g', words: `less ${of}` }));
    fc.assert(
      fc.property(
        fc.constantFrom('completed' as const, ...FAILURE_CLASSES),
        fc.array(shortfall, { maxLength: 4 }),
        (cls, given) => {
          const { end, adapted } = judgeShortfalls({ cls }, given);
          // A shortfall the device gate said already is said once.
          const aborts = given.some((s) => GRANT_PARTS[s.of] !== null) && cls !== 'cancelled' && cls !== 'shortfall';
          expect(end.cls).toBe(aborts ? 'shortfall' : cls);
          if (aborts)
            for (const s of given.filter((g) => GRANT_PARTS[g.of] !== null)) expect(end.reason).toContain(s.words);
          expect(adapted).toEqual(given.filter((s) => GRANT_PARTS[s.of] === null).map((s) => s.words));
        },
      ),
    );
  });

  it("reads Slurm's record: fewer GPUs allocated than requested (AllocTRES below ReqTRES) aborts", () => {
    const record = { handle: '1_0', name: 'c~k', state: 'COMPLETED', reqGpus: 2, allocGpus: 1, timelimit: 300 };
    expect(judgeShortfalls({ cls: 'completed' }, shortfalls(record, { seconds: 300 })).end.cls).toBe('shortfall');
    expect(
      judgeShortfalls({ cls: 'completed' }, shortfalls({ ...record, allocGpus: 2 }, { seconds: 300 })).end.cls,
    ).toBe('completed');
  });

  it('against what the campaign asked, where the request was lowered after it was sent; not where no GPU is accounted', () => {
    const lowered = { handle: '1_0', name: 'c~k', state: 'COMPLETED', reqGpus: 1, allocGpus: 1 };
    expect(shortfalls(lowered, { seconds: 300, gpus: 2 })).toEqual([
      { of: 'gpus', asked: '2', granted: '1', words: '1 GPU instead of 2' },
    ]);
    expect(shortfalls(lowered, { seconds: 300, gpus: 1 })).toEqual([]);
    // A cluster whose TRES has no gres/gpu: nothing requested, nothing allocated, nothing to say.
    expect(shortfalls({ ...lowered, reqGpus: 0, allocGpus: 0 }, { seconds: 300, gpus: 2 })).toEqual([]);
  });
});

describe("the device gate's failure is the shortfall it reports", () => {
  const log = (got: number): string =>
    `[campaign] task 0 -> p/task\n[campaign] gate devices: FAIL asked for 2 GPUs, got ${got} (CUDA_VISIBLE_DEVICES=3)\n`;

  it('fewer GPUs seen than asked: shortfall, on every executor the task script runs on', () => {
    const expected = {
      cls: 'shortfall',
      reason:
        "granted 1 GPU instead of 2, and gpus is part of the task's definition: its output is not its result; it ended gate: gate devices: asked for 2 GPUs, got 1 (CUDA_VISIBLE_DEVICES=3)",
    };
    expect(gateShortfall('devices', ' asked for 2 GPUs, got 1 (CUDA_VISIBLE_DEVICES=3)')).toEqual(expected);
    const end = classifyEnd({
      marker: { code: GATE_EXIT, at: '2025-01-01T00:00:00Z', cause: 'exit' },
      log: log(1),
      walltimeSeconds: 60,
      oomPatterns: [],
    });
    expect(end).toEqual(expected);
  });

  it('more GPUs seen than asked, or another gate, stays a gate', () => {
    expect(gateShortfall('devices', ' asked for 2 GPUs, got 3 (CUDA_VISIBLE_DEVICES=0,1,2)')).toBeUndefined();
    expect(gateShortfall('imports', ' torch')).toBeUndefined();
    expect(
      classifyEnd({
        marker: { code: GATE_EXIT, at: '2025-01-01T00:00:00Z', cause: 'exit' },
        log: log(3),
        walltimeSeconds: 60,
        oomPatterns: [],
      }).cls,
    ).toBe('gate');
  });

  it('said once when accounting reports the same shortfall', () => {
    const gate = gateShortfall('devices', ' asked for 2 GPUs, got 1 (CUDA_VISIBLE_DEVICES=3)')!;
    expect(judgeShortfalls(gate, [GPUS, TIME])).toEqual({ end: gate, adapted: [TIME.words] });
  });
});

describe('a shortfall in the campaign (decide/apply.ts, decide/retry.ts)', () => {
  const manifest = manifestSchema.parse({
    campaign: 'c',
    cluster: { executor: 'slurm', partitions: [{ name: 'debug', max_time: '30m' }] },
    workdir: '/w',
    phases: [{ name: 'p', command: 'train', output: 'o.txt', walltime: '5m', resources: { gpus: 2 } }],
  });
  const plan = planCampaign(manifest);
  const policy = retryPolicy(manifest, plan);
  const at = (s: number): string => new Date(Date.parse('2025-01-01T00:00:00Z') + s * 1000).toISOString();

  /** Sends what is due and ends each attempt as `ends` says, in turn. */
  function run(ends: ('completed' | 'shortfall')[]): CampaignState {
    let state = emptyState('c', at(0));
    for (let i = 0; i < ends.length; i++) {
      const r = step(state, plan, at(10 * i + 1), 10);
      state = r.state;
      const sent: CampaignEvent[] = r.actions.flatMap((a) =>
        a.type === 'submit'
          ? a.submissions.map((s) => ({
              type: 'submitted' as const,
              task: s.task.id,
              attempt: s.attempt,
              at: at(10 * i + 1),
              handle: `h${i}`,
            }))
          : [],
      );
      if (sent.length === 0) break;
      const end: CampaignEvent = {
        type: 'finished',
        task: 'p/task',
        attempt: i + 1,
        at: at(10 * i + 2),
        class: ends[i]!,
        ...(ends[i] === 'shortfall' ? { reason: 'granted 1 GPU instead of 2' } : {}),
      };
      state = applyEvents(state, [...sent, end], policy);
    }
    return state;
  }

  it('is retried (twice by default) and its output never counts: the task completes only with what it asked', () => {
    const state = run(['shortfall', 'completed']);
    expect(state.tasks['p/task']!.attempts.map((a) => a.class)).toEqual(['shortfall', 'completed']);
    expect(state.tasks['p/task']!.status).toBe('completed');
  });

  it('once its retries are spent, the task is failed with the reason: reported, never completed', () => {
    const state = run(['shortfall', 'shortfall', 'shortfall', 'completed']);
    const t = state.tasks['p/task']!;
    expect(t.attempts.map((a) => a.class)).toEqual(['shortfall', 'shortfall', 'shortfall']);
    expect(t.status).toBe('failed');
    expect(t.reason).toBe('shortfall: granted 1 GPU instead of 2 (after 2 retries)');
  });

  it('retry.shortfall sets the allowance', () => {
    const none = manifestSchema.parse({
      ...manifest,
      phases: [{ ...manifest.phases[0]!, retry: { shortfall: { attempts: 0 } } }],
    });
    expect(retryPolicy(none, planCampaign(none))('p/task', 'shortfall').attempts).toBe(0);
    expect(policy('p/task', 'shortfall').attempts).toBe(2);
  });
});
