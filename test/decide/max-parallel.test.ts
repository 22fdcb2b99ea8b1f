/**
 * max_parallel is the campaign's (decide/step.ts with an executor's capacity): whatever
 * the phases, strata and their order of ends, the tasks sent and not yet ended never exceed
 * the campaign's cap, nor a phase's own cap its tasks, and the campaign still completes.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { retryPolicy } from '../../src/decide/policy.js';
import { applyEvents } from '../../src/decide/apply.js';
import { atRest, step } from '../../src/decide/step.js';
import { manifest as manifestSchema } from '../../src/manifest/schema.js';
import { planCampaign } from '../../src/plan/plan.js';
import { placement } from '../../src/state/placement.js';
import type { CampaignEvent } from '../../src/state/events.js';
import { ACTIVE, emptyState } from '../../src/state/state.js';
import { indexOf } from '../../src/state/task-index.js';

const T0 = Date.parse('2025-01-01T00:00:00.000Z');
const at = (pass: number): string => new Date(T0 + pass * 1000).toISOString();

/** Two independent phases of two strata each, and a third after the first; caps as drawn. */
function campaign(cap: number, phaseCaps: (number | undefined)[]) {
  const phase = (name: string, i: number, extra: object = {}) => ({
    name,
    grid: { size: ['s', 'l'], seed: [1, 2, 3, 4, 5] },
    strata: ['size'],
    command: 'run ${size} ${seed}',
    walltime: '5m',
    ...(phaseCaps[i] === undefined ? {} : { max_parallel: phaseCaps[i] }),
    ...extra,
  });
  const manifest = manifestSchema.parse({
    campaign: 'c',
    cluster: { executor: 'local', max_parallel: cap },
    workdir: '.',
    phases: [phase('a', 0), phase('b', 1), phase('c', 2, { depends_on: 'a' })],
  });
  return { manifest, plan: planCampaign(manifest) };
}

describe('max_parallel caps the campaign, and a phase within it', () => {
  it('never more sent at once than the caps allow, across strata and independent phases, and all complete', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 6 }),
        fc.array(fc.option(fc.integer({ min: 1, max: 4 }), { nil: undefined }), { minLength: 3, maxLength: 3 }),
        fc.infiniteStream(fc.double({ min: 0, max: 1, noNaN: true })),
        (cap, phaseCaps, draws) => {
          const { manifest, plan } = campaign(cap, phaseCaps);
          const policy = retryPolicy(manifest, plan);
          let state = emptyState('c', at(0));
          const random = draws[Symbol.iterator]();
          let widest = 0;
          for (let pass = 1; pass < 1000; pass++) {
            const index = indexOf(state.tasks);
            // The executor's capacity (the local one's: the cap less the tasks active).
            const r = step(state, plan, at(pass), Math.max(0, cap - index.count(ACTIVE)));
            const sent: CampaignEvent[] = r.actions.flatMap((a) =>
              a.type === 'submit'
                ? a.submissions.map((s) => ({
                    type: 'submitted' as const,
                    task: s.task.id,
                    attempt: s.attempt,
                    at: at(pass),
                    handle: s.task.id,
                  }))
                : [],
            );
            state = applyEvents(r.state, sent, policy);
            const active = [...ACTIVE].flatMap((s) => [...indexOf(state.tasks).ids(s)]);
            expect(active.length).toBeLessThanOrEqual(cap);
            widest = Math.max(widest, active.length);
            plan.phases.forEach((p, i) => {
              const inPhase = active.filter((id) => placement(plan, id)?.array.phase === p.name).length;
              if (phaseCaps[i] !== undefined) expect(inPhase, p.name).toBeLessThanOrEqual(phaseCaps[i]);
            });
            if (atRest(state, r.actions)) break;
            // Some of the active tasks end, in any order.
            const ends = active.filter(() => random.next().value < 0.4);
            state = applyEvents(
              state,
              ends.map((id) => ({ type: 'finished', task: id, attempt: 1, at: at(pass), class: 'completed' })),
              policy,
            );
          }
          for (const p of plan.phases)
            for (const t of p.tasks) expect(state.tasks[t.id]?.status, t.id).toBe('completed');
          // The cap is used, not only respected: the two phases that start together fill it between them.
          expect(widest).toBeGreaterThanOrEqual(Math.min(cap, (phaseCaps[0] ?? 10) + (phaseCaps[1] ?? 10)));
        },
      ),
      { numRuns: 60 },
    );
  });

  it('a task the executor saw end, not yet judged, frees its place in its phase', () => {
    const { manifest, plan } = campaign(10, [1, undefined, undefined]);
    const policy = retryPolicy(manifest, plan);
    const first = step(emptyState('c', at(0)), plan, at(1), 10);
    const sentA = first.actions
      .flatMap((a) => (a.type === 'submit' ? a.submissions : []))
      .filter((s) => s.task.phase === 'a');
    expect(sentA).toHaveLength(1);
    const state = applyEvents(
      first.state,
      sentA.map((s) => ({ type: 'submitted' as const, task: s.task.id, attempt: 1, at: at(1), handle: s.task.id })),
      policy,
    );
    const phaseA = (ended?: ReadonlySet<string>) =>
      step(state, plan, at(2), 10, ended)
        .actions.flatMap((a) => (a.type === 'submit' ? a.submissions : []))
        .filter((s) => s.task.phase === 'a').length;
    expect(phaseA()).toBe(0);
    expect(phaseA(new Set([sentA[0]!.task.id]))).toBe(1);
  });
});
