/**
 * The results picture: which axis goes where, what is held, what is left out and said so;
 * pictures from any cells stay well-formed text; and one drawn by headless Chromium.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Cell } from '../../src/manifest/grid.js';
import type { Scalar } from '../../src/manifest/schema.js';
import { stats, type CellResult, type Stats } from '../../src/report/results/aggregate.js';
import { resultsPlot, resultsSvg, type ResultsPlot } from '../../src/report/svg/results.js';
import { escapeXml } from '../../src/report/svg/svg.js';
import { chromium, countColor, decodePng, dumpDom, inked, screenshot } from '../helpers/chromium.js';

if (!chromium)
  console.warn('\n*** results picture rendering test SKIPPED: no chromium (scripts/ensure-tools installs it) ***\n');

const HOSTILE = `<b a="1">&amp;</b>'`;

/** Every combination of the axes' values, in grid order (the last axis fastest). */
function grid(axes: Record<string, readonly Scalar[]>): Cell[] {
  return Object.entries(axes).reduce<Cell[]>(
    (cells, [axis, values]) => cells.flatMap((c) => values.map((v) => ({ ...c, [axis]: v }))),
    [{}],
  );
}

/** A cell with all its replicates, the metric `acc` drawn from the cell's place. */
function full(values: Cell, i: number, planned = 3): CellResult {
  const xs = Array.from({ length: planned }, (_, k) => 0.5 + i * 0.01 + k * 0.002);
  return { values, planned, n: planned, missing: [], stats: { acc: stats(xs) } };
}

function cellsOf(axes: Record<string, readonly Scalar[]>): CellResult[] {
  return grid(axes).map((v, i) => full(v, i));
}

const plotOf = (axes: Record<string, readonly Scalar[]>, cells = cellsOf(axes)): ResultsPlot => {
  const plot = resultsPlot(Object.keys(axes), cells, 'acc', 'seed');
  expect(plot).toBeDefined();
  return plot!;
};

