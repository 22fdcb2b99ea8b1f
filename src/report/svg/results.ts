/**
 * The results picture: one metric against one axis of the grid, a line per value of a second
 * axis, each point the mean over the replicates with its sample standard deviation as an error
 * bar. What the grid holds beyond two axes is held at one value and said in the caption, never
 * averaged away; a cell short of replicates is drawn hollow, one without a result not at all.
 */
import type { Cell } from '../../manifest/grid.js';
import type { Scalar } from '../../manifest/schema.js';
import type { CellResult } from '../results/aggregate.js';
import { COLORS, el, extent, niceStep, svgDocument, text, title } from './svg.js';

/** One cell on its line. */
interface ResultsPoint {
  /** Where on the x axis: the value on a numeric axis, the category's index on another. */
  x: number;
  /** The cell's values, for its tooltip. */
  values: Cell;
  /** Undefined where the cell has no finite mean: not drawn, a gap in its line. */
  mean?: number;
  /** The sample standard deviation, where two or more replicates gave a finite one. */
  std?: number;
  n: number;
  planned: number;
  missing: string[];
}

interface ResultsLine {
  /** The value of the lines' axis; undefined for the one line of a plot without that axis. */
  value?: Scalar;
  /** In x order. */
  points: ResultsPoint[];
}

export interface ResultsPlot {
  metric: string;
  x: {
    /** Undefined for a grid without axes: one point. */
    axis?: string;
    scale: 'linear' | 'log' | 'category';
    /** The values drawn: ascending on a numeric axis, in grid order on another. */
    values: Scalar[];
  };
  /** The axis with a line per value, where there is a second axis. */
  lines: ResultsLine[];
  lineAxis?: string;
  /** The axes beyond those two, each at the value the picture shows. */
  held: { axis: string; value: Scalar }[];
  /** Lines to read under the heading: what a point is, what is held, what is left out. */
  caption: string[];
}

/** More lines than this are not told apart by colour: the first ones are drawn and the caption says so. */
const MAX_LINES = 8;

/** The lines' colours: none is a state colour, so that no line reads as "failed" or "completed". */
const LINE_COLORS = ['#1f77b4', '#d95f02', '#7570b3', '#e7298a', '#8c564b', '#bcbd22', '#393b79', '#0f8f8f'];

const key = (v: Scalar | undefined): string => `${typeof v}:${String(v)}`;

/** An axis's values over the cells, in the order they first come (grid order). */
function distinct(cells: readonly CellResult[], axis: string): Scalar[] {
  const seen = new Map<string, Scalar>();
  for (const cellResult of cells) {
    const v = cellResult.values[axis];
    if (v !== undefined && !seen.has(key(v))) seen.set(key(v), v);
  }
  return [...seen.values()];
}

const numeric = (vs: readonly Scalar[]): vs is number[] =>
  vs.length > 0 && vs.every((v) => typeof v === 'number' && Number.isFinite(v));

const finite = (v: number | undefined): v is number => v !== undefined && Number.isFinite(v);

const drawable = (cellResult: CellResult, metric: string): boolean =>
  cellResult.n > 0 && finite(cellResult.stats[metric]?.mean);

const named = (axis: string, v: Scalar): string => `${axis}=${String(v)}`;

/**
 * What the picture shows; undefined when the cells give nothing to draw (no cell has the metric).
 *
 * Cells of `record: all` (one per record of the outputs, `CellResult.record` set) are left out:
 * a record's place is not an axis of the grid, and mixing them into the lines would draw several
 * points per cell.
 */
