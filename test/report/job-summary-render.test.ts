/**
 * The job summary as rendered (report/mermaid.ts, report/job-summary.ts): a Mermaid Gantt chart
 * whose labels cannot be read as Mermaid syntax or HTML, no link relative to the summary (its
 * files are in the state artifact), and a size within GitHub's 1 MiB however large the campaign.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { manifest as manifestSchema } from '../../src/manifest/schema.js';
import { planCampaign, type Plan } from '../../src/plan/plan.js';
import { JOB_SUMMARY_BYTES, jobSummary } from '../../src/report/job-summary.js';
import { ganttChart, mermaidLabel, resultsCharts } from '../../src/report/mermaid.js';
import type { CellResult } from '../../src/report/results/aggregate.js';
import type { ResultsSection } from '../../src/report/results/section.js';
import { renderSummary, type SummaryInput } from '../../src/report/summary.js';
import { emptyState, type CampaignState, type TaskState } from '../../src/state/state.js';

const T0 = Date.parse('2026-11-30T10:00:00.000Z');
const iso = (s: number): string => new Date(T0 + s * 1000).toISOString();

function planOf(tasks: number): Plan {
  return planCampaign(
    manifestSchema.parse({
      campaign: 'c',
      cluster: { executor: 'slurm', name: 'x' },
      workdir: 'w',
      phases: [
        {
          name: 'train',
          grid: { seed: Array.from({ length: tasks }, (_, i) => i + 1) },
          command: 'run ${seed} > ${output}',
          output: 'out/${seed}.txt',
          walltime: '1h',
          smoke: { tasks: 1, trigger: [{ check: 'all_completed' }] },
        },
        { name: 'eval', depends_on: 'train', grid: { k: [1] }, command: 'true', walltime: '5m' },
      ],
    }),
  );
}

const done = (from: number, to: number): TaskState => ({
  status: 'completed',
  attempts: [{ n: 1, submittedAt: iso(from), startedAt: iso(from), endedAt: iso(to), class: 'completed' }],
});

/** train: smoke done (0–60 s), full running since 100 s; eval not started. */
function runningState(plan: Plan): CampaignState {
  const train = plan.phases[0]!;
  const tasks: Record<string, TaskState> = { [train.smoke[0]!.id]: done(0, 60) };
  tasks[train.tasks[0]!.id] = done(100, 200);
  tasks[train.tasks[1]!.id] = { status: 'running', attempts: [{ n: 1, submittedAt: iso(100), startedAt: iso(110) }] };
  return { ...emptyState('c', iso(0)), phases: { train: { status: 'full' } }, tasks };
}

const PICTURES = [
  { file: 'timeline.svg', caption: 'Timeline' },
  { file: 'phases.svg', caption: 'Phases' },
];

/** Markdown links and images whose target is not an absolute URL. */
const relativeLinks = (md: string): string[] =>
  [...md.matchAll(/!?\[[^\]\n]*\]\(([^)\s]*)[^)]*\)/g)].map((m) => m[1]!).filter((t) => !/^https:\/\//.test(t));

describe('the Gantt chart', () => {
  it('has a section per phase that ran and a bar per stage; a running stage ends now', () => {
    const plan = planOf(2);
    expect(ganttChart(plan, runningState(plan), iso(300))).toEqual([
      '```mermaid',
      'gantt',
      '  title Campaign c',
      '  dateFormat YYYY-MM-DD HH:mm:ss',
      // Five minutes: the seconds too, or every tick would read alike.
      '  axisFormat %H:%M:%S',
      '  section train',
      '  smoke :done, 2026-11-30 10:00:00, 2026-11-30 10:01:00',
      '  full :active, 2026-11-30 10:01:40, 2026-11-30 10:05:00',
      '```',
    ]);
    expect(ganttChart(plan, emptyState('c', iso(0)), iso(300))).toEqual([]);
  });

  it('marks a stage with a failed task, and shows the day once the campaign spans days', () => {
    const plan = planOf(2);
    const train = plan.phases[0]!;
    const failed: TaskState = {
      status: 'failed',
      attempts: [{ n: 1, submittedAt: iso(0), endedAt: iso(3 * 86400), class: 'failed' }],
    };
    const state = { ...emptyState('c', iso(0)), tasks: { [train.tasks[0]!.id]: failed } };
    const chart = ganttChart(plan, state, iso(3 * 86400));
    expect(chart).toContain('  axisFormat %m-%d %H:%M');
    expect(chart).toContain('  full :crit, done, 2026-11-30 10:00:00, 2026-12-03 10:00:00');
  });

  it('labels its ticks by the minute from a quarter of an hour on', () => {
    const plan = planOf(2);
    const train = plan.phases[0]!;
    const state = { ...emptyState('c', iso(0)), tasks: { [train.tasks[0]!.id]: done(0, 3600) } };
    expect(ganttChart(plan, state, iso(3600))).toContain('  axisFormat %H:%M');
  });

  it('labels hold nothing Mermaid or HTML reads as syntax (property)', () => {
    const safe = /^[\p{L}\p{N} _.\-+()/]+$/u;
    fc.assert(
      fc.property(fc.string({ unit: 'grapheme', maxLength: 200 }), fc.string({ maxLength: 200 }), (a, b) => {
        for (const text of [a, b, `${a}\n%%{init: {"theme": "dark"}}%%\n${b}`, `<img src=x onerror=alert(1)>${a}`]) {
          const label = mermaidLabel(text);
          expect(label).toMatch(safe);
          expect(Array.from(label).length).toBeLessThanOrEqual(60);
          expect(label).not.toMatch(/^ | $/);
          expect(mermaidLabel(label)).toBe(label);
        }
      }),
    );
  });

  it('any phase or campaign name leaves every line of the chart one statement of the expected forms (property)', () => {
    const plan = planOf(2);
    const state = runningState(plan);
    const line = [
      /^```(mermaid)?$/,
      /^gantt$/,
      /^ {2}title [\p{L}\p{N} _.\-+()/]+$/u,
      /^ {2}dateFormat YYYY-MM-DD HH:mm:ss$/,
      /^ {2}axisFormat %H:%M:%S$/,
      /^ {2}section [\p{L}\p{N} _.\-+()/]+$/u,
      /^ {2}(smoke|full) :(active|done), \d{4}-\d\d-\d\d \d\d:\d\d:\d\d, \d{4}-\d\d-\d\d \d\d:\d\d:\d\d$/,
    ];
    fc.assert(
      fc.property(fc.string({ maxLength: 80 }), fc.string({ maxLength: 80 }), (campaign, phase) => {
        const renamed: Plan = {
          ...plan,
          campaign,
          phases: plan.phases.map((p, i) => (i === 0 ? { ...p, name: phase } : p)),
        };
        const chart = ganttChart(renamed, state, iso(300));
        expect(chart).toHaveLength(9);
        for (const l of chart)
          expect(
            line.some((r) => r.test(l)),
            l,
          ).toBe(true);
        // Nothing closes the fence early.
        expect(chart.filter((l) => l.startsWith('```'))).toHaveLength(2);
      }),
    );
  });
});

