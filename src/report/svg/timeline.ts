/**
 * The campaign on a time axis: every attempt a bar (grey while queued, coloured by how it
 * ended), grouped by phase, stage and stratum; a retry is outlined and numbered, a failure
 * ends in a cross.
 */
import { formatDuration } from '../../manifest/units.js';
import type { Plan } from '../../plan/plan.js';
import type { Attempt, CampaignState } from '../../state/state.js';
import { classColor, COLORS, el, svgDocument, text, timeStep, title } from './svg.js';

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
  lanes: Bar[][];
}

const LEFT = 190;
const RIGHT = 24;
const WIDTH = 960;
const TOP = 64;
/** Beyond this many attempts the bars go without tooltips: a picture of a huge campaign stays a few MB. */
export const TOOLTIP_LIMIT = 2000;

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
        groups.push({ label, lanes: pack(bars) });
      }
    }
  }
  const bars = groups.flatMap((g) => g.lanes.flat());
  const lanes = groups.reduce((n, g) => n + g.lanes.length, 0);
  const laneH = Math.max(4, Math.min(18, Math.floor(640 / Math.max(1, lanes))));
  const gap = 10;
  const plotH = lanes * laneH + groups.length * gap;
  const height = TOP + plotH + 48;
  const body: string[] = [text(16, 26, 'Campaign timeline', { class: 'heading' })];
  if (bars.length === 0) {
    body.push(text(16, TOP + 10, 'No task has been submitted yet.', { class: 'muted' }));
    return svgDocument(WIDTH, TOP + 40, 'Campaign timeline', body);
  }
  const t0 = Math.min(...bars.map((b) => b.submitted));
  const t1 = Math.max(t0 + 1000, ...bars.map((b) => b.end));
  const span = (t1 - t0) / 1000;
  const plotW = WIDTH - LEFT - RIGHT;
  const x = (ms: number): number => LEFT + ((ms - t0) / (t1 - t0)) * plotW;
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
  for (const g of groups) {
    const h = g.lanes.length * laneH;
    body.push(
      el('rect', { x: 8, y, width: WIDTH - 16, height: h, fill: '#f6f8fa', class: 'group' }),
      text(LEFT - 8, y + Math.min(h, laneH) / 2 + 4, g.label, { 'text-anchor': 'end', class: 'group-label' }),
    );
    g.lanes.forEach((lane, i) => {
      for (const b of lane) body.push(bar(b, x, y + i * laneH, laneH, bars.length <= TOOLTIP_LIMIT));
    });
    y += h + gap;
  }
  return svgDocument(WIDTH, height, 'Campaign timeline', body);
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