export function resultsPlot(
  cellAxes: readonly string[],
  cells: readonly CellResult[],
  metric: string,
  replicates: string | undefined,
): ResultsPlot | undefined {
  const own = cells.filter((cellResult) => cellResult.record === undefined);
  if (!own.some((cellResult) => drawable(cellResult, metric))) return undefined;
  const axes = cellAxes.map((axis) => {
    const values = distinct(own, axis);
    return { axis, values, numeric: numeric(values) };
  });
  // The x axis takes the most values (lines are capped, the x axis is not); among equals a
  // numeric one, for its real scale. The sorts are stable: further ties go by grid order.
  const x = [...axes].sort((a, b) => b.values.length - a.values.length || Number(b.numeric) - Number(a.numeric))[0];
  const rest = axes.filter((a) => a !== x && a.values.length > 1);
  // The lines take the fewest values, so that as few as possible are cut at the cap.
  const lineAxis = [...rest].sort((a, b) => a.values.length - b.values.length)[0];
  // Each further axis is held at its first value under which something is drawn, so that a
  // first value without results does not leave the picture empty.
  let shown = own;
  const held: ResultsPlot['held'] = [];
  for (const a of rest.filter((r) => r !== lineAxis)) {
    const value = a.values.find((v) =>
      shown.some((cellResult) => key(cellResult.values[a.axis]) === key(v) && drawable(cellResult, metric)),
    )!;
    held.push({ axis: a.axis, value });
    shown = shown.filter((cellResult) => key(cellResult.values[a.axis]) === key(value));
  }

  const xs = x === undefined ? [] : distinct(shown, x.axis);
  let xValues: Scalar[] = xs;
  let scale: ResultsPlot['x']['scale'] = 'category';
  if (numeric(xs)) {
    const sorted = [...xs].sort((a, b) => a - b);
    xValues = sorted;
    const [lo, hi] = [sorted[0]!, sorted[sorted.length - 1]!];
    // Learning rates and the like: positive values over two decades or more read on a log scale.
    scale = lo > 0 && hi / lo >= 100 ? 'log' : 'linear';
  }
  const lineValues: (Scalar | undefined)[] = lineAxis === undefined ? [undefined] : distinct(shown, lineAxis.axis);

  const point = (cellResult: CellResult, at: number): ResultsPoint => {
    const s = cellResult.n > 0 ? cellResult.stats[metric] : undefined;
    const mean = finite(s?.mean) ? s.mean : undefined;
    const std = mean !== undefined && cellResult.n >= 2 && finite(s?.std) && s.std >= 0 ? s.std : undefined;
    return {
      x: at,
      values: cellResult.values,
      mean,
      std,
      n: cellResult.n,
      planned: cellResult.planned,
      missing: cellResult.missing,
    };
  };
  // The first values in grid order, with or without results: a line keeps its colour as results arrive.
  const lines: ResultsLine[] = lineValues.slice(0, MAX_LINES).map((value) => {
    const mine =
      lineAxis === undefined
        ? shown
        : shown.filter((cellResult) => key(cellResult.values[lineAxis.axis]) === key(value));
    if (x === undefined) return { value, points: mine.slice(0, 1).map((cellResult) => point(cellResult, 0)) };
    // Each line's cells by their x value (the first of each), found in one pass, not one per value.
    const atX = new Map<string, CellResult>();
    for (const m of mine) if (!atX.has(key(m.values[x.axis]))) atX.set(key(m.values[x.axis]), m);
    const points: ResultsPoint[] = [];
    xValues.forEach((xv, i) => {
      const cellResult = atX.get(key(xv));
      if (cellResult !== undefined) points.push(point(cellResult, scale === 'category' ? i : (xv as number)));
    });
    return { value, points };
  });

  const drawn = lines.flatMap((l) => l.points);
  // What was planned, over the cells at the held values: it does not change as results arrive.
  const planned = [...new Set(shown.map((cellResult) => cellResult.planned))].sort((a, b) => a - b);
  const over = planned.length === 1 ? `${planned[0]}` : `${planned[0]}–${planned[planned.length - 1]}`;
  const caption = [
    replicates === undefined ? `${metric}, one task per point` : `${metric}: mean ± std over ${over} ${replicates}`,
  ];
  if (drawn.some((p) => p.mean !== undefined && p.n < p.planned)) caption.push('hollow: short of replicates');
  if (drawn.some((p) => p.mean === undefined)) caption.push('gaps: cells without a result');
  if (held.length > 0) caption.push(`${held.map((h) => named(h.axis, h.value)).join(', ')} held`);
  if (lineValues.length > MAX_LINES)
    caption.push(`first ${MAX_LINES} of ${lineValues.length} ${lineAxis!.axis} values shown`);

  return {
    metric,
    x: { axis: x?.axis, scale, values: xValues },
    lines,
    lineAxis: lineAxis?.axis,
    held,
    caption,
  };
}

