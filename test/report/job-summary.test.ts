/** The smoke gate as a check shows it (report/job-summary.ts), and the summary's phase table with the GPU-hours used. */
import { expect, test } from 'vitest';
import { manifest as manifestSchema } from '../../src/manifest/schema.js';
import { planCampaign, smokeDefinitions } from '../../src/plan/plan.js';
import { gateView } from '../../src/report/job-summary.js';
import { phaseTable } from '../../src/report/summary.js';
import { summaryRecord } from '../../src/app/write-summary.js';
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

test('the phase table counts running and queued tasks, and the GPU-hours used against the budget', async () => {
  const at = (minutes: number): string => new Date(Date.parse(NOW) + minutes * 60_000).toISOString();
  const [first, second] = a.tasks;
  const state: CampaignState = {
    ...withPhase({ status: 'full' }),
    updated: at(120),
    tasks: {
      // Half an hour, an hour, and a quarter of an hour so far, on 2 GPUs each: 3.5 GPU-hours.
      [a.smoke[0]!.id]: {
        status: 'completed',
        attempts: [{ n: 1, submittedAt: at(0), startedAt: at(0), endedAt: at(30), class: 'completed' }],
      },
      [first!.id]: {
        status: 'completed',
        attempts: [{ n: 1, submittedAt: at(40), startedAt: at(45), endedAt: at(105), class: 'completed' }],
      },
      [second!.id]: { status: 'running', attempts: [{ n: 1, submittedAt: at(40), startedAt: at(105) }] },
    },
  };
  const table = phaseTable(plan, state).join('\n');
  expect(table).toContain(
    '| running | queued | failed | retries | wall time | mean task | GPU-h used | GPU-h budget |',
  );
  expect(table).toMatch(/^\| a \| full \| 2 \| 1 \| 1 \| 0 \| 0 \| 0 \| [^|]+ \| 1h \| 3\.50 \| 6\.00 \|$/m);
  expect(table).toContain('GPU-hours: 3.50 used, of a budget of 6.00.');
  // The same figures as data (`summary --format json`, `status --format json`).
  const record = await summaryRecord(plan, state, undefined);
  expect(record.phases[0]).toMatchObject({ phase: 'a', running: 1, gpuHours: { used: 3.5, budget: 6 } });
});
