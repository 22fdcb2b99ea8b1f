/**
 * The summary and every picture of a campaign of 200,000 attempts: nothing spreads a large
 * array into a call (the stack's limit is about 125,000 arguments), and the pictures aggregate
 * what they cannot draw one by one, so that each stays small enough to open.
 */
import { describe, expect, it } from 'vitest';
import { manifest as manifestSchema } from '../../src/manifest/schema.js';
import { planCampaign } from '../../src/plan/plan.js';
import { jobSummary } from '../../src/report/job-summary.js';
import { pictures } from '../../src/report/pictures.js';
import { aggregate, type TaskResult } from '../../src/report/results/aggregate.js';
import { renderSummary } from '../../src/report/summary.js';
import { resultsPlot, resultsSvg } from '../../src/report/svg/results.js';
import { emptyState, type CampaignState, type TaskState } from '../../src/state/state.js';

const STEPS = 400;
const SEEDS = 250;
const manifest = manifestSchema.parse({
  campaign: 'huge',
  cluster: { executor: 'slurm', name: 'x' },
  workdir: 'w',
  phases: [
    {
      name: 'sweep',
      grid: { step: Array.from({ length: STEPS }, (_, i) => i + 1), seed: Array.from({ length: SEEDS }, (_, i) => i) },
      command: 'true',
      output: 'o/${tag}.json',
      walltime: '10m',
    },
  ],
});
const plan = planCampaign(manifest);
const tasks = plan.phases[0]!.tasks;
const T0 = Date.parse('2026-11-30T00:00:00.000Z');
const iso = (ms: number): string => new Date(ms).toISOString();

/**
 * Every task submitted at once as one array, run 500 at a time for a minute: the first attempt
 * fails, the retry completes (a thousandth of the tasks fail for good). 200,000 attempts.
 */
function hugeState(): CampaignState {
  const state: CampaignState = { ...emptyState('huge', iso(T0)), phases: { sweep: { status: 'full' } }, tasks: {} };
  tasks.forEach((t, i) => {
    const wave = Math.floor(i / 500);
    const first = T0 + wave * 60_000;
    const second = T0 + (tasks.length / 500 + wave) * 60_000;
    const lost = i % 1000 === 999;
    const s: TaskState = {
      status: lost ? 'failed' : 'completed',
      ...(lost ? { reason: 'failed: exit 3' } : {}),
      attempts: [
        {
          n: 1,
          submittedAt: iso(T0),
          startedAt: iso(first),
          endedAt: iso(first + 50_000),
          class: 'failed',
          exitCode: 3,
          walltimeSeconds: 600,
        },
        {
          n: 2,
          submittedAt: iso(first + 51_000),
          startedAt: iso(second),
          endedAt: iso(second + 40_000 + (i % 17) * 1000),
          class: lost ? 'failed' : 'completed',
          walltimeSeconds: 600,
        },
      ],
    };
    state.tasks[t.id] = s;
  });
  state.updated = iso(T0 + 2 * (tasks.length / 500) * 60_000 + 120_000);
  return state;
}

describe('a campaign of 200,000 attempts', () => {
  const state = hugeState();
  it('renders the summary, the job summary and every picture, each of a size a reader can open', () => {
    const attempts = Object.values(state.tasks).reduce((n, s) => n + s.attempts.length, 0);
    expect(attempts).toBe(200_000);
    const summary = renderSummary({ plan, state, tails: new Map() });
    expect(summary).toContain('| sweep | full | 100000 | 99900 | 0 | 0 | 100 | 100000 |');
    const job = jobSummary({ heading: '# huge', summary: { plan, state, tails: new Map() }, now: state.updated });
    expect(job).toContain('```mermaid');
    for (const p of pictures(plan, state)) {
      expect(p.svg, p.file).toMatch(/^<svg[\s\S]*<\/svg>\n?$/);
      // A drawing of every attempt would be tens of MB; aggregated, each stays small.
      expect(p.svg.length, p.file).toBeLessThan(2_000_000);
    }
  });

  it('draws the results of 100,000 cells, and of a line of 100,000 points, and aggregates a cell of 200,000 replicates', () => {
    const results: TaskResult[] = tasks.map((t, i) => ({
      id: t.id,
      values: t.values,
      status: 'completed',
      records: [{ index: 1, values: { loss: 1 / (1 + (i % STEPS)) + (i % 7) / 100 } }],
    }));
    // Every task a cell of its own (no replicate axis), then every task a replicate of one cell.
    const cells = aggregate(results, ['loss'], undefined, false);
    expect(cells).toHaveLength(100_000);
    const plot = resultsPlot(['step', 'seed'], cells, 'loss', undefined)!;
    const svg = resultsSvg(plot, 'loss of sweep');
    expect(svg.length).toBeLessThan(2_000_000);
    // One axis of 100,000 values (a category each): a line of 100,000 points.
    const flat = aggregate(
      results.map((r, i) => ({ ...r, values: { run: `r${i}` } })),
      ['loss'],
      undefined,
      false,
    );
    const long = resultsPlot(['run'], flat, 'loss', undefined)!;
    expect(long.lines[0]!.points).toHaveLength(100_000);
    expect(resultsSvg(long, 'loss of sweep').length).toBeLessThan(500_000);
    // Every task twice a replicate of one cell: 200,000 replicates.
    const one = aggregate(
      [...results, ...results].map((r) => ({ ...r, values: { seed: r.values.seed! } })),
      ['loss'],
      'seed',
      false,
    );
    expect(one).toHaveLength(1);
    expect(one[0]!.n).toBe(200_000);
    expect(one[0]!.stats.loss!.max).toBeCloseTo(1.06);
  });
});