describe('resultsPlot: what goes where', () => {
  it('puts the axis with the most values on x, and a numeric one among equals', () => {
    expect(plotOf({ opt: ['sgd', 'adam', 'lion'], lr: [0.1, 0.2, 0.3] }).x).toMatchObject({
      axis: 'lr',
      scale: 'linear',
    });
    const p = plotOf({ width: [64, 128], data: ['a', 'b', 'c', 'd', 'e'] });
    expect(p.x).toMatchObject({ axis: 'data', scale: 'category', values: ['a', 'b', 'c', 'd', 'e'] });
    expect(p.lineAxis).toBe('width');
    expect(p.lines.map((l) => l.value)).toEqual([64, 128]);
    expect(p.lines[0]!.points.map((q) => q.x)).toEqual([0, 1, 2, 3, 4]);
  });

  it('draws a line per value of the axis with the fewest values, and holds the others at their first', () => {
    const p = plotOf({ lr: [1, 2, 3, 4, 5], depth: [2, 4, 8], width: [64, 128], wd: [0.1, 0.2, 0.3, 0.4] });
    expect(p.x.axis).toBe('lr');
    expect(p.lineAxis).toBe('width');
    expect(p.held).toEqual([
      { axis: 'depth', value: 2 },
      { axis: 'wd', value: 0.1 },
    ]);
    expect(p.caption).toContain('depth=2, wd=0.1 held');
    expect(p.caption[0]).toBe('acc: mean ± std over 3 seed');
    // Only cells at the held values are drawn: never an average over the held axes.
    for (const l of p.lines) {
      expect(l.points).toHaveLength(5);
      for (const q of l.points) expect(q.values).toMatchObject({ depth: 2, wd: 0.1, width: l.value });
    }
  });

  it('holds an axis at its first value with results, not at one that has none', () => {
    const axes = { lr: [1, 2, 3], width: [64, 128], depth: [2, 4, 8] };
    const cells = cellsOf(axes).map((c) => (c.values.depth === 2 ? { ...c, n: 0, stats: { acc: undefined } } : c));
    expect(plotOf(axes, cells).held).toEqual([{ axis: 'depth', value: 4 }]);
  });

  it('uses a log scale for positive values over two decades or more, in ascending order', () => {
    const p = plotOf({ lr: [1e-2, 1e-4, 1e-3] });
    expect(p.x).toEqual({ axis: 'lr', scale: 'log', values: [1e-4, 1e-3, 1e-2] });
    expect(p.lines[0]!.points.map((q) => q.x)).toEqual([1e-4, 1e-3, 1e-2]);
    expect(plotOf({ lr: [1e-3, 5e-3, 9e-2] }).x.scale).toBe('linear');
    expect(plotOf({ shift: [-1, 1, 1000] }).x.scale).toBe('linear');
    expect(plotOf({ lr: [1e-4, 1e-2], opt: ['a', 'b'] }).x).toMatchObject({ axis: 'lr', scale: 'log' });
    const svg = resultsSvg(plotOf({ lr: [1e-4, 1e-3, 1e-2, 1e-1] }), 'r');
    for (const t of ['0.0001', '0.001', '0.01', '0.1']) expect(svg).toContain(`>${t}</text>`);
  });

  it('leaves a gap for a cell without a result, draws a short one hollow, and bars only n ≥ 2', () => {
    const axes = { lr: [1, 2, 3, 4] };
    const cells = cellsOf(axes);
    cells[1] = { ...cells[1]!, n: 0, missing: ['seed=1: failed', 'seed=2: failed', 'seed=3: failed'], stats: {} };
    cells[2] = { ...cells[2]!, n: 1, missing: ['seed=2: timeout', 'seed=3: failed'], stats: { acc: stats([0.7]) } };
    cells[3] = { ...cells[3]!, n: 2, missing: ['seed=3: out_of_memory'], stats: { acc: stats([0.7, 0.8]) } };
    const p = plotOf(axes, cells);
    expect(p.lines[0]!.points.map((q) => q.mean === undefined)).toEqual([false, true, false, false]);
    expect(p.lines[0]!.points.map((q) => q.std !== undefined)).toEqual([true, false, false, true]);
    expect(p.caption).toEqual([
      'acc: mean ± std over 3 seed',
      'hollow: short of replicates',
      'gaps: cells without a result',
    ]);
    const svg = resultsSvg(p, 'r');
    // One segment, over lr 3 and 4: the first point stands alone before the gap.
    expect(svg.match(/class="trend"/g)).toHaveLength(1);
    expect(svg.match(/class="error-bar"/g)).toHaveLength(2);
    expect(svg.match(/class="point"/g)).toHaveLength(1);
    expect(svg.match(/class="point short"/g)).toHaveLength(2);
    expect(svg).toContain('<title>lr=4: 0.75 ± 0.07071 (2 of 3); short: seed=3: out_of_memory</title>');
    expect(svg).not.toMatch(/<title>lr=2:/);
  });

  it('draws the first 8 lines of more and says so', () => {
    const p = plotOf({
      lr: [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11],
      opt: ['a', 'b', 'c', 'd', 'e', 'f', 'g', 'h', 'i', 'j'],
    });
    expect(p.lineAxis).toBe('opt');
    expect(p.lines.map((l) => l.value)).toEqual(['a', 'b', 'c', 'd', 'e', 'f', 'g', 'h']);
    expect(p.caption).toContain('first 8 of 10 opt values shown');
    expect(resultsSvg(p, 'r').match(/class="legend-item"/g)).toHaveLength(8);
    // Only a line past the cap has results: the first 8 keep their places, the caption its plan.
    const late = cellsOf({ lr: [1, 2, 3, 4, 5, 6, 7, 8, 9, 10], opt: 'abcdefghi'.split('') }).map((c) =>
      c.values.opt === 'i' ? c : { ...c, n: 0, stats: {} },
    );
    const q = plotOf({ lr: [1, 2, 3, 4, 5, 6, 7, 8, 9, 10], opt: 'abcdefghi'.split('') }, late);
    expect(q.lines.map((l) => l.value)).toEqual('abcdefgh'.split(''));
    expect(q.caption[0]).toBe('acc: mean ± std over 3 seed');
    expect(resultsSvg(q, 'r')).not.toMatch(/undefined|NaN/);
  });

  it('draws one point for a grid without axes, and nothing without the metric', () => {
    const one = resultsPlot([], [full({}, 0)], 'acc', undefined)!;
    expect(one.x).toEqual({ axis: undefined, scale: 'category', values: [] });
    expect(one.lines).toHaveLength(1);
    expect(one.lines[0]!.points).toHaveLength(1);
    expect(one.caption).toEqual(['acc, one task per point']);
    const svg = resultsSvg(one, 'r');
    expect(svg.match(/<circle [^>]*class="point"/g)).toHaveLength(1);
    expect(svg).not.toContain('legend-item');
    expect(resultsPlot(['lr'], cellsOf({ lr: [1, 2] }), 'loss', 'seed')).toBeUndefined();
    expect(resultsPlot(['lr'], [], 'acc', 'seed')).toBeUndefined();
    // Cells of `record: all` are not drawn.
    const perRecord = cellsOf({ lr: [1, 2] }).map((c) => ({ ...c, record: 1 }));
    expect(resultsPlot(['lr'], perRecord, 'acc', 'seed')).toBeUndefined();
  });

  it('ends on values far from zero over a narrow span (ticks past 2^53 would never step)', () => {
    const cells = [1e18, 1e18 + 256, 1e18 + 512].map((v, i): CellResult => ({
      values: { lr: i + 1 },
      planned: 1,
      n: 1,
      missing: [],
      stats: { acc: stats([v]) },
    }));
    const svg = resultsSvg(resultsPlot(['lr'], cells, 'acc', undefined)!, 'far');
    expect(svg.match(/<circle [^>]*class="point"/g)).toHaveLength(3);
  });
});