const WIDTH = 760;
const LEFT = 84;
const PLOT_H = 300;
const CAPTION_LINE = 14;

/** Room either side of the data, as a share of its span. */
const PAD = 0.06;

interface Scale {
  /** Where a value lies, from 0 (the axis's start) to 1 (its end); always finite. */
  unit: (v: number) => number;
  ticks: { at: number; label: string }[];
}

/** Numbers as the picture writes them: four significant digits (ticks: twelve, against float noise). */
const fmt = (v: number, digits = 4): string => {
  // Rounding the greatest doubles up leaves the finite range: those are written whole.
  const short = Number(v.toPrecision(digits));
  return String(Number.isFinite(short) ? short : v);
};

/**
 * A linear scale over lo..hi with some room. Spans are taken in halves because the span of two
 * extreme doubles overflows, and a degenerate domain places everything in the middle: no
 * coordinate can become NaN or Infinity.
 */
function linear(lo: number, hi: number): Scale {
  let half = hi / 2 - lo / 2;
  if (!(half > 0)) half = Math.abs(lo / 2) * 0.2 || 0.5;
  const clamp = (v: number): number => Math.min(Number.MAX_VALUE, Math.max(-Number.MAX_VALUE, v));
  const a = clamp(lo - half * (2 * PAD));
  const b = clamp(hi + half * (2 * PAD));
  const unit = (v: number): number => {
    const f = (v / 2 - a / 2) / (b / 2 - a / 2);
    return Number.isNaN(f) ? 0.5 : Math.min(1, Math.max(0, f));
  };
  // About six ticks over the whole span: a step of a third of the half span.
  const step = niceStep(b / 2 - a / 2, 3);
  const first = Math.ceil(a / step);
  const last = Math.floor(b / step);
  const ticks: Scale['ticks'] = [];
  // Safe integers only: far from zero, k++ would not move k and the loop would never end.
  if (Number.isSafeInteger(first) && Number.isSafeInteger(last) && last - first <= 20)
    for (let k = first; k <= last; k++) ticks.push({ at: k * step, label: fmt(k * step, 12) });
  return { unit, ticks };
}

/** A log scale with a tick at each power of ten (every other one, or fewer, over many decades). */
function logarithmic(lo: number, hi: number): Scale {
  const [l, h] = [Math.log10(lo), Math.log10(hi)];
  const a = l - (h - l) * PAD;
  const b = h + (h - l) * PAD;
  const unit = (v: number): number => {
    const f = (Math.log10(v) - a) / (b - a);
    return Number.isNaN(f) ? 0.5 : Math.min(1, Math.max(0, f));
  };
  const every = Math.max(1, Math.ceil((Math.floor(b) - Math.ceil(a) + 1) / 8));
  const ticks: Scale['ticks'] = [];
  for (let k = Math.ceil(a); k <= Math.floor(b); k++) {
    if (k % every !== 0) continue;
    const at = Number(`1e${k}`);
    ticks.push({ at, label: k >= -4 && k <= 4 ? String(at) : `1e${k}` });
  }
  return { unit, ticks };
}

/** Cuts a label to a number of characters, with an ellipsis. */
const fit = (s: string, chars: number): string => (s.length > chars ? `${s.slice(0, Math.max(1, chars - 1))}…` : s);

const r2 = (v: number): number => Math.round(v * 100) / 100;

