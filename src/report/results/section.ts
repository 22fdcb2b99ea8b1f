/**
 * The results section of the summary: per phase that declares results, the first cells of its
 * aggregate table (each metric as mean ± std over its replicates, and n of planned, so a cell
 * short of a seed is seen as such), links to the whole tables and its picture.
 */
import { tableCell } from '../markdown.js';
import type { CellResult } from './aggregate.js';

/** How many cells the summary shows; the CSV beside it has them all. */
export const SHOWN_CELLS = 20;

export interface ResultsSection {
  phase: string;
  axes: readonly string[];
  metrics: readonly string[];
  replicates?: string;
  cells: readonly CellResult[];
  /** Files beside the summary (relative names): the aggregate and per-task tables, the picture. */
  files?: { cells: string; tasks: string; picture?: { file: string; caption: string } };
}

const shown = (v: number): string => String(Number(v.toPrecision(4)));

export function renderResultsSection(s: ResultsSection): string[] {
  const complete = s.cells.filter((c) => c.n === c.planned).length;
  const over = s.replicates === undefined ? '' : ` over ${s.replicates}`;
  const out = [
    '',
    `## Results: ${s.phase}`,
    '',
    `${complete} of ${s.cells.length} cell${s.cells.length === 1 ? '' : 's'} have every replicate; each metric is the mean ± standard deviation${over}, and n counts the replicates present of those planned.`,
    '',
  ];
  const record = s.cells.some((c) => c.record !== undefined);
  out.push(
    `| ${[...s.axes, ...(record ? ['record'] : []), 'n', ...s.metrics].map(tableCell).join(' | ')} |`,
    `| ${[...s.axes, ...(record ? ['record'] : []), 'n', ...s.metrics].map((_, i) => (i < s.axes.length ? '---' : '---:')).join(' | ')} |`,
  );
  for (const c of s.cells.slice(0, SHOWN_CELLS)) {
    const metrics = s.metrics.map((m) => {
      const st = c.stats[m];
      if (st === undefined) return '';
      return st.std === undefined ? shown(st.mean) : `${shown(st.mean)} ± ${shown(st.std)}`;
    });
    const n = c.n === c.planned ? `${c.n}` : `**${c.n} of ${c.planned}**`;
    out.push(
      `| ${[
        ...s.axes.map((a) => tableCell(String(c.values[a] ?? ''))),
        ...(record ? [String(c.record ?? '')] : []),
        n,
        ...metrics,
      ].join(' | ')} |`,
    );
  }
  const rest = s.cells.length - SHOWN_CELLS;
  const files = s.files;
  const links =
    files === undefined
      ? ''
      : ` All of them: [${files.cells}](${files.cells}); per task: [${files.tasks}](${files.tasks}).`;
  if (rest > 0 || links !== '') out.push('', `${rest > 0 ? `… and ${rest} more cells.` : ''}${links}`.trim());
  const missing = s.cells.filter((c) => c.missing.length > 0);
  if (missing.length > 0) {
    out.push('', 'Missing replicates:', '');
    for (const c of missing.slice(0, SHOWN_CELLS)) {
      const where = s.axes.map((a) => `${a}=${String(c.values[a])}`).join(', ') || 'the cell';
      out.push(`- ${tableCell(where)}: ${tableCell(c.missing.join('; '))}`);
    }
    if (missing.length > SHOWN_CELLS) out.push(`- … and ${missing.length - SHOWN_CELLS} more cells`);
  }
  if (files?.picture) out.push('', `![${files.picture.caption}](${files.picture.file})`);
  return out;
}