/** The text left when the picture's own tags are taken out: it must hold no markup. */
const outsideTags = (svg: string): string =>
  svg
    .replace(/<style>[^<]*<\/style>/, '')
    .replace(/<\/?(?:svg|title|style|rect|g|line|path|circle|text)(?:\s+[\w:-]+="[^"<>]*")*\s*\/?>/g, '');

describe('resultsSvg from any cells', () => {
  const word = fc.oneof(
    fc.constantFrom(HOSTILE, '"', "'", '&', '<', ']]>', 'lr', 'seed'),
    fc.string({ minLength: 1, maxLength: 10 }).filter((s) => !/NaN|Infinity/.test(s)),
  );
  const values = fc.oneof(
    fc.uniqueArray(fc.double({ noNaN: true, noDefaultInfinity: true }), { minLength: 1, maxLength: 4 }),
    fc.uniqueArray(fc.double({ min: 1e-6, max: 10, noNaN: true }), { minLength: 1, maxLength: 4 }),
    fc.uniqueArray(word, { minLength: 1, maxLength: 4 }),
  );
  const anyNumber = fc.oneof(fc.double(), fc.double({ min: -10, max: 10, noNaN: true }));
  const someStats: fc.Arbitrary<Stats | undefined> = fc.option(
    fc.record(
      { mean: anyNumber, std: anyNumber, sem: anyNumber, min: anyNumber, max: anyNumber },
      { requiredKeys: ['mean', 'min', 'max'] },
    ),
    { nil: undefined },
  );
  const world = fc
    .record({
      axes: fc.uniqueArray(fc.tuple(word, values), { minLength: 1, maxLength: 3, selector: ([a]) => a }),
      metric: word,
      replicates: fc.option(word, { nil: undefined }),
    })
    .chain(({ axes, metric, replicates }) => {
      const cells = grid(Object.fromEntries(axes));
      return fc.record({
        axes: fc.constant(axes.map(([a]) => a)),
        metric: fc.constant(metric),
        replicates: fc.constant(replicates),
        cells: fc.tuple(
          ...cells.map((values) =>
            fc
              .record({ planned: fc.integer({ min: 1, max: 4 }), n: fc.integer({ min: 0, max: 4 }), s: someStats })
              .map(({ planned, n, s }): CellResult => ({
                values,
                planned,
                n: Math.min(n, planned),
                missing: n < planned ? [`${replicates ?? 'task'}=${HOSTILE}: failed`] : [],
                stats: { [metric]: s },
              })),
          ),
        ),
      });
    });

  it('never throws, writes no NaN or Infinity, and writes every manifest string escaped', () => {
    fc.assert(
      fc.property(world, ({ axes, metric, replicates, cells }) => {
        const plot = resultsPlot(axes, cells, metric, replicates);
        const drawable = cells.filter((c) => c.n > 0 && Number.isFinite(c.stats[metric]?.mean));
        expect(plot === undefined).toBe(drawable.length === 0);
        if (plot === undefined) return;
        const svg = resultsSvg(plot, `results of ${metric}`);
        expect(svg).not.toMatch(/NaN|Infinity/);
        const rest = outsideTags(svg);
        expect(rest).not.toMatch(/[<>]/);
        expect(rest.replace(/&(?:amp|lt|gt|quot|apos);/g, '')).not.toMatch(/[&"']/);
        expect(svg).toContain(escapeXml(metric));
        const drawn = plot.lines.flatMap((l) => l.points.filter((p) => p.mean !== undefined));
        expect(drawn.length).toBeGreaterThan(0);
        // Each drawn cell is named in its tooltip, every axis with its value.
        for (const p of drawn)
          for (const [k, v] of Object.entries(p.values)) expect(svg).toContain(escapeXml(`${k}=${String(v)}`));
        if (plot.lineAxis !== undefined) expect(svg).toContain(escapeXml(plot.lineAxis));
      }),
      { numRuns: 300 },
    );
  });
});

describe.runIf(chromium !== undefined)('the results picture in headless Chromium', () => {
  let dir = '';
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'campaign-results-picture-'));
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('parses, has both axes, a legend item per width, bars where n ≥ 2, and every line drawn', async () => {
    const axes = { lr: [1e-4, 1e-3, 1e-2, 1e-1], width: [64, 128, 256] };
    const cells = grid(axes).map((values, i): CellResult => {
      const acc = (seed: number): number =>
        0.9 + 0.02 * Math.log10(values.lr as number) + 0.03 * (i % 3) + 0.004 * seed;
      if (i === 4)
        return { values, planned: 3, n: 2, missing: ['seed=3: failed'], stats: { acc: stats([acc(1), acc(2)]) } };
      if (i === 7)
        return { values, planned: 3, n: 0, missing: ['seed=1: lost', 'seed=2: lost', 'seed=3: lost'], stats: {} };
      return { values, planned: 3, n: 3, missing: [], stats: { acc: stats([acc(1), acc(2), acc(3)]) } };
    });
    const plot = resultsPlot(['lr', 'width'], cells, 'acc', 'seed')!;
    expect(plot.x.scale).toBe('log');
    const svg = resultsSvg(plot, 'train: acc');
    const file = join(dir, 'results.svg');
    await writeFile(file, svg);

    const dom = await dumpDom(file);
    expect(dom).not.toContain('parsererror');
    expect(dom).toContain('class="axis x"');
    expect(dom).toContain('class="axis y"');
    expect(dom.match(/class="legend-item"/g)).toHaveLength(3);
    expect(dom.match(/class="error-bar"/g)).toHaveLength(cells.filter((c) => c.n >= 2).length);
    expect(dom.match(/class="point short"/g)).toHaveLength(1);
    expect(dom).toContain('seed=3: failed</title>');

    const [, w, h] = /width="(\d+)" height="(\d+)"/.exec(svg)!;
    const pixels = decodePng(await screenshot(file, join(dir, 'results.png'), Number(w), Number(h)));
    expect([pixels.width, pixels.height]).toEqual([Number(w), Number(h)]);
    expect(inked(pixels)).toBeGreaterThan(2000);
    const colors = [...svg.matchAll(/<g class="legend-item"><line [^>]*stroke="(#[0-9a-f]{6})"/g)].map((m) => m[1]!);
    expect(new Set(colors).size).toBe(3);
    for (const c of colors) expect(countColor(pixels, c), c).toBeGreaterThan(150);
  }, 60_000);
});
