/**
 * Headroom at a glance: per phase and stratum, every finished attempt's run time as a share of
 * the walltime it ran under (the line at 100%), with the range and median drawn as a box.
 */
import { formatDuration } from '../../manifest/units.js';
import type { Plan } from '../../plan/plan.js';
import type { CampaignState } from '../../state/state.js';
import { classColor, COLORS, el, extent, niceStep, svgDocument, text, title } from './svg.js';

interface Row {
  label: string;
  budget: number;
  /** Each finished attempt, with the walltime it ran under (the plan's for attempts that did not record it). */
  points: { task: string; seconds: number; walltime: number; cls: string }[];
}

const WIDTH = 960;
const LEFT = 220;
const RIGHT = 190;
const TOP = 60;
const ROW = 34;
/** Beyond this many dots they go without tooltips: a picture of a huge campaign stays a few MB. */
const TOOLTIP_LIMIT = 2000;
/** Beyond this many, the dots of one outcome at one pixel are drawn once: the picture stays small. */
const DOT_LIMIT = 5000;

function rows(plan: Plan, state: CampaignState): Row[] {
  const out: Row[] = [];
  for (const p of plan.phases) {
    for (const a of p.arrays) {
      const label = `${p.name}${a.stage === 'smoke' ? ' · smoke' : ''}${a.stratum === 'all' ? '' : ` · ${a.stratum}`}`;
      let row = out.find((r) => r.label === label && r.budget === a.budget.seconds);
      if (!row) {
        row = { label, budget: a.budget.seconds, points: [] };
        out.push(row);
      }
      for (const id of a.tasks) {
        for (const at of state.tasks[id]?.attempts ?? []) {
          if (!at.startedAt || !at.endedAt || at.class === undefined) continue;
          const seconds = (Date.parse(at.endedAt) - Date.parse(at.startedAt)) / 1000;
          row.points.push({ task: id, seconds, walltime: at.walltimeSeconds ?? a.budget.seconds, cls: at.class });
        }
      }
    }
  }
  return out.filter((r) => r.points.length > 0);
}

export function runtimesSvg(plan: Plan, state: CampaignState): string {
  const rs = rows(plan, state);
  const heading = 'Run time against walltime';
  const body: string[] = [text(16, 26, heading, { class: 'heading' })];
  if (rs.length === 0) {
    body.push(text(16, TOP, 'No task has finished yet.', { class: 'muted' }));
    return svgDocument(WIDTH, TOP + 30, heading, body);
  }
  body.push(
    text(16, 44, 'each dot one attempt, as a share of its walltime; box: fastest, median, slowest', {
      class: 'small muted',
    }),
  );
  const maxShare = Math.max(1.1, extent(rs.flatMap((r) => r.points.map((p) => (p.seconds / p.walltime) * 1.05)))[1]);
  const plotW = WIDTH - LEFT - RIGHT;
  const x = (share: number): number => LEFT + (share / maxShare) * plotW;
  const plotH = rs.length * ROW;
  const step = niceStep(maxShare, 6);
  for (let s = 0; s <= maxShare + 1e-9; s += step) {
    body.push(
      el('line', { x1: x(s), y1: TOP - 6, x2: x(s), y2: TOP + plotH, stroke: COLORS.grid }),
      text(x(s), TOP + plotH + 16, `${Math.round(s * 100)}%`, { class: 'small muted', 'text-anchor': 'middle' }),
    );
  }
  const count = rs.reduce((n, r) => n + r.points.length, 0);
  const tooltips = count <= TOOLTIP_LIMIT;
  const merged = count > DOT_LIMIT;
  if (merged)
    body.push(
      text(WIDTH - 16, 26, `${count} attempts: one dot for all those of an outcome at the same pixel`, {
        class: 'small muted',
        'text-anchor': 'end',
      }),
    );
  rs.forEach((r, i) => {
    const cy = TOP + i * ROW + ROW / 2;
    const share = (p: Row['points'][number]): number => p.seconds / p.walltime;
    const shares = r.points.map(share).sort((a, b) => a - b);
    const slowestPoint = r.points.reduce((a, b) => (share(b) > share(a) ? b : a));
    const mid = shares.length >> 1;
    const median = shares.length % 2 === 1 ? shares[mid]! : (shares[mid - 1]! + shares[mid]!) / 2;
    const slowest = shares[shares.length - 1]!;
    const seconds = r.points.map((p) => p.seconds).sort((a, b) => a - b);
    const medianSeconds = seconds.length % 2 === 1 ? seconds[mid]! : (seconds[mid - 1]! + seconds[mid]!) / 2;
    const parts: string[] = [
      el('rect', {
        x: 8,
        y: cy - ROW / 2 + 2,
        width: WIDTH - 16,
        height: ROW - 4,
        fill: i % 2 === 0 ? '#f6f8fa' : COLORS.paper,
      }),
      text(LEFT - 10, cy + 4, r.label, { 'text-anchor': 'end' }),
      el('rect', {
        x: x(shares[0]!),
        y: cy - 7,
        width: Math.max(1.5, x(slowest) - x(shares[0]!)),
        height: 14,
        fill: 'none',
        stroke: COLORS.muted,
        class: 'range',
      }),
      el('line', { x1: x(median), y1: cy - 9, x2: x(median), y2: cy + 9, stroke: COLORS.ink, 'stroke-width': 2 }),
    ];
    const seen = new Set<string>();
    r.points.forEach((p, k) => {
      // Past the limit, one dot stands for every attempt of its outcome at its pixel.
      const at = `${Math.round(x(share(p)))} ${p.cls}`;
      if (merged && seen.has(at)) return;
      seen.add(at);
      // A deterministic jitter keeps equal times apart.
      const jitter = ((k * 7) % 9) - 4;
      parts.push(
        el(
          'circle',
          {
            cx: x(share(p)),
            cy: cy + jitter,
            r: 3.2,
            fill: classColor(p.cls),
            'fill-opacity': 0.85,
            class: `dot ${p.cls}`,
          },
          tooltips
            ? [title(`${p.task}: ${formatDuration(p.seconds)} of ${formatDuration(p.walltime)} (${p.cls})`)]
            : [],
        ),
      );
    });
    const n = r.points.length;
    parts.push(
      text(
        WIDTH - RIGHT + 10,
        cy - 2,
        `slowest ${Math.round(slowest * 100)}% of ${formatDuration(slowestPoint.walltime)}`,
        {
          class: 'small',
          fill: slowest > 1 / 1.1 ? COLORS.failed : COLORS.ink,
        },
      ),
      text(WIDTH - RIGHT + 10, cy + 11, `${n} attempt${n === 1 ? '' : 's'}, median ${formatDuration(medianSeconds)}`, {
        class: 'small muted',
      }),
    );
    body.push(el('g', { class: 'stratum', 'data-label': r.label }, parts));
  });
  // Drawn last, over the rows: the line every dot is judged against.
  body.push(
    el('line', {
      x1: x(1),
      y1: TOP - 12,
      x2: x(1),
      y2: TOP + plotH + 4,
      stroke: COLORS.failed,
      'stroke-width': 2,
      'stroke-dasharray': '5 3',
      class: 'walltime',
    }),
    text(x(1), TOP - 16, 'walltime', { class: 'small', fill: COLORS.failed, 'text-anchor': 'middle' }),
    text(LEFT + plotW / 2, TOP + plotH + 34, 'run time / walltime', { class: 'small muted', 'text-anchor': 'middle' }),
  );
  return svgDocument(WIDTH, TOP + plotH + 48, heading, body);
}
