/**
 * A controller confined to a phase and stage (decide/scope.ts), as the jobs of a generated
 * workflow run it: the smoke job never releases the full arrays (the release job does, after
 * the gate job), and no job submits another phase's tasks or resets them.
 */
import { expect, test } from 'vitest';
import { manifest as manifestSchema } from '../../src/manifest/schema.js';
import { planCampaign } from '../../src/plan/plan.js';
import type { Action } from '../../src/state/events.js';
import { scopeActions, scopeAtRest, startScopedRun, WHOLE, type Scope } from '../../src/decide/scope.js';
import { emptyState, type CampaignState } from '../../src/state/state.js';
import { step } from '../../src/decide/step.js';

const NOW = '2025-01-01T00:00:00.000Z';
const manifest = manifestSchema.parse({
  campaign: 'c',
  cluster: { executor: 'local' },
  workdir: '.',
  phases: [
    {
      name: 'a',
      grid: { seed: [1, 2, 3] },
      command: 'run ${seed} > ${output}',
      output: 'a_${seed}.txt',
      walltime: '1m',
      smoke: { tasks: 1, trigger: [{ check: 'all_completed' }] },
    },
    { name: 'b', depends_on: ['a'], command: 'run > ${output}', output: 'b.txt', walltime: '1m' },
  ],
});
const plan = planCampaign(manifest);
const [a, b] = plan.phases as [(typeof plan.phases)[0], (typeof plan.phases)[0]];

const submitted = (actions: Action[]): string[] =>
  actions.flatMap((x) => (x.type === 'submit' ? x.submissions.map((s) => s.task.id) : []));

/** The state once phase a's smoke task completed and its checklist passed: the full arrays are due. */
function gatePassed(): CampaignState {
  const s = step(emptyState('c', NOW), plan, NOW, 100).state;
  const smoke = a.smoke[0]!.id;
  s.tasks[smoke] = { status: 'completed', attempts: [{ n: 1, submittedAt: NOW, class: 'completed' }] };
  s.phases.a = { status: 'gate', gate: { passed: true, at: NOW, results: [] } };
  return s;
}

test('the smoke job submits the smoke tasks only; the release job the full arrays only', () => {
  const first = step(emptyState('c', NOW), plan, NOW, 100).actions;
  expect(submitted(scopeActions(first, { phase: 'a', stage: 'smoke' }))).toEqual([a.smoke[0]!.id]);
  expect(scopeActions(first, { phase: 'a', stage: 'full' })).toEqual([]);

  const release = step(gatePassed(), plan, NOW, 100).actions;
  expect(submitted(release).length).toBe(a.tasks.length);
  expect(scopeActions(release, { phase: 'a', stage: 'smoke' })).toEqual([]);
  expect(submitted(scopeActions(release, { phase: 'a', stage: 'full' }))).toEqual(a.tasks.map((t) => t.id));
  expect(scopeActions(release, { phase: 'b', stage: 'all' })).toEqual([]);
  expect(scopeActions(release, WHOLE)).toEqual(release);
});

test('the checklist is evaluated by the smoke job', () => {
  const s = step(emptyState('c', NOW), plan, NOW, 100).state;
  s.tasks[a.smoke[0]!.id] = { status: 'completed', attempts: [{ n: 1, submittedAt: NOW, class: 'completed' }] };
  const actions = step(s, plan, NOW, 100).actions;
  expect(actions).toEqual([{ type: 'evaluate_gate', phase: 'a' }]);
  expect(scopeActions(actions, { phase: 'a', stage: 'smoke' })).toEqual(actions);
  expect(scopeActions(actions, { phase: 'a', stage: 'full' })).toEqual([]);
});

test('a scope is at rest when it has nothing to do and nothing of its own running', () => {
  const s = gatePassed();
  const smokeScope: Scope = { phase: 'a', stage: 'smoke' };
  const release = step(s, plan, NOW, 100).actions;
  expect(scopeAtRest(plan, s, scopeActions(release, smokeScope), smokeScope)).toBe(true);
  const fullScope: Scope = { phase: 'a', stage: 'full' };
  expect(scopeAtRest(plan, s, scopeActions(release, fullScope), fullScope)).toBe(false);
  const running = { ...s, tasks: { ...s.tasks, [a.tasks[1]!.id]: { status: 'running' as const, attempts: [] } } };
  expect(scopeAtRest(plan, running, [], fullScope)).toBe(false);
  // Phase b waits on a: its job has nothing to do and stops, instead of waiting for a's tasks.
  expect(scopeAtRest(plan, running, [], { phase: 'b', stage: 'all' })).toBe(true);
});

test('retry-failed resets only the failed tasks of its own scope', () => {
  const s = gatePassed();
  const failed = { status: 'failed' as const, attempts: [{ n: 1, submittedAt: NOW, class: 'failed' as const }] };
  s.tasks[a.tasks[1]!.id] = failed;
  s.tasks[b.tasks[0]!.id] = failed;
  const scoped = startScopedRun(s, plan, { phase: 'b', stage: 'all' }, { retryFailed: true });
  expect(scoped.tasks[a.tasks[1]!.id]!.status).toBe('failed');
  expect(scoped.tasks[b.tasks[0]!.id]!.status).toBe('pending');
  const whole = startScopedRun(s, plan, WHOLE, { retryFailed: true });
  expect(whole.tasks[a.tasks[1]!.id]!.status).toBe('pending');
  const none = startScopedRun(s, plan, WHOLE, { retryFailed: false });
  expect(none.tasks[b.tasks[0]!.id]!.status).toBe('failed');
});
