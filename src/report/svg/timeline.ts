/**
 * The campaign on a time axis: every attempt a bar (grey while queued, coloured by how it
 * ended), grouped by phase, stage and stratum; a retry is outlined and numbered, a failure
 * ends in a cross.
 */
import { formatDuration } from '../../manifest/units.js';
import type { Plan } from '../../plan/plan.js';
import type { Attempt, CampaignState } from '../../state/state.js';
import { classColor, COLORS, el, extent, svgDocument, text, timeStep, title } from './svg.js';

interface Bar {
  task: string;
  attempt: Attempt;
  submitted: number;
  start?: number;
  end: number;
  cls: string;
}

interface Group {
  label: string;
  bars: Bar[];
}

const LEFT = 190;
const RIGHT = 24;
const WIDTH = 960;
const TOP = 64;
/** Beyond this many attempts the bars go without tooltips: a picture of a huge campaign stays a few MB. */
export const TOOLTIP_LIMIT = 2000;
/**
 * Beyond this many attempts no attempt is drawn alone: each group shows how many ran (and waited)
 * at once, by how they ended, so that the picture stays small and its lanes readable.
 */
export const BAR_LIMIT = 5000;
/** The width of a column of the aggregated picture, in pixels. */
const COLUMN = 3;

/** Bars into lanes: each bar in the first lane free at its start (a task's attempts never overlap). */
function pack(bars: Bar[]): Bar[][] {
  const lanes: Bar[][] = [];
  for (const b of [...bars].sort((x, y) => x.submitted - y.submitted)) {
    const lane = lanes.find((l) => l[l.length - 1]!.end <= b.submitted);
    if (lane) lane.push(b);
    else lanes.push([b]);
  }
  return lanes;
}

export function timelineSvg(plan: Plan, state: CampaignState): string {
  const now = Date.parse(state.updated);
  const groups: Group[] = [];
  for (const p of plan.phases) {
    for (const [stage, specs] of [
      ['smoke', p.smoke],
      ['full', p.tasks],
    ] as const) {
      const byStratum = new Map<string, Bar[]>();
      for (const t of specs) {
        const attempts = state.tasks[t.id]?.attempts ?? [];
        for (const a of attempts) {
          const submitted = Date.parse(a.submittedAt);
          const start = a.startedAt ? Date.parse(a.startedAt) : undefined;
          const end = a.endedAt ? Date.parse(a.endedAt) : Math.max(now, start ?? submitted);
          const cls = a.class ?? (start === undefined ? 'queued' : 'running');
          const bars = byStratum.get(t.stratum) ?? [];
          bars.push({ task: t.id, attempt: a, submitted, ...(start === undefined ? {} : { start }), end, cls });
          byStratum.set(t.stratum, bars);
        }
      }
      for (const [stratum, bars] of byStratum) {
        const label = `${p.name}${stage === 'smoke' ? ' · smoke' : ''}${stratum === 'all' ? '' : ` · ${stratum}`}`;
        groups.push({ label, bars });
      }
    }
  }
  const count = groups.reduce((n, g) => n + g.bars.length, 0);
  if (count === 0) {
    return svgDocument(WIDTH, TOP + 40, 'Campaign timeline', [
      text(16, 26, 'Campaign timeline', { class: 'heading' }),
      text(16, TOP + 10, 'No task has been submitted yet.', { class: 'muted' }),
    ]);
  }
  const [t0] = extent(groups.flatMap((g) => g.bars.map((b) => b.submitted)));
  const t1 = Math.max(t0 + 1000, extent(groups.flatMap((g) => g.bars.map((b) => b.end)))[1]);
  const plotW = WIDTH - LEFT - RIGHT;
  const x = (ms: number): number => LEFT + ((ms - t0) / (t1 - t0)) * plotW;
  const aggregated = count > BAR_LIMIT;
  const packed = aggregated ? [] : groups.map((g) => pack(g.bars));
  const lanes = packed.reduce((n, g) => n + g.length, 0);
  const laneH = Math.max(4, Math.min(18, Math.floor(640 / Math.max(1, lanes))));
  const groupH = Math.max(16, Math.min(64, Math.floor(640 / groups.length)));
  const heightOf = (i: number): number => (aggregated ? groupH : packed[i]!.length * laneH);
  const gap = 10;
  const plotH = groups.reduce((h, _, i) => h + heightOf(i) + gap, 0);
  const height = TOP + plotH + 48;
  const body: string[] = [
    text(16, 26, 'Campaign timeline', { class: 'heading' }),
    ...(aggregated
      ? [
          text(
            LEFT + 440,
            26,
            `${count} attempts: each group shows how many ran at once, by how they ended, and how many waited (grey line)`,
            { class: 'small muted', 'text-anchor': 'middle' },
          ),
        ]
      : []),
  ];
  const span = (t1 - t0) / 1000;
  body.push(...legend());
  // Time grid.
  const step = timeStep(span, 8);
  for (let s = 0; s <= span + 1e-9; s += step) {
    const gx = x(t0 + s * 1000);
    body.push(
      el('line', { x1: gx, y1: TOP - 4, x2: gx, y2: TOP + plotH, stroke: COLORS.grid }),
      text(gx, TOP + plotH + 16, s === 0 ? '0' : formatDuration(s), { class: 'small muted', 'text-anchor': 'middle' }),
    );
  }
  body.push(
    text(LEFT + plotW / 2, TOP + plotH + 34, `time since the first submission (${new Date(t0).toISOString()})`, {
      class: 'small muted',
      'text-anchor': 'middle',
    }),
  );
  let y = TOP;
  groups.forEach((g, i) => {
    const h = heightOf(i);
    body.push(
      el('rect', { x: 8, y, width: WIDTH - 16, height: h, fill: '#f6f8fa', class: 'group' }),
      text(LEFT - 8, y + Math.min(h, aggregated ? 16 : laneH) / 2 + 4, g.label, {
        'text-anchor': 'end',
        class: 'group-label',
      }),
    );
    if (aggregated) body.push(...columns(g.bars, t0, t1, LEFT, plotW, y, h));
    else
      packed[i]!.forEach((lane, k) => {
        for (const b of lane) body.push(bar(b, x, y + k * laneH, laneH, count <= TOOLTIP_LIMIT));
      });
    y += h + gap;
  });
  return svgDocument(WIDTH, height, 'Campaign timeline', body);
}