/** The tooltip of a point: the cell, its mean and spread, and what it is short of. */
function tooltip(p: ResultsPoint, replicates: boolean): string {
  const cell = Object.entries(p.values)
    .map(([k, v]) => named(k, v))
    .join(', ');
  const spread = p.std === undefined ? '' : ` ± ${fmt(p.std)}`;
  const count = replicates ? ` (${p.n} of ${p.planned})` : '';
  const short =
    p.missing.length > 0 ? `; short: ${p.missing.join('; ')}` : p.n < p.planned ? '; short of replicates' : '';
  return `${cell === '' ? 'the one cell' : cell}: ${fmt(p.mean!)}${spread}${count}${short}`;
}

/** Beyond this many points they are not drawn one by one (with a marker, error bar and tooltip each). */
export const POINT_LIMIT = 2000;

/** A run of points as the least and greatest mean at each pixel column: what a line of it looks like, in a few thousand points at most. */
function envelope(
  run: readonly ResultsPoint[],
  x: (v: number) => number,
  y: (v: number) => number,
): (readonly [number, number])[] {
  const out: (readonly [number, number])[] = [];
  let column = NaN;
  let low = 0;
  let high = 0;
  const flush = (): void => {
    if (Number.isNaN(column)) return;
    out.push([column, low]);
    if (high !== low) out.push([column, high]);
  };
  for (const p of run) {
    const [px, py] = [Math.round(x(p.x)), y(p.mean!)];
    if (px !== column) {
      flush();
      [column, low, high] = [px, py, py];
    } else [low, high] = [Math.min(low, py), Math.max(high, py)];
  }
  flush();
  return out;
}

