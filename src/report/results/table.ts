/**
 * Results as a tidy table (one row per cell, or per task) and that table as CSV, JSON lines or
 * markdown. Grid values keep their axis names unless a result column has the name already;
 * then the axis's column is `grid.<axis>`.
 */
import type { Scalar } from '../../manifest/schema.js';
import { tableCell } from '../markdown.js';
import type { CellResult, TaskResult } from './aggregate.js';
import { writeCsv } from './csv.js';

export type Value = Scalar | undefined;

export interface Table {
  columns: string[];
  rows: Value[][];
}

export type Format = 'csv' | 'jsonl' | 'markdown';

const STATS = ['mean', 'std', 'sem', 'min', 'max'] as const;

/** The aggregate table: grid values, status, n of planned, per metric its statistics, what is missing. */
export function cellTable(
  axes: readonly string[],
  cells: readonly CellResult[],
  metrics: readonly string[],
  perRecord: boolean,
): Table {
  const result = [
    ...(perRecord ? ['record'] : []),
    'status',
    'n',
    'planned',
    ...metrics.flatMap((m) => STATS.map((s) => `${m}_${s}`)),
    'missing',
  ];
  const rows = cells.map((cellResult) => [
    ...axes.map((a) => cellResult.values[a]),
    ...(perRecord ? [cellResult.record] : []),
    cellResult.n === cellResult.planned ? 'complete' : cellResult.n === 0 ? 'missing' : 'incomplete',
    cellResult.n,
    cellResult.planned,
    ...metrics.flatMap((m) => STATS.map((s) => cellResult.stats[m]?.[s])),
    cellResult.missing.length > 0 ? cellResult.missing.join('; ') : undefined,
  ]);
  return { columns: [...axisColumns(axes, result), ...result], rows };
}

/** One row per task (per record of it, with `record: all`): grid values, metrics, and where it ran. */
export function taskTable(
  axes: readonly string[],
  tasks: readonly TaskResult[],
  metrics: readonly string[],
  perRecord: boolean,
): Table {
  const result = [
    ...(perRecord ? ['record'] : []),
    'status',
    ...metrics,
    'attempt',
    'definition',
    'gpu_hours',
    'node',
    'problem',
  ];
  const rows = tasks.flatMap((t) => {
    const records = t.records.length > 0 ? t.records : [undefined];
    return records.map((r) => [
      ...axes.map((a) => t.values[a]),
      ...(perRecord ? [r?.index] : []),
      t.status,
      ...metrics.map((m) => r?.values[m]),
      t.attempt,
      t.definition,
      t.gpuHours,
      t.node,
      r?.problem ?? t.problem,
    ]);
  });
  return { columns: [...axisColumns(axes, result), ...result], rows };
}

function axisColumns(axes: readonly string[], result: readonly string[]): string[] {
  return axes.map((a) => (result.includes(a) ? `grid.${a}` : a));
}

/** The table in a format; numbers in full (CSV, JSON lines) or to six significant digits (markdown). */
export function renderTable(table: Table, format: Format): string {
  switch (format) {
    case 'csv':
      return writeCsv([table.columns, ...table.rows.map((r) => r.map((v) => (v === undefined ? '' : String(v))))]);
    case 'jsonl':
      return table.rows
        .map((r) => JSON.stringify(Object.fromEntries(table.columns.map((column, i) => [column, r[i] ?? null]))) + '\n')
        .join('');
    case 'markdown': {
      const shown = (v: Value): string =>
        v === undefined ? '' : typeof v === 'number' ? String(Number(v.toPrecision(6))) : tableCell(String(v));
      return [
        `| ${table.columns.map(tableCell).join(' | ')} |`,
        `| ${table.columns.map(() => '---').join(' | ')} |`,
        ...table.rows.map((r) => `| ${r.map(shown).join(' | ')} |`),
        '',
      ].join('\n');
    }
  }
}
