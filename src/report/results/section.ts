/**
 * The results section of the summary: per phase that declares results, the first cells of its
 * aggregate table (each metric as mean ± std over its replicates, and n of planned, so a cell
 * short of a seed is seen as such), links to the whole tables and its picture.
 */
import { inlineCode, tableCell } from '../markdown.js';
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

/** A phase whose outputs could not be gathered: why, in place of its results. */
export interface ResultsUnavailable {
  phase: string;
  unavailable: string;
}

/**
 * How the section names the files beside it: `relative` links them (summary.md, beside them);
 * `named` names them without a link or picture (a job summary: they are in the state artifact).
 */
export type FileLinks = 'relative' | 'named';

const shown = (v: number): string => String(Number(v.toPrecision(4)));

export function renderResultsSection(part: ResultsSection | ResultsUnavailable, links: FileLinks): string[] {
  if ('unavailable' in part)
    return ['', `## Results: ${part.phase}`, '', `The outputs could not be gathered: ${part.unavailable}`];
  const s = part;
  const complete = s.cells.filter((cellResult) => cellResult.n === cellResult.planned).length;
  const over = s.replicates === undefined ? '' : ` over ${s.replicates}`;
  const out = [
    '',
    `## Results: ${s.phase}`,
    '',
    `${complete} of ${s.cells.length} cell${s.cells.length === 1 ? '' : 's'} have every replicate; each metric is the mean ± standard deviation${over}, and n counts the replicates present of those planned.`,
    '',
  ];
  const record = s.cells.some((cellResult) => cellResult.record !== undefined);
  out.push(
    `| ${[...s.axes, ...(record ? ['record'] : []), 'n', ...s.metrics].map(tableCell).join(' | ')} |`,
    `| ${[...s.axes, ...(record ? ['record'] : []), 'n', ...s.metrics].map((_, i) => (i < s.axes.length ? '---' : '---:')).join(' | ')} |`,
  );
  for (const cellResult of s.cells.slice(0, SHOWN_CELLS)) {
    const metrics = s.metrics.map((m) => {
      const st = cellResult.stats[m];
      if (st === undefined) return '';
      return st.std === undefined ? shown(st.mean) : `${shown(st.mean)} ± ${shown(st.std)}`;
    });
    const n = cellResult.n === cellResult.planned ? `${cellResult.n}` : `**${cellResult.n} of ${cellResult.planned}**`;
    out.push(
      `| ${[
        ...s.axes.map((a) => tableCell(String(cellResult.values[a] ?? ''))),
        ...(record ? [String(cellResult.record ?? '')] : []),
        n,
        ...metrics,
      ].join(' | ')} |`,
    );
  }
  const rest = s.cells.length - SHOWN_CELLS;
  const files = s.files;
  const named = (file: string): string => (links === 'relative' ? `[${file}](${file})` : `\`${file}\``);
  const where = links === 'relative' ? '' : ' in the state artifact';
  const all =
    files === undefined ? '' : ` All of them${where}: ${named(files.cells)}; per task: ${named(files.tasks)}.`;
  if (rest > 0 || all !== '') out.push('', `${rest > 0 ? `… and ${rest} more cells.` : ''}${all}`.trim());
  const missing = s.cells.filter((cellResult) => cellResult.missing.length > 0);
  if (missing.length > 0) {
    out.push('', 'Missing replicates:', '');
    for (const cellResult of missing.slice(0, SHOWN_CELLS)) {
      const where = s.axes.map((a) => `${a}=${String(cellResult.values[a])}`).join(', ') || 'the cell';
      out.push(`- ${tableCell(where)}: ${inlineCode(cellResult.missing.join('; '))}`);
    }
    if (missing.length > SHOWN_CELLS) out.push(`- … and ${missing.length - SHOWN_CELLS} more cells`);
  }
  if (files?.picture && links === 'relative') out.push('', `![${files.picture.caption}](${files.picture.file})`);
  return out;
}
