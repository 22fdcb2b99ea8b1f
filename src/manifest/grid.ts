/**
 * Grid expansion. A grid's cells are the product of its axes (first axis slowest), where the
 * axes under `zip` count as one axis whose values are taken in step, less the product's cells
 * that an `exclude` selector matches, followed by the `include` cells in their order. Tags are
 * derived from the values.
 */
import type { Scalar } from './schema.js';

export type Cell = Readonly<Record<string, Scalar>>;

/** The keys of a grid that are not axes. */
export const GRID_KEYS = ['include', 'exclude', 'zip'] as const;

/** A phase's grid as the manifest gives it: axes, and the reserved keys of GRID_KEYS. */
export interface Grid {
  readonly include?: readonly Cell[];
  readonly exclude?: readonly Cell[];
  readonly zip?: Readonly<Record<string, readonly Scalar[]>>;
  readonly [axis: string]: Scalar | readonly Scalar[] | readonly Cell[] | GridZip | undefined;
}
type GridZip = Readonly<Record<string, readonly Scalar[]>>;

/** One factor of the product: one axis, or the zipped axes, whose row r is their r-th values. */
export interface Factor {
  readonly names: readonly string[];
  readonly columns: readonly (readonly Scalar[])[];
  readonly rows: number;
}

const isGridKey = (key: string): boolean => (GRID_KEYS as readonly string[]).includes(key);

/** The product's factors in the grid's order; a scalar axis is a one-value axis. */
export function factorsOf(grid: Grid | undefined): Factor[] {
  const factors: Factor[] = [];
  for (const [key, value] of Object.entries(grid ?? {})) {
    if (key === 'zip') {
      const zip = Object.entries((value ?? {}) as GridZip);
      if (zip.length === 0) continue;
      // Lists of unequal length are a lint error (zip-length); the shortest bounds the rows.
      const rows = Math.min(...zip.map(([, list]) => list.length));
      factors.push({ names: zip.map(([n]) => n), columns: zip.map(([, list]) => list), rows });
    } else if (!isGridKey(key) && value !== undefined) {
      const list = (Array.isArray(value) ? value : [value]) as readonly Scalar[];
      factors.push({ names: [key], columns: [list], rows: list.length });
    }
  }
  return factors;
}

/**
 * The grid's axes in the order of a cell's values: the product's, or, for a grid of included
 * cells only, those of its first cell.
 */
export function axisNames(grid: Grid | undefined): string[] {
  const names = factorsOf(grid).flatMap((f) => f.names);
  return names.length > 0 ? names : Object.keys(grid?.include?.[0] ?? {});
}

/**
 * Every axis with the values it takes: its own list (as written, repeats included), then the
 * values only included cells give it.
 */
export function axesOf(grid: Grid | undefined): [string, readonly Scalar[]][] {
  const own = new Map<string, Scalar[]>();
  for (const f of factorsOf(grid)) f.names.forEach((n, k) => own.set(n, [...f.columns[k]!]));
  return axisNames(grid).map((name) => {
    const values = own.get(name) ?? [];
    const seen = new Set(values.map(String));
    for (const cell of grid?.include ?? []) {
      const v = cell[name];
      if (v !== undefined && !seen.has(String(v))) {
        seen.add(String(v));
        values.push(v);
      }
    }
    return [name, values];
  });
}

/**
 * How many cells the product has before exclusion, computed from the axes alone. A grid of
 * included cells only has no product; a grid without axes is one cell with no values.
 */
export function productSize(grid: Grid | undefined): number {
  const factors = factorsOf(grid);
  if (factors.length === 0) return grid?.include !== undefined ? 0 : 1;
  return factors.reduce((n, f) => n * f.rows, 1);
}

/** Whether a cell has every pair of a selector (values compared as text, as selectors are). */
export function matchesCell(cell: Cell, selector: Cell): boolean {
  return Object.entries(selector).every(([axis, v]) => axis in cell && String(cell[axis]) === String(v));
}

/** A grid ready to give its cells by index without expanding it. */
export interface CompiledGrid {
  readonly names: readonly string[];
  /** Cells in all: product − excluded + included. */
  readonly count: number;
  readonly product: number;
  readonly excluded: number;
  readonly included: number;
  /** The cell at an index: the kept product cells in order, then the included ones. */
  cellAt(index: number): Cell;
  /** Product cells each exclude selector removes (a selector naming no axis removes none). */
  readonly removedBy: readonly number[];
}

/**
 * Compiles a grid. Excluded product cells are found by enumerating each selector's sub-grid,
 * so the cost is that of the cells removed, never of the whole product; `cellAt` then maps an
 * index to its product cell by binary search over them.
 */
