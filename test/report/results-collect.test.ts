/**
 * From a plan and a state to results (report/results/collect.ts): which outputs are read, what
 * a task without a result shows, which phase is asked for, and that smoke tasks never count.
 */
import { describe, expect, it } from 'vitest';
import { UserError } from '../../src/errors.js';
import { manifest as manifestSchema, type Manifest } from '../../src/manifest/schema.js';
import { planCampaign } from '../../src/plan/plan.js';
import { outputsToRead, resultPhase, resultsTable, taskResults } from '../../src/report/results/collect.js';
import { outputResult } from '../../src/report/results/output-result.js';
import { parseRecordRule } from '../../src/report/results/records.js';
import { renderTable } from '../../src/report/results/table.js';
import type { Attempt, CampaignState, TaskState } from '../../src/state/state.js';

const manifestOf = (phase: Record<string, unknown>, more: Record<string, unknown>[] = []): Manifest =>
  manifestSchema.parse({
    campaign: 'c',
    cluster: { executor: 'local' },
    workdir: 'runs',
    phases: [
      {
        name: 'train',
        grid: { lr: [1, 2], seed: [1, 2] },
        command: 'true',
        output: 'out/${tag}',
        walltime: '1m',
        ...phase,
      },
      ...more,
    ],
  });

const T0 = '2026-01-01T00:00:00.000Z';
const T1 = '2026-01-01T01:30:00.000Z';

function completed(definition: string | undefined, n = 1): TaskState {
  const attempt: Attempt = {
    n,
    submittedAt: T0,
    startedAt: T0,
    endedAt: T1,
    class: 'completed',
    node: 'gpu7',
    ...(definition === undefined ? {} : { definition }),
  };
  return { status: 'completed', attempts: [attempt] };
}

function stateOf(tasks: Record<string, TaskState>): CampaignState {
  return { version: 1, campaign: 'c', created: T0, updated: T0, phases: {}, tasks };
}

describe('results from a plan and a state', () => {
  const manifest = manifestOf({
    resources: { gpus: 2 },
    smoke: { tasks: 1, overrides: { units: 1 } },
    results: { metrics: ['loss'], record: 'best:loss:min', replicates: 'seed', path: 'metrics-${seed}.csv' },
  });
  const plan = planCampaign(manifest);
  const def = (id: string): string => plan.phases[0]!.tasks.find((t) => t.id === id)!.definition!;
  const smokeId = plan.phases[0]!.smoke[0]!.id;
  const state = stateOf({
    'train/lr1_seed1': completed(def('train/lr1_seed1')),
    'train/lr1_seed2': completed(def('train/lr1_seed2')),
    'train/lr2_seed1': completed('an-earlier-definition'),
    'train/lr2_seed2': { status: 'failed', reason: 'failed: exit 3', attempts: [] },
    [smokeId]: completed(undefined),
  });
  const r = resultPhase(manifest, plan, undefined);

  it('reads the named file inside each directory output, of current completed full tasks only', () => {
    expect([...outputsToRead(manifest, r, state)]).toEqual([
      ['train/lr1_seed1', 'out/lr1_seed1/metrics-1.csv'],
      ['train/lr1_seed2', 'out/lr1_seed2/metrics-2.csv'],
    ]);
  });

  it('gives each task its result or why it has none, and never a smoke task', () => {
    const paths = outputsToRead(manifest, r, state);
    const results = new Map([
      [
        'train/lr1_seed1',
        outputResult('step,loss\n1,0.9\n2,0.3\n3,0.5\n', parseRecordRule(r.results.record), ['loss']),
      ],
      ['train/lr1_seed2', undefined],
    ]);
    const tasks = taskResults(r, state, paths, results);
    expect(tasks.map((t) => [t.id, t.status, t.records, t.problem])).toEqual([
      ['train/lr1_seed1', 'completed', [{ index: 2, values: { loss: 0.3 } }], undefined],
      ['train/lr1_seed2', 'completed', [], 'out/lr1_seed2/metrics-2.csv is not there'],
      [
        'train/lr2_seed1',
        'completed',
        [],
        'ran under an earlier definition: `campaign run` runs it again (--keep-changed keeps its result)',
      ],
      ['train/lr2_seed2', 'failed', [], 'failed: exit 3'],
    ]);
    // 1.5 hours on the phase's 2 GPUs.
    expect(tasks[0]).toMatchObject({ attempt: 1, node: 'gpu7', gpuHours: 3, definition: def('train/lr1_seed1') });
    const { table, cells } = resultsTable(r, tasks, false);
    expect(cells.map((c) => [c.values, c.n, c.planned])).toEqual([
      [{ lr: 1 }, 1, 2],
      [{ lr: 2 }, 0, 2],
    ]);
    expect(renderTable(table, 'csv').split('\r\n').slice(0, 3)).toEqual([
      'lr,status,n,planned,loss_mean,loss_std,loss_sem,loss_min,loss_max,missing',
      '1,incomplete,1,2,0.3,,,0.3,0.3,seed=2: out/lr1_seed2/metrics-2.csv is not there',
      '2,missing,0,2,,,,,,seed=1: ran under an earlier definition: `campaign run` runs it again (--keep-changed keeps its result); seed=2: failed: exit 3',
    ]);
  });

  it('says that a directory output needs results.path where none is declared', () => {
    const m = manifestOf({ results: { metrics: ['loss'] } });
    const p = planCampaign(m);
    const rp = resultPhase(m, p, undefined);
    const s = stateOf({ 'train/lr1_seed1': completed(p.phases[0]!.tasks[0]!.definition) });
    const directory = { problem: 'it is a directory, not a regular file' };
    const [first] = taskResults(rp, s, outputsToRead(m, rp, s), new Map([['train/lr1_seed1', directory]]));
    expect(first!.problem).toBe(
      'out/lr1_seed1: it is a directory, not a regular file (name the file inside with results.path)',
    );
  });
});

describe('the phase asked for', () => {
  const problem = (f: () => unknown): string => {
    try {
      f();
    } catch (e) {
      expect(e).toBeInstanceOf(UserError);
      return (e as UserError).message;
    }
    throw new Error('no error');
  };
  const other = { name: 'eval', command: 'true', output: 'e/${tag}.json', walltime: '1m' };

  it('is the only phase that declares results, else the one named', () => {
    const m = manifestOf({ results: { metrics: ['loss'] } }, [other]);
    const plan = planCampaign(m);
    expect(resultPhase(m, plan, undefined).phase.name).toBe('train');
    expect(problem(() => resultPhase(m, plan, 'eval'))).toMatch(
      /^phase eval declares no results: .* \(fix: declare results: \{ metrics: \[loss\], replicates: seed \} in the phase/,
    );
    expect(problem(() => resultPhase(m, plan, 'nope'))).toMatch(/has no phase nope \(fix: give one of train, eval/);
  });

  it('must be named where several declare results, and must declare some where none is named', () => {
    const both = manifestOf({ results: { metrics: ['loss'] } }, [{ ...other, results: { metrics: ['acc'] } }]);
    expect(problem(() => resultPhase(both, planCampaign(both), undefined))).toMatch(
      /phases train, eval declare results \(fix: name one with --phase\)/,
    );
    const none = manifestOf({});
    expect(problem(() => resultPhase(none, planCampaign(none), undefined))).toMatch(/no phase of c declares results/);
  });
});