/** The order a column's parts are stacked in, from the bottom: how attempts ended, then those running. */
const STACK = ['completed', 'failed', 'timeout', 'out_of_memory', 'node_fail', 'preempted', 'running'];

/**
 * A group's attempts as columns of `COLUMN` pixels: in each, the attempts that ran during it,
 * on average over its time, stacked by how they ended and scaled to the most; over them, a grey line of
 * those waiting in the queue, scaled to its own most (a queue is often far longer than what
 * runs). Counted by differences (+1 where an attempt begins, -1 after it ends), so that each
 * attempt costs the same whatever its length.
 */
function columns(
  bars: readonly Bar[],
  t0: number,
  t1: number,
  left: number,
  width: number,
  top: number,
  height: number,
): string[] {
  const n = Math.max(1, Math.floor(width / COLUMN));
  // Each column's mean of how many were out at once over its time: an attempt adds the share of
  // the column it covers, whole columns through differences (+1 where it begins, -1 after).
  const whole = new Map<string, Float64Array>();
  const edges = new Map<string, Float64Array>();
  const add = (cls: string, from: number, to: number): void => {
    const [a, b] = [from, to].map((ms) => Math.min(n, Math.max(0, ((ms - t0) / (t1 - t0)) * n))) as [number, number];
    if (!(b > a)) return;
    let d = whole.get(cls);
    let e = edges.get(cls);
    if (!d || !e) {
      whole.set(cls, (d = new Float64Array(n + 1)));
      edges.set(cls, (e = new Float64Array(n + 1)));
    }
    const [fa, fb] = [Math.floor(a), Math.floor(b)];
    if (fa === fb) e[fa]! += b - a;
    else {
      e[fa]! += fa + 1 - a;
      e[fb]! += b - fb;
      d[fa + 1]!++;
      d[fb]!--;
    }
  };
  for (const b of bars) {
    if (b.start === undefined) add('queued', b.submitted, b.end);
    else {
      if (b.start > b.submitted) add('queued', b.submitted, b.start);
      add(STACK.includes(b.cls) ? b.cls : 'failed', b.start, b.end);
    }
  }
  const counts = new Map<string, Float64Array>();
  for (const [cls, d] of whole) {
    const e = edges.get(cls)!;
    const stacked = new Float64Array(n);
    for (let i = 0, run = 0; i < n; i++) stacked[i] = (run += d[i]!) + e[i]!;
    counts.set(cls, stacked);
  }
  const queued = counts.get('queued') ?? new Float64Array(n);
  let ran = 0;
  let waited = 0;
  for (let i = 0; i < n; i++) {
    let sum = 0;
    for (const cls of STACK) sum += counts.get(cls)?.[i] ?? 0;
    ran = Math.max(ran, sum);
    waited = Math.max(waited, queued[i]!);
  }
  const scale = (height - 4) / Math.max(1, ran);
  const out: string[] = [];
  for (let i = 0; i < n; i++) {
    let base = top + height;
    for (const cls of STACK) {
      const k = counts.get(cls)?.[i] ?? 0;
      if (k * scale < 0.05) continue;
      out.push(
        el('rect', {
          x: left + i * COLUMN,
          y: base - k * scale,
          width: COLUMN,
          height: k * scale,
          fill: classColor(cls),
        }),
      );
      base -= k * scale;
    }
  }
  if (waited > 0.05) {
    const qy = (k: number): number => top + height - (k / waited) * (height - 4);
    const d = Array.from(
      queued,
      (k, i) => `${i === 0 ? 'M' : 'L'}${left + i * COLUMN} ${Math.round(qy(k) * 10) / 10}h${COLUMN}`,
    );
    out.push(el('path', { d: d.join(''), fill: 'none', stroke: COLORS.queued, 'stroke-width': 1.5, class: 'queue' }));
  }
  // Means over a column: whole numbers where large, a tenth where small.
  const many = (v: number): string => String(v >= 10 ? Math.round(v) : Math.round(v * 10) / 10);
  const said = `up to ${many(ran)} running${waited > 0 ? `, ${many(waited)} queued` : ''} at once`;
  return [
    el('g', { class: 'columns' }, [title(`${bars.length} attempts; ${said}`), ...out]),
    text(WIDTH - RIGHT, top + 12, said, { class: 'small muted', 'text-anchor': 'end' }),
  ];
}