export function resultsSvg(plot: ResultsPlot, heading: string): string {
  const legend = plot.lineAxis !== undefined;
  const right = legend ? 180 : 32;
  const top = 44 + plot.caption.length * CAPTION_LINE + 16;
  const plotW = WIDTH - LEFT - right;
  const bottom = top + PLOT_H;
  const body: string[] = [text(16, 26, heading, { class: 'heading' })];
  plot.caption.forEach((line, i) => body.push(text(16, 44 + i * CAPTION_LINE, line, { class: 'small muted' })));

  const points = plot.lines.flatMap((l) => l.points.filter((p) => p.mean !== undefined));
  const ys = points.flatMap((p) =>
    [p.mean!, p.mean! - (p.std ?? 0), p.mean! + (p.std ?? 0)].filter((v) => Number.isFinite(v)),
  );
  const yScale = ys.length === 0 ? linear(0, 1) : linear(...extent(ys));
  const y = (v: number): number => bottom - yScale.unit(v) * PLOT_H;

  const count = Math.max(1, plot.x.values.length);
  const numericX = plot.x.values.filter((v): v is number => typeof v === 'number');
  const xScale: Scale =
    plot.x.scale === 'category'
      ? {
          unit: (i) => (i + 0.5) / count,
          // One label every so many values where there are more than the axis has room for.
          ticks: plot.x.values.flatMap((v, i) =>
            i % Math.ceil(count / (plotW / 24)) === 0
              ? [{ at: i, label: fit(String(v), Math.max(3, Math.floor(plotW / Math.min(count, plotW / 24) / 7))) }]
              : [],
          ),
        }
      : plot.x.scale === 'log'
        ? logarithmic(numericX[0]!, numericX[numericX.length - 1]!)
        : linear(numericX[0]!, numericX[numericX.length - 1]!);
  const x = (v: number): number => LEFT + xScale.unit(v) * plotW;

  const yAxis: string[] = [el('line', { x1: LEFT, y1: top, x2: LEFT, y2: bottom, stroke: COLORS.muted })];
  for (const t of yScale.ticks) {
    yAxis.push(
      el('line', { x1: LEFT, y1: y(t.at), x2: LEFT + plotW, y2: y(t.at), stroke: COLORS.grid }),
      el('line', { x1: LEFT - 4, y1: y(t.at), x2: LEFT, y2: y(t.at), stroke: COLORS.muted }),
      text(LEFT - 7, y(t.at) + 4, t.label, { class: 'small muted', 'text-anchor': 'end' }),
    );
  }
  const mid = r2(top + PLOT_H / 2);
  yAxis.push(text(18, mid, fit(plot.metric, 40), { 'text-anchor': 'middle', transform: `rotate(-90 18 ${mid})` }));

  const xAxis: string[] = [el('line', { x1: LEFT, y1: bottom, x2: LEFT + plotW, y2: bottom, stroke: COLORS.muted })];
  for (const t of xScale.ticks) {
    xAxis.push(
      el('line', { x1: x(t.at), y1: bottom, x2: x(t.at), y2: bottom + 4, stroke: COLORS.muted }),
      text(x(t.at), bottom + 17, t.label, { class: 'small muted', 'text-anchor': 'middle' }),
    );
  }
  if (plot.x.axis !== undefined)
    xAxis.push(text(LEFT + plotW / 2, bottom + 38, fit(plot.x.axis, 60), { 'text-anchor': 'middle' }));
  body.push(el('g', { class: 'axis y' }, yAxis), el('g', { class: 'axis x' }, xAxis));

  const replicates = points.some((p) => p.planned > 1);
  // Past the limit the points are not drawn one by one: each line is its envelope per pixel.
  const dense = points.length > POINT_LIMIT;
  if (dense)
    body.push(
      text(WIDTH - 16, 26, `${points.length} points: each line drawn without its markers`, {
        class: 'small muted',
        'text-anchor': 'end',
      }),
    );
  plot.lines.forEach((line, i) => {
    const color = LINE_COLORS[i % LINE_COLORS.length]!;
    // The line is broken where a cell has no result, so that no segment bridges a gap.
    const runs: ResultsPoint[][] = [[]];
    for (const p of line.points) {
      if (p.mean === undefined) runs.push([]);
      else runs[runs.length - 1]!.push(p);
    }
    const parts: string[] = runs
      .filter((r) => r.length > 1)
      .map((r) =>
        el('path', {
          d: (dense ? envelope(r, x, y) : r.map((p) => [x(p.x), y(p.mean!)] as const))
            .map(([px, py], k) => `${k === 0 ? 'M' : 'L'}${r2(px)} ${r2(py)}`)
            .join(' '),
          fill: 'none',
          stroke: color,
          'stroke-width': 2,
          class: 'trend',
        }),
      );
    for (const p of dense ? [] : line.points) {
      if (p.mean === undefined || p.std === undefined) continue;
      const [cx, lo, hi] = [x(p.x), y(p.mean - p.std), y(p.mean + p.std)];
      parts.push(
        el('g', { class: 'error-bar', stroke: color, 'stroke-width': 1.5 }, [
          el('line', { x1: cx, y1: lo, x2: cx, y2: hi }),
          el('line', { x1: cx - 4, y1: lo, x2: cx + 4, y2: lo }),
          el('line', { x1: cx - 4, y1: hi, x2: cx + 4, y2: hi }),
        ]),
      );
    }
    for (const p of dense ? [] : line.points) {
      if (p.mean === undefined) continue;
      const short = p.n < p.planned;
      parts.push(
        el(
          'circle',
          {
            cx: x(p.x),
            cy: y(p.mean),
            r: 4.5,
            fill: short ? COLORS.paper : color,
            stroke: color,
            'stroke-width': 2,
            class: short ? 'point short' : 'point',
          },
          [title(tooltip(p, replicates))],
        ),
      );
    }
    body.push(el('g', { class: 'series' }, parts));
  });

  if (legend) {
    const lx = WIDTH - right + 20;
    body.push(text(lx, top + 4, fit(plot.lineAxis!, 22), { class: 'small muted' }));
    plot.lines.forEach((line, i) => {
      const color = LINE_COLORS[i % LINE_COLORS.length]!;
      const ly = top + 22 + i * 20;
      body.push(
        el('g', { class: 'legend-item' }, [
          el('line', { x1: lx, y1: ly, x2: lx + 22, y2: ly, stroke: color, 'stroke-width': 2 }),
          el('circle', { cx: lx + 11, cy: ly, r: 4, fill: color }),
          text(lx + 30, ly + 4, fit(String(line.value), 20), {}),
        ]),
      );
    });
  }
  return svgDocument(WIDTH, bottom + 52, heading, body);
}
