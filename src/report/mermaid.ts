/**
 * The campaign's timeline as a Mermaid Gantt chart, which GitHub renders in a job summary where
 * a relative picture cannot be shown: one section per phase, one bar per stage (smoke, full)
 * from the first start to the last end of its attempts.
 */
import type { TaskSpec } from '../manifest/expand.js';
import type { Plan } from '../plan/plan.js';
import type { CampaignState } from '../state/state.js';
import type { ResultsSection } from './results/section.js';
import { resultsPlot } from './svg/results.js';

/** The longest label the chart shows; a phase name is far shorter. */
const LABEL_CHARS = 60;
const DAY = 24 * 3600 * 1000;

/**
 * A name as Mermaid shows it and cannot read as syntax: letters, digits, spaces and `_ . - + ( ) /`
 * only. Everything else becomes a space: `:` (ends a task's name), `#…;` (entity codes), `%%`
 * (comments and directives), `;`, line breaks (new statements), `<`, `>`, `&`, quotes, backticks
 * and braces (HTML, and the markdown fence around the block).
 */
export function mermaidLabel(text: string): string {
  const kept = text
    .replace(/[^\p{L}\p{N} _.\-+()/]/gu, ' ')
    .replace(/ +/g, ' ')
    .trim();
  const cut = Array.from(kept).slice(0, LABEL_CHARS).join('').trim();
  return cut === '' ? '-' : cut;
}

/**
 * The time axis's labels for a chart spanning `ms`: seconds too for a short one (its ticks are
 * seconds or minutes apart, which hours and minutes alone would label alike), the day too for one
 * of more than a day.
 */
function axisFormat(ms: number): string {
  if (ms > DAY) return '%m-%d %H:%M';
  return ms < SHORT ? '%H:%M:%S' : '%H:%M';
}

/** A chart shorter than this has ticks less than a few minutes apart. */
const SHORT = 15 * 60 * 1000;

/** A time in the chart's `dateFormat` (UTC, whole seconds). */
const chartTime = (ms: number): string => new Date(ms).toISOString().slice(0, 19).replace('T', ' ');

interface Bar {
  stage: 'smoke' | 'full';
  start: number;
  end: number;
  running: boolean;
  failed: boolean;
}

function bar(stage: Bar['stage'], tasks: readonly TaskSpec[], state: CampaignState, now: number): Bar | undefined {
  const states = tasks.map((t) => state.tasks[t.id]);
  let start = Infinity;
  let end = -Infinity;
  let running = false;
  for (const s of states) {
    for (const a of s?.attempts ?? []) {
      // The executor's start where there is one, as the summary's wall time does.
      const from = Date.parse(a.startedAt ?? a.submittedAt);
      const to = a.endedAt === undefined ? now : Date.parse(a.endedAt);
      if (a.endedAt === undefined) running = true;
      if (Number.isFinite(from)) start = Math.min(start, from);
      if (Number.isFinite(to)) end = Math.max(end, to);
    }
  }
  if (!Number.isFinite(start)) return undefined;
  const failed = states.some((s) => s?.status === 'failed' || s?.status === 'stuck');
  // A bar of no length is not drawn: a stage of seconds shows as one second at least.
  return { stage, start, end: Math.max(end, start + 1000), running, failed };
}

/**
 * The chart's lines, fenced as a `mermaid` block; empty when no attempt was sent yet. `now`
 * (ISO) ends the bar of a stage still running.
 */
export function ganttChart(plan: Plan, state: CampaignState, now: string): string[] {
  const at = Date.parse(now);
  const lines: string[] = [];
  let first = Infinity;
  let last = -Infinity;
  for (const p of plan.phases) {
    const bars = [bar('smoke', p.smoke, state, at), bar('full', p.tasks, state, at)].filter(
      (b): b is Bar => b !== undefined,
    );
    if (bars.length === 0) continue;
    lines.push(`  section ${mermaidLabel(p.name)}`);
    for (const b of bars) {
      const tags = [...(b.failed ? ['crit'] : []), b.running ? 'active' : 'done'].join(', ');
      lines.push(`  ${mermaidLabel(b.stage)} :${tags}, ${chartTime(b.start)}, ${chartTime(b.end)}`);
      first = Math.min(first, b.start);
      last = Math.max(last, b.end);
    }
  }
  if (lines.length === 0) return [];
  return [
    '```mermaid',
    'gantt',
    `  title ${mermaidLabel(`Campaign ${plan.campaign}`)}`,
    '  dateFormat YYYY-MM-DD HH:mm:ss',
    `  axisFormat ${axisFormat(last - first)}`,
    ...lines,
    '```',
  ];
}

/** The most x values a results chart draws; with more, the table of the aggregate says it. */
const CHART_VALUES = 40;
/** The most charts of one results section: one per value of the lines' axis. */
const CHARTS = 4;

/** A number as Mermaid reads one: plain decimals, no exponent, six significant digits. */
const plain = (v: number): string => v.toLocaleString('en-US', { useGrouping: false, maximumSignificantDigits: 6 });

/**
 * A results section's picture as Mermaid `xychart-beta` charts, which a job summary renders: the
 * first metric of each cell (its mean over the replicates) against the x axis of the picture, one
 * chart per value of its lines' axis (a chart of several lines would have no legend to tell them
 * apart). None where a chart cannot say it: a cell without a result, too many values, or one cell;
 * the table of the aggregate above stands then.
 */
export function resultsCharts(section: ResultsSection): string[] {
  const metric = section.metrics[0];
  if (metric === undefined) return [];
  const plot = resultsPlot(section.axes, section.cells, metric, section.replicates);
  if (plot === undefined || plot.x.axis === undefined) return [];
  const xs = plot.x.values;
  if (xs.length < 2 || xs.length > CHART_VALUES) return [];
  const over = section.replicates === undefined ? '' : ` (mean over ${section.replicates})`;
  const out: string[] = [];
  for (const line of plot.lines.slice(0, CHARTS)) {
    const means = line.points.map((p) => p.mean);
    if (means.length !== xs.length || !means.every((m): m is number => m !== undefined)) continue;
    let [low, high] = [Math.min(...means), Math.max(...means)];
    const room = (high - low) * 0.1 || Math.abs(high) * 0.1 || 1;
    [low, high] = [low - room, high + room];
    const held = [
      ...(plot.lineAxis === undefined ? [] : [`${plot.lineAxis}=${String(line.value)}`]),
      ...plot.held.map((h) => `${h.axis}=${String(h.value)}`),
    ];
    const title = `${metric} of ${section.phase}${held.length > 0 ? ` at ${held.join(' ')}` : ''}${over}`;
    out.push(
      '',
      '```mermaid',
      'xychart-beta',
      `  title "${mermaidLabel(title)}"`,
      `  x-axis "${mermaidLabel(plot.x.axis)}" [${xs.map((v) => `"${mermaidLabel(String(v))}"`).join(', ')}]`,
      `  y-axis "${mermaidLabel(metric)}" ${plain(low)} --> ${plain(high)}`,
      `  ${plot.x.scale === 'category' ? 'bar' : 'line'} [${means.map(plain).join(', ')}]`,
      '```',
    );
  }
  if (out.length > 0 && plot.lines.length > CHARTS)
    out.push(
      '',
      `The first ${CHARTS} of ${plot.lines.length} values of ${plot.lineAxis!} are charted; the tables have them all.`,
    );
  return out;
}