describe('the job summary', () => {
  const results = [
    {
      phase: 'train',
      axes: [],
      metrics: ['loss'],
      cells: [
        { values: {}, n: 2, planned: 2, stats: { loss: { mean: 1, std: 0.5, min: 0.5, max: 1.5 } }, missing: [] },
      ],
      files: {
        cells: 'results-train.csv',
        tasks: 'results-train-tasks.csv',
        picture: { file: 'results-train.svg', caption: 'loss' },
      },
    },
  ];

  it('has the chart and the artifact where the pictures and tables are, and no relative link; summary.md keeps its links', () => {
    const plan = planOf(2);
    const summary: SummaryInput = {
      plan,
      state: runningState(plan),
      tails: new Map(),
      pictures: PICTURES,
      provenance: 'provenance.jsonl',
      results,
    };
    const url = 'https://github.com/o/r/actions/runs/7/artifacts/42';
    const md = jobSummary({
      heading: '## campaign c',
      summary,
      artifact: { name: 'campaign-state.c.7-1.j.1', url },
      now: iso(300),
    });
    expect(md).toContain('```mermaid\ngantt\n');
    expect(md).toContain(`State artifact: [campaign-state.c.7-1.j.1](${url})`);
    expect(md).toContain(
      `The pictures (timeline.svg, phases.svg) and the whole tables are in the state artifact [campaign-state.c.7-1.j.1](${url}).`,
    );
    expect(md).toContain('| train | full |');
    expect(relativeLinks(md)).toEqual([]);
    expect(md).not.toContain('](results-train');

    const file = renderSummary(summary);
    expect(relativeLinks(file)).toEqual([
      'timeline.svg',
      'phases.svg',
      'timeline.svg',
      'phases.svg',
      'results-train.csv',
      'results-train-tasks.csv',
      'results-train.svg',
      'provenance.jsonl',
    ]);
    expect(file).not.toContain('```mermaid');
  });

  it('a huge campaign stays within 1 MiB: the long sections cut, saying how many are left out and where', () => {
    const plan = planOf(5000);
    const train = plan.phases[0]!;
    const tasks: Record<string, TaskState> = {};
    const reason = `failed: ${'x'.repeat(20_000)}`;
    const adapted = [`a time limit of 5m instead of 1h ${'z'.repeat(2000)}`];
    for (const t of train.tasks) {
      tasks[t.id] = {
        status: 'failed',
        reason,
        attempts: [1, 2, 3].map((n) => ({
          n,
          submittedAt: iso(n),
          endedAt: iso(n + 1),
          class: 'failed' as const,
          adapted,
        })),
      };
    }
    const state: CampaignState = { ...emptyState('c', iso(0)), phases: { train: { status: 'failed' } }, tasks };
    // 50 log tails (as many as app/write-summary.ts reads) of 20 long lines each.
    const tails = new Map(
      train.tasks.slice(0, 50).map((t) => [t.id, { text: `${'y'.repeat(50_000)}\n`.repeat(20), path: '/w/log' }]),
    );
    const md = jobSummary({
      heading: '## campaign c',
      summary: { plan, state, tails, pictures: PICTURES },
      artifact: { name: 'campaign-state.c.7-1.j.1', url: 'https://github.com/o/r/actions/runs/7/artifacts/42' },
      now: iso(300),
    });
    const bytes = Buffer.byteLength(md);
    expect(bytes).toBeLessThanOrEqual(JOB_SUMMARY_BYTES);
    expect(bytes).toBeLessThan(1024 * 1024);
    // Both sections were cut, each with a line saying how many were left out and where they are.
    const cuts = [
      ...md.matchAll(/^… and (\d+) more, left out here: the state artifact \[[^\]]+\]\(https:[^)]+\) has them/gm),
    ];
    expect(cuts).toHaveLength(2);
    const [adaptedLeft, failedLeft] = cuts.map((m) => Number(m[1]));
    const adaptedShown = md.split('\n').filter((l) => /^\| train\/seed\d+ \| \d \| failed \|/.test(l)).length;
    expect(adaptedShown).toBeGreaterThan(0);
    expect(adaptedShown).toBeLessThan(200);
    expect(adaptedShown + adaptedLeft!).toBe(15_000);
    const failedShown = md.split('\n').filter((l) => l.startsWith('#### train/')).length;
    // Fewer than the 50 summary.md lists: the bytes, not the count, cut this section.
    expect(failedShown).toBeGreaterThan(0);
    expect(failedShown).toBeLessThan(50);
    expect(failedShown + failedLeft!).toBe(5000);
    // A log tail is its end only.
    expect(md).not.toContain('y'.repeat(4001));
  });
});

