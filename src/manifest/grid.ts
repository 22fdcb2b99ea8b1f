/** Grid expansion: the cartesian product of the axes, first axis slowest, and derived tags. */
import type { Scalar } from './schema.js';

export type Cell = Readonly<Record<string, Scalar>>;
export type Grid = Readonly<Record<string, Scalar | readonly Scalar[]>>;

/** Axes as lists: a scalar is a one-value axis. */
export function axesOf(grid: Grid | undefined): [string, readonly Scalar[]][] {
  return Object.entries(grid ?? {}).map(([k, v]) => [k, Array.isArray(v) ? v : [v as Scalar]]);
}

/** How many cells the grid has, computed without expanding it. */
export function cellCount(grid: Grid | undefined): number {
  return axesOf(grid).reduce((n, [, values]) => n * values.length, 1);
}

/** The cell at a given index (first axis slowest), without expanding the others. */
export function cellAt(axes: readonly [string, readonly Scalar[]][], index: number): Cell {
  const cell: Record<string, Scalar> = {};
  let rest = index;
  for (let i = axes.length - 1; i >= 0; i--) {
    const [name, values] = axes[i]!;
    cell[name] = values[rest % values.length]!;
    rest = Math.floor(rest / values.length);
  }
  return orderLike(axes, cell);
}

function orderLike(axes: readonly [string, readonly Scalar[]][], cell: Record<string, Scalar>): Cell {
  const ordered: Record<string, Scalar> = {};
  for (const [name] of axes) ordered[name] = cell[name]!;
  return ordered;
}

export function expandGrid(grid: Grid | undefined): Cell[] {
  const axes = axesOf(grid);
  const n = cellCount(grid);
  const cells: Cell[] = new Array<Cell>(n);
  for (let i = 0; i < n; i++) cells[i] = cellAt(axes, i);
  return cells;
}

const UNSAFE = /[^A-Za-z0-9.+-]+/g;

/** A tag derived from the cell: axis name and value per axis, e.g. `N384_n50000_seed42`. */
export function tagOf(cell: Cell): string {
  const parts = Object.entries(cell).map(([k, v]) => `${k}${String(v).replace(UNSAFE, '-')}`);
  return parts.length > 0 ? parts.join('_') : 'task';
}

/** "N=384,n=50000" for the values of the given axes. */
export function selectorOf(cell: Cell, axes: readonly string[]): string {
  return axes.length > 0 ? axes.map((a) => `${a}=${String(cell[a])}`).join(',') : 'all';
}

/** Parses "N=384, n=50000" into pairs. */
export function parseSelector(key: string): [string, string][] {
  return key.split(',').map((part) => {
    const i = part.indexOf('=');
    return [part.slice(0, i).trim(), part.slice(i + 1).trim()];
  });
}

export function matchesSelector(cell: Cell, key: string): boolean {
  return parseSelector(key).every(([axis, value]) => axis in cell && String(cell[axis]) === value);
}
