/**
 * The phase graph: each phase a box in the column of its dependency depth, coloured by its
 * state, with its counts; arrows run from a phase to the phases that depend on it.
 */
import type { Plan } from '../../plan/plan.js';
import type { CampaignState } from '../../state/state.js';
import { phaseCounts } from '../../state/phase-counts.js';
import { COLORS, el, svgDocument, text, title } from './svg.js';

const BOX_W = 210;
const BOX_H = 74;
const COL = 280;
const ROW = 100;
const LEFT = 24;
const TOP = 56;

const STATUS_COLORS: Record<string, { fill: string; stroke: string }> = {
  completed: { fill: '#e3f4ea', stroke: COLORS.completed },
  failed: { fill: '#fbe5e4', stroke: COLORS.failed },
  blocked: { fill: '#eef1f4', stroke: COLORS.muted },
  waiting: { fill: COLORS.paper, stroke: COLORS.queued },
  smoke: { fill: '#e6effe', stroke: COLORS.running },
  gate: { fill: '#e6effe', stroke: COLORS.running },
  full: { fill: '#e6effe', stroke: COLORS.running },
};

/** Longest path from a phase without dependencies (cycles are refused by lint; guarded anyway). */
function depths(plan: Plan): Map<string, number> {
  const by = new Map(plan.phases.map((p) => [p.name, p]));
  const memo = new Map<string, number>();
  const depth = (name: string, seen: Set<string>): number => {
    if (memo.has(name)) return memo.get(name)!;
    if (seen.has(name)) return 0;
    seen.add(name);
    const deps = by.get(name)?.dependsOn.filter((d) => by.has(d)) ?? [];
    const d = deps.length === 0 ? 0 : 1 + Math.max(...deps.map((x) => depth(x, seen)));
    memo.set(name, d);
    return d;
  };
  for (const p of plan.phases) depth(p.name, new Set());
  return memo;
}

/** Cuts a label to fit a box, with an ellipsis. */
const fit = (s: string, chars: number): string => (s.length > chars ? `${s.slice(0, chars - 1)}…` : s);

export function phasesSvg(plan: Plan, state: CampaignState): string {
  const depth = depths(plan);
  const columns: string[][] = [];
  for (const p of plan.phases) (columns[depth.get(p.name)!] ??= []).push(p.name);
  const pos = new Map<string, { x: number; y: number }>();
  columns.forEach((names, column) => names.forEach((n, r) => pos.set(n, { x: LEFT + column * COL, y: TOP + r * ROW })));
  const columnOf = (q: { x: number }): number => Math.round((q.x - LEFT) / COL);
  const counts = new Map(phaseCounts(plan, state).map((phaseCount) => [phaseCount.phase, phaseCount]));
  const width = LEFT * 2 + (columns.length - 1) * COL + BOX_W;
  const height = TOP + Math.max(...columns.map((column) => column.length)) * ROW + 8;
  const body: string[] = [
    text(16, 26, 'Phases', { class: 'heading' }),
    el('defs', {}, [
      el(
        'marker',
        { id: 'arrow', viewBox: '0 0 10 10', refX: 9, refY: 5, markerWidth: 7, markerHeight: 7, orient: 'auto' },
        [el('path', { d: 'M0,0L10,5L0,10z', fill: COLORS.muted })],
      ),
    ]),
  ];
  for (const p of plan.phases) {
    const to = pos.get(p.name)!;
    for (const d of p.dependsOn) {
      const from = pos.get(d);
      if (!from) continue;
      const x1 = from.x + BOX_W;
      const y1 = from.y + BOX_H / 2;
      const x2 = to.x - 2;
      const y2 = to.y + BOX_H / 2;
      // An edge that skips columns runs level until the last gap, through an empty row or the gap below its source.
      const skipped = columnOf(to) - columnOf(from) - 1;
      const blocked = [...pos.values()].some(
        (q) => q.y === from.y && columnOf(q) > columnOf(from) && columnOf(q) < columnOf(to),
      );
      const level = skipped > 0 && blocked ? from.y + BOX_H + (ROW - BOX_H) / 2 : y1;
      const bend = x2 - (COL - BOX_W);
      const mx = (bend + x2) / 2;
      const run =
        skipped > 0
          ? `M${x1},${y1}C${x1 + 20},${y1} ${x1 + 20},${level} ${x1 + 40},${level}H${bend}`
          : `M${x1},${y1}H${bend}`;
      body.push(
        el('path', {
          d: `${run}C${mx},${level} ${mx},${y2} ${x2},${y2}`,
          fill: 'none',
          stroke: COLORS.muted,
          'stroke-width': 1.5,
          'marker-end': 'url(#arrow)',
          class: 'edge',
        }),
      );
    }
  }
  for (const p of plan.phases) {
    const { x, y } = pos.get(p.name)!;
    const phaseCount = counts.get(p.name)!;
    const ps = state.phases[p.name];
    const status = ps?.status ?? 'waiting';
    const colors = STATUS_COLORS[status] ?? STATUS_COLORS.waiting!;
    const stage = status === 'smoke' || status === 'gate' ? ' (smoke stage)' : '';
    const line = `${phaseCount.done}/${phaseCount.total} done${phaseCount.running ? `, ${phaseCount.running} running` : ''}${phaseCount.failed ? `, ${phaseCount.failed} failed` : ''}`;
    body.push(
      el('g', { class: `phase ${status}`, 'data-phase': p.name }, [
        title(`${p.name}: ${status}${ps?.reason ? ` (${ps.reason})` : ''}`),
        el('rect', {
          x,
          y,
          width: BOX_W,
          height: BOX_H,
          rx: 8,
          fill: colors.fill,
          stroke: colors.stroke,
          'stroke-width': 2,
          ...(status === 'blocked' ? { 'stroke-dasharray': '6 4' } : {}),
        }),
        text(x + 12, y + 22, fit(p.name, 26), { style: 'font-weight:600' }),
        text(x + 12, y + 41, `${status}${stage}`, { fill: colors.stroke, class: 'small status' }),
        text(x + 12, y + 58, line, { class: 'small muted' }),
        ...(ps?.reason && (status === 'blocked' || status === 'failed')
          ? [text(x + 12, y + BOX_H + 14, fit(ps.reason, 40), { class: 'small muted' })]
          : []),
      ]),
    );
  }
  return svgDocument(Math.max(width, 320), height, 'Phases', body);
}