export function compileGrid(grid: Grid | undefined): CompiledGrid {
  const factors = factorsOf(grid);
  const names = axisNames(grid);
  const product = productSize(grid);
  const strides = new Array<number>(factors.length);
  for (let f = factors.length - 1, s = 1; f >= 0; f--) {
    strides[f] = s;
    s *= factors[f]!.rows;
  }
  const removed: number[] = [];
  const removedBy = (grid?.exclude ?? []).map((selector) => {
    const before = removed.length;
    if (product > 0) for (const p of subGrid(factors, strides, selector)) removed.push(p);
    return removed.length - before;
  });
  removed.sort((a, b) => a - b);
  const excludedIdx = removed.filter((p, j) => j === 0 || p !== removed[j - 1]);
  // shifted[j] = e_j − j is non-decreasing; the i-th kept cell is i plus the count of j with shifted[j] ≤ i.
  const shifted = Float64Array.from(excludedIdx, (e, j) => e - j);
  const kept = product - excludedIdx.length;
  const include = grid?.include ?? [];

  // Each axis is set by the first factor that names it, in the grid's order: the cell is made in
  // its final order at once, with no second object to reorder it (one per task at 100,000 tasks).
  const given = new Set<string>();
  const setters = factors.map((f, i) => {
    const axes: { name: string; column: readonly Scalar[] }[] = [];
    f.names.forEach((name, k) => {
      if (given.has(name)) return;
      given.add(name);
      axes.push({ name, column: f.columns[k]! });
    });
    return { stride: strides[i]!, rows: f.rows, axes };
  });
  const productCell = (p: number): Cell => {
    const cell: Record<string, Scalar> = {};
    for (const { stride, rows, axes } of setters) {
      const r = Math.floor(p / stride) % rows;
      for (const { name, column } of axes) cell[name] = column[r]!;
    }
    return cell;
  };
  return {
    names,
    count: kept + include.length,
    product,
    excluded: excludedIdx.length,
    included: include.length,
    removedBy,
    cellAt(index) {
      if (index >= kept) return ordered(names, include[index - kept]!);
      let lo = 0;
      let hi = shifted.length;
      while (lo < hi) {
        const mid = (lo + hi) >>> 1;
        if (shifted[mid]! <= index) lo = mid + 1;
        else hi = mid;
      }
      return productCell(index + lo);
    },
  };
}

/** The product indices of the cells a selector matches: per factor the matching rows, crossed. */
function* subGrid(factors: readonly Factor[], strides: readonly number[], selector: Cell): Generator<number> {
  const known = new Set(factors.flatMap((f) => f.names));
  if (Object.keys(selector).some((axis) => !known.has(axis))) return;
  const rows = factors.map((f) => {
    const wanted = f.names.flatMap((n, k) => (n in selector ? [[k, String(selector[n])] as const] : []));
    const all = Array.from({ length: f.rows }, (_, r) => r);
    return wanted.length === 0 ? all : all.filter((r) => wanted.every(([k, v]) => String(f.columns[k]![r]) === v));
  });
  if (rows.some((r) => r.length === 0)) return;
  const digit = new Array<number>(factors.length).fill(0);
  for (;;) {
    let p = 0;
    for (let f = 0; f < factors.length; f++) p += rows[f]![digit[f]!]! * strides[f]!;
    yield p;
    let f = factors.length - 1;
    while (f >= 0 && ++digit[f]! === rows[f]!.length) digit[f--] = 0;
    if (f < 0) return;
  }
}

/** A cell's values in the grid's axis order (an included cell may list them in any order). */
function ordered(names: readonly string[], cell: Cell): Cell {
  const out: Record<string, Scalar> = {};
  for (const name of names) if (name in cell) out[name] = cell[name]!;
  return out;
}

/** How many cells the grid has. */
export function cellCount(grid: Grid | undefined): number {
  return compileGrid(grid).count;
}

export function expandGrid(grid: Grid | undefined): Cell[] {
  const g = compileGrid(grid);
  return Array.from({ length: g.count }, (_, i) => g.cellAt(i));
}

const UNSAFE = /[^A-Za-z0-9.+-]+/g;

/** One axis's part of a tag. */
const tagPart = (axis: string, value: Scalar): string => `${axis}${String(value).replace(UNSAFE, '-')}`;

/** A tag derived from the cell: axis name and value per axis, e.g. `N384_n50000_seed42`. */
export function tagOf(cell: Cell): string {
  const parts = Object.entries(cell).map(([k, v]) => tagPart(k, v));
  return parts.length > 0 ? parts.join('_') : 'task';
}

/**
 * True when the grid's cells have distinct tags, as its axes alone show (false: they may not).
 * A value's part of a tag holds no "_" (it becomes "-"), so a product cell's tag reads back into
 * one part per axis, its axes being known and in order: two product cells share a tag only if
 * some factor has two rows whose parts are all alike. Included cells are not judged here.
 */
