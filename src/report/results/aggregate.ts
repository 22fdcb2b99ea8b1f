/**
 * Results per task, and per cell of the grid without the replicate axis: how many replicates
 * are present of those planned, and per metric its mean, sample standard deviation, standard
 * error, least and greatest value. A cell short of a replicate says which one and why, so that
 * a mean over fewer seeds is never taken for one over all of them.
 */
import type { Cell } from '../../manifest/grid.js';
import type { Scalar } from '../../manifest/schema.js';
import type { ResultRecord } from './output-result.js';

/** One task of the phase and what became of it. */
export interface TaskResult {
  id: string;
  values: Cell;
  /** The task's state (`completed`, `failed`, …), or `not run` where the state has none. */
  status: string;
  /** Its result records: their place in the output, the metrics, and which of them is not a number. */
  records: ResultRecord[];
  /** Why the task has no result at all: its output missing or unreadable, or why it did not complete. */
  problem?: string;
  attempt?: number;
  definition?: string;
  gpuHours?: number;
  node?: string;
}

export interface Stats {
  mean: number;
  /** Sample standard deviation (n − 1); undefined for fewer than two values. */
  std?: number;
  sem?: number;
  min: number;
  max: number;
}

export interface CellResult {
  /** The cell's values, the replicate axis left out. */
  values: Cell;
  /** The record's place in the outputs, where every record is a result (`record: all`). */
  record?: number;
  planned: number;
  n: number;
  /** The replicates without a result here, each with why (`seed=3: failed`). */
  missing: string[];
  stats: Record<string, Stats | undefined>;
}

/** The statistics of some numbers; undefined for none. */
export function stats(xs: readonly number[]): Stats | undefined {
  if (xs.length === 0) return undefined;
  const n = xs.length;
  const mean = xs.reduce((s, x) => s + x, 0) / n;
  // A loop, not Math.min(...xs): a cell may have more replicates than the call stack takes arguments.
  let min = Infinity;
  let max = -Infinity;
  for (const x of xs) {
    min = Math.min(min, x);
    max = Math.max(max, x);
  }
  // Two passes: the squares of deviations, not of values, so that large equal values give 0.
  if (n < 2) return { mean, min, max };
  const std = Math.sqrt(xs.reduce((s, x) => s + (x - mean) ** 2, 0) / (n - 1));
  return { mean: Math.min(max, Math.max(min, mean)), std, sem: std / Math.sqrt(n), min, max };
}

const cellKey = (values: Cell, record: number | undefined): string =>
  JSON.stringify([Object.entries(values), record ?? null]);

/**
 * The cells of the tasks (in the order their first task comes), each over the replicate axis.
 * With `perRecord` (record: all), a cell is also split by the record's place in the outputs.
 */
export function aggregate(
  tasks: readonly TaskResult[],
  metrics: readonly string[],
  replicates: string | undefined,
  perRecord: boolean,
): CellResult[] {
  const groups = new Map<string, { values: Cell; tasks: TaskResult[] }>();
  for (const t of tasks) {
    const values = without(t.values, replicates);
    const key = cellKey(values, undefined);
    const g = groups.get(key) ?? { values, tasks: [] };
    g.tasks.push(t);
    groups.set(key, g);
  }
  const out: CellResult[] = [];
  for (const g of groups.values()) {
    const places = perRecord
      ? [...new Set(g.tasks.flatMap((t) => t.records.map((r) => r.index)))].sort((a, b) => a - b)
      : [undefined];
    for (const place of places.length > 0 ? places : [perRecord ? 1 : undefined]) {
      const present: Record<string, number>[] = [];
      const missing: string[] = [];
      for (const t of g.tasks) {
        const r = place === undefined ? t.records[0] : t.records.find((x) => x.index === place);
        if (r !== undefined && r.problem === undefined && t.problem === undefined) present.push(r.values);
        else missing.push(`${replicateName(t, replicates)}: ${r?.problem ?? whyMissing(t, place)}`);
      }
      out.push({
        values: g.values,
        ...(place === undefined ? {} : { record: place }),
        planned: g.tasks.length,
        n: present.length,
        missing,
        stats: Object.fromEntries(metrics.map((m) => [m, stats(present.map((v) => v[m]!))])),
      });
    }
  }
  return out;
}

function without(values: Cell, axis: string | undefined): Cell {
  if (axis === undefined) return values;
  const rest: Record<string, Scalar> = {};
  for (const [k, v] of Object.entries(values)) if (k !== axis) rest[k] = v;
  return rest;
}

/** How a replicate is named in a `missing` list: its value on the replicate axis, else its task. */
function replicateName(t: TaskResult, replicates: string | undefined): string {
  return replicates !== undefined && replicates in t.values ? `${replicates}=${String(t.values[replicates])}` : t.id;
}

function whyMissing(t: TaskResult, place: number | undefined): string {
  if (t.status !== 'completed') return t.problem ?? t.status;
  if (t.problem !== undefined) return t.problem;
  return place === undefined ? 'no result' : `no record ${place}`;
}
