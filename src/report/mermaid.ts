/**
 * The campaign's timeline as a Mermaid Gantt chart, which GitHub renders in a job summary where
 * a relative picture cannot be shown: one section per phase, one bar per stage (smoke, full)
 * from the first start to the last end of its attempts.
 */
import type { TaskSpec } from '../manifest/expand.js';
import type { Plan } from '../plan/plan.js';
import type { CampaignState } from '../state/state.js';

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
    // Hours and minutes on the axis; the day too once the campaign spans more than one.
    `  axisFormat ${last - first > DAY ? '%m-%d %H:%M' : '%H:%M'}`,
    ...lines,
    '```',
  ];
}