describe('the results as Mermaid charts', () => {
  const cell = (lr: number, width: number, mean: number | undefined): CellResult => ({
    values: { lr, width },
    planned: 2,
    n: mean === undefined ? 0 : 2,
    missing: mean === undefined ? ['seed=1: failed', 'seed=2: failed'] : [],
    stats: { loss: mean === undefined ? undefined : { mean, std: 0.01, min: mean - 0.01, max: mean + 0.01 } },
  });
  const section = (cells: CellResult[]): ResultsSection => ({
    phase: 'train',
    axes: ['lr', 'width'],
    metrics: ['loss'],
    replicates: 'seed',
    cells,
  });
  const grid = [0.1, 0.01, 0.001].flatMap((lr) => [8, 16].map((width) => cell(lr, width, lr * width)));

  it('one chart per value of the lines axis, each mean against the x axis in its order', () => {
    const charts = resultsCharts(section(grid)).join('\n');
    expect(charts.match(/^xychart-beta$/gm)).toHaveLength(2);
    expect(charts).toContain(
      '  title "loss of train at width 8 (mean over seed)"\n  x-axis "lr" ["0.001", "0.01", "0.1"]',
    );
    expect(charts).toMatch(/^ {2}line \[0\.008, 0\.08, 0\.8\]$/m);
    expect(charts).toMatch(/^ {2}line \[0\.016, 0\.16, 1\.6\]$/m);
  });

  it('no chart of a line with a cell without a result, nor of more values than a chart can label', () => {
    const gap = grid.map((c) => (c.values.width === 16 && c.values.lr === 0.01 ? cell(0.01, 16, undefined) : c));
    expect(
      resultsCharts(section(gap))
        .join('\n')
        .match(/^xychart-beta$/gm),
    ).toHaveLength(1);
    const wide = Array.from({ length: 41 }, (_, i) => cell(i + 1, 8, i));
    expect(resultsCharts(section(wide))).toEqual([]);
  });

  it('in the job summary, under the job heading; a log line that looks like a heading stays as it was', () => {
    const plan = planOf(2);
    const train = plan.phases[0]!;
    const state: CampaignState = {
      ...emptyState('c', iso(0)),
      phases: { train: { status: 'failed' } },
      tasks: { [train.tasks[0]!.id]: { status: 'failed', reason: 'failed: exit 1', attempts: [] } },
    };
    const md = jobSummary({
      heading: '## campaign c',
      summary: {
        plan,
        state,
        tails: new Map([[train.tasks[0]!.id, { text: '# not a heading\n' }]]),
        results: [section(grid)],
      },
      now: iso(300),
    });
    const outsideFences = md.replace(/^```[^\n]*\n[\s\S]*?^```$/gm, '');
    expect(outsideFences.match(/^#{1,2} .*$/gm)).toEqual(['## campaign c']);
    expect(md).toMatch(/^### Results: train$/m);
    expect(md).toMatch(/^#### train\/seed1$/m);
    expect(md).toContain('```\n# not a heading\n```');
    expect(md).toContain('```mermaid\nxychart-beta\n');
  });
});