export function tagsDistinct(grid: Grid | undefined): boolean {
  if ((grid?.include?.length ?? 0) > 0) return false;
  const factors = factorsOf(grid);
  const names = factors.flatMap((f) => f.names);
  if (new Set(names).size !== names.length) return false;
  return factors.every((f) => {
    const rows = new Set<string>();
    for (let r = 0; r < f.rows; r++) rows.add(f.names.map((n, k) => tagPart(n, f.columns[k]![r]!)).join('_'));
    return rows.size === f.rows;
  });
}

/**
 * tagOf for the many cells of one grid: each value's part is made once, not once per cell (at
 * 100,000 cells, the regular expression and the arrays of parts were a third of the expansion).
 */
export function tagMaker(): (cell: Cell) => string {
  const byAxis = new Map<string, Map<Scalar, string>>();
  const parts: string[] = [];
  return (cell) => {
    let n = 0;
    // A cell is a plain object of its own values: for…in gives Object.entries' order without its arrays.
    for (const axis in cell) {
      const value = cell[axis]!;
      let made = byAxis.get(axis);
      if (made === undefined) byAxis.set(axis, (made = new Map()));
      let part = made.get(value);
      if (part === undefined) made.set(value, (part = tagPart(axis, value)));
      parts[n++] = part;
    }
    // The parts are written over the last cell's: an array emptied gives its storage back, and
    // pushing into it made that anew for every cell (150 bytes a cell).
    if (parts.length !== n) parts.length = n;
    return n > 0 ? parts.join('_') : 'task';
  };
}

/** "N=384,n=50000" for the values of the given axes. */
export function selectorOf(cell: Cell, axes: readonly string[]): string {
  return axes.length > 0 ? axes.map((a) => `${a}=${String(cell[a])}`).join(',') : 'all';
}

/**
 * selectorOf for the many cells of one grid, over the same axes: each axis's `axis=value` is
 * made once, and the cells of a stratum share one selector string.
 */
export function selectorMaker(axes: readonly string[]): (cell: Cell) => string {
  if (axes.length === 0) return () => 'all';
  const byAxis = axes.map(() => new Map<Scalar | undefined, string>());
  const made = new Map<string, string>();
  const parts: string[] = [];
  return (cell) => {
    for (let k = 0; k < axes.length; k++) {
      const value = cell[axes[k]!];
      let part = byAxis[k]!.get(value);
      if (part === undefined) byAxis[k]!.set(value, (part = `${axes[k]!}=${String(value)}`));
      parts[k] = part;
    }
    if (axes.length === 1) return parts[0]!;
    const selector = parts.join(',');
    let shared = made.get(selector);
    if (shared === undefined) made.set(selector, (shared = selector));
    return shared;
  };
}

/** Parses "N=384, n=50000" into pairs. */
export function parseSelector(key: string): [string, string][] {
  return key.split(',').map((part) => {
    const i = part.indexOf('=');
    return [part.slice(0, i).trim(), part.slice(i + 1).trim()];
  });
}

export function matchesSelector(cell: Cell, key: string): boolean {
  return matchesPairs(cell, parseSelector(key));
}

/** matchesSelector over a selector parsed already. */
export function matchesPairs(cell: Cell, pairs: readonly (readonly [string, string])[]): boolean {
  return pairs.every(([axis, value]) => axis in cell && String(cell[axis]) === value);
}

/** Where an axis is written, from its phase: under `grid`, under `grid.zip`, or in the first included cell. */
export function axisPath(grid: Grid | undefined, axis: string): (string | number)[] {
  if (grid?.zip !== undefined && axis in grid.zip) return ['grid', 'zip', axis];
  if (grid !== undefined && axis in grid && !isGridKey(axis)) return ['grid', axis];
  return grid?.include !== undefined ? ['grid', 'include', 0, axis] : ['grid'];
}

/** Every value written in a grid for a task, with where it is written, from its phase. */
export function valueSites(grid: Grid | undefined): { axis: string; value: Scalar; path: (string | number)[] }[] {
  const sites: { axis: string; value: Scalar; path: (string | number)[] }[] = [];
  for (const f of factorsOf(grid)) {
    f.names.forEach((axis, k) => {
      const base = axisPath(grid, axis);
      const many = base[1] === 'zip' || Array.isArray(grid?.[axis]);
      f.columns[k]!.forEach((value, r) => sites.push({ axis, value, path: many ? [...base, r] : base }));
    });
  }
  grid?.include?.forEach((cell, j) => {
    for (const [axis, value] of Object.entries(cell)) sites.push({ axis, value, path: ['grid', 'include', j, axis] });
  });
  return sites;
}
