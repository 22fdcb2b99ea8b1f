/** The smoke gate as a check shows it, and the per-phase table of a job summary (report/job-summary.ts). */
import { expect, test } from 'vitest';
import { manifest as manifestSchema } from '../../src/manifest/schema.js';
import { planCampaign } from '../../src/plan/plan.js';
import { smokeDefinitions } from '../../src/decide/definition-changes.js';
import { gateView, phaseTable } from '../../src/report/job-summary.js';
import { emptyState, type CampaignState } from '../../src/state/state.js';

const NOW = '2025-01-01T00:00:00.000Z';
const plan = planCampaign(
  manifestSchema.parse({
    campaign: 'c',
    cluster: { executor: 'local' },
    workdir: '.',
    defaults: { resources: { gpus: 2 } },
    phases: [
      {
        name: 'a',
        grid: { seed: [1, 2] },
        command: 'run ${seed} > ${output}',
        output: 'a_${seed}.txt',
        walltime: '1h',
        smoke: { tasks: 1, trigger: [{ check: 'all_completed' }] },
      },
    ],
  }),
);
const a = plan.phases[0]!;
const withPhase = (phase: CampaignState['phases'][string]): CampaignState => ({
  ...emptyState('c', NOW),
  phases: { a: phase },
});

test('only an evaluated, passing checklist is a success', () => {
  const judged = smokeDefinitions(a);
  const passed = gateView(
    a,
    withPhase({ status: 'full', gate: { passed: true, at: NOW, results: [], definitions: judged } }),
  );
  expect(passed.conclusion).toBe('success');
  const failed = gateView(
    a,
    withPhase({
      status: 'blocked',
      gate: {
        passed: false,
        at: NOW,
        definitions: judged,
        results: [
          { check: 'all_completed', passed: true, detail: '1 smoke task ok' },
          { check: 'records', passed: false, detail: 'a|b', otherwise: 'the writer lost records' },
          { check: 'command', passed: false, detail: 'exit 1:\n| x | y |\nz', otherwise: 'one\nline' },
        ],
      },
    }),
  );
  expect(failed).toMatchObject({ conclusion: 'failure', title: '1 of 3 checks passed' });
  expect(failed.text).toContain('| records | **FAIL** | `a\\|b` | the writer lost records |');
  // A detail's line breaks and bars stay inside its cell: the check run's table keeps its rows.
  expect(failed.text).toContain('| command | **FAIL** | `exit 1: \\| x \\| y \\| z` | one line |');
  // Not evaluated: pending while it may still be, a failure once it cannot be.
  expect(gateView(a, withPhase({ status: 'smoke' })).conclusion).toBe('pending');
  expect(gateView(a, emptyState('c', NOW)).conclusion).toBe('pending');
  const blocked = gateView(a, withPhase({ status: 'blocked', reason: 'precondition missing: x' }));
  expect(blocked.conclusion).toBe('failure');
  expect(blocked.text).toContain('precondition missing: x');
});

test('a verdict given for other smoke definitions (a state of an older commit) is never published for these', () => {
  for (const definitions of [undefined, 'another']) {
    const view = gateView(
      a,
      withPhase({
        status: 'full',
        gate: { passed: true, at: NOW, results: [], ...(definitions ? { definitions } : {}) },
      }),
    );
    expect(view.conclusion).toBe('pending');
    expect(view.title).toBe('The checklist has not judged this definition yet');
  }
});

test('the phase table counts the stage the phase is in and shows the GPU-hour budget', () => {
  const table = phaseTable(plan, withPhase({ status: 'smoke' }));
  expect(table).toContain('| a | smoke | smoke | 0/1 | 0 | 0 | 1 | 0 | 0 | 4.0 (+2.00 smoke) |');
  expect(table).toContain('Budget in all: 6.0 GPU-hours.');
});