function bar(b: Bar, x: (ms: number) => number, top: number, laneH: number, tooltip: boolean): string {
  const h = Math.max(2, laneH - 3);
  const y = top + (laneH - h) / 2;
  const runFrom = b.start ?? b.end;
  const parts: string[] = [];
  const tip = [
    `${b.task} attempt ${b.attempt.n}: ${b.cls}`,
    b.attempt.reason,
    b.attempt.node ? `on ${b.attempt.node}` : undefined,
    b.start !== undefined ? `ran ${formatDuration((b.end - b.start) / 1000)}` : undefined,
    ...(b.attempt.adapted ?? []).map((a) => `ran with less: ${a}`),
  ]
    .filter(Boolean)
    .join('\n');
  // Waiting in the queue: a thin grey line up to the start.
  if (runFrom > b.submitted)
    parts.push(
      el('rect', {
        x: x(b.submitted),
        y: y + h / 2 - 1,
        width: x(runFrom) - x(b.submitted),
        height: 2,
        fill: COLORS.queued,
      }),
    );
  if (b.start !== undefined) {
    const retry = b.attempt.n > 1;
    parts.push(
      el('rect', {
        x: x(b.start),
        y,
        width: Math.max(1.5, x(b.end) - x(b.start)),
        height: h,
        rx: Math.min(3, h / 3),
        fill: classColor(b.cls),
        ...(retry ? { stroke: COLORS.ink, 'stroke-width': 1.2 } : {}),
      }),
    );
    if (retry && h >= 9 && x(b.end) - x(b.start) > 16)
      parts.push(text(x(b.start) + 3, y + h - 2.5, `↻${b.attempt.n}`, { class: 'small', fill: COLORS.paper }));
  }
  const failed = b.cls !== 'completed' && b.cls !== 'running' && b.cls !== 'queued';
  if (failed) {
    const cx = x(b.end);
    const r = Math.max(2.5, Math.min(5, h / 2));
    const cy = y + h / 2;
    parts.push(
      el('path', {
        d: `M${cx - r},${cy - r}L${cx + r},${cy + r}M${cx - r},${cy + r}L${cx + r},${cy - r}`,
        stroke: COLORS.ink,
        'stroke-width': 1.6,
        class: 'failure-mark',
      }),
    );
  }
  return el('g', { class: `bar ${b.cls}${b.attempt.n > 1 ? ' retry' : ''}`, 'data-task': b.task }, [
    ...(tooltip ? [title(tip)] : []),
    ...parts,
  ]);
}

function legend(): string[] {
  const items: [string, string][] = [
    ['completed', COLORS.completed],
    ['running', COLORS.running],
    ['failed', COLORS.failed],
    ['timeout', COLORS.timeout],
    ['out of memory', COLORS.out_of_memory],
    ['node failure', COLORS.node_fail],
    ['preempted', COLORS.preempted],
  ];
  const out: string[] = [];
  let lx = LEFT;
  for (const [label, color] of items) {
    out.push(
      el('rect', { x: lx, y: 36, width: 12, height: 10, rx: 2, fill: color }),
      text(lx + 16, 45, label, { class: 'small' }),
    );
    lx += 28 + label.length * 6.4;
  }
  out.push(
    el('rect', {
      x: lx,
      y: 36,
      width: 12,
      height: 10,
      rx: 2,
      fill: COLORS.completed,
      stroke: COLORS.ink,
      'stroke-width': 1.2,
    }),
    text(lx + 16, 45, 'retry (↻n)', { class: 'small' }),
  );
  lx += 90;
  out.push(
    el('rect', { x: lx, y: 40, width: 14, height: 2, fill: COLORS.queued }),
    text(lx + 18, 45, 'queued', { class: 'small' }),
  );
  return out;
}
