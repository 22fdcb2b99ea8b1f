/**
 * The grid forms beyond the product (manifest/grid.ts): `include` cells, `exclude` selectors
 * and `zip` axes, checked against a plain reference expansion written the obvious way.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { compileGrid, expandGrid, tagOf, tagsDistinct, type Cell, type Grid } from '../../src/manifest/grid.js';
import { parseManifest } from '../../src/manifest/load.js';
import type { Scalar } from '../../src/manifest/schema.js';

/** Values are small integers and short words, so that selectors and includes often hit cells. */
const value: fc.Arbitrary<Scalar> = fc.oneof(fc.integer({ min: 0, max: 4 }), fc.constantFrom('a', 'b', 'c'));
const distinct = (min: number, max: number): fc.Arbitrary<Scalar[]> =>
  fc.uniqueArray(value, { minLength: min, maxLength: max, selector: (v) => `${typeof v}:${String(v)}` });

/** Identity of a cell including value types: 1 and "1" are different cells. */
const key = (cell: Cell): string => JSON.stringify(Object.entries(cell).map(([k, v]) => [k, typeof v, String(v)]));

interface Shape {
  axes: [string, Scalar[]][];
  zip: [string, Scalar[]][];
  /** Where the zip sits among the axes. */
  zipAt: number;
  exclude: Cell[];
  include: Cell[];
}

/** A grid of up to three product axes, an optional zip of two or three axes, selectors and included cells. */
const shape: fc.Arbitrary<Shape> = fc
  .record({
    axisCount: fc.integer({ min: 0, max: 3 }),
    zipCount: fc.oneof(fc.constant(0), fc.integer({ min: 2, max: 3 })),
    zipRows: fc.integer({ min: 1, max: 3 }),
    zipAt: fc.nat(),
  })
  .chain(({ axisCount, zipCount, zipRows, zipAt }) => {
    const axisNames = ['N', 'n', 'seed'].slice(0, axisCount);
    const zipNames = ['lr', 'batch', 'warmup'].slice(0, zipCount);
    const names = [...axisNames, ...zipNames];
    const cell = fc.tuple(...names.map(() => value)).map((vs) => Object.fromEntries(names.map((n, i) => [n, vs[i]!])));
    const selector = fc
      .tuple(
        fc.subarray(names, { minLength: Math.min(1, names.length) }),
        fc.array(value, { minLength: 3, maxLength: 3 }),
      )
      .map(([chosen, vs]) => Object.fromEntries(chosen.map((n, i) => [n, vs[i % vs.length]!])) as Cell);
    return fc.record({
      axes: fc.tuple(...axisNames.map((n) => distinct(1, 3).map((vs) => [n, vs] as [string, Scalar[]]))),
      // Rows distinct, as axis values are (a repeated row is the duplicate-value lint's).
      zip:
        zipNames.length === 0
          ? fc.constant([])
          : fc
              .uniqueArray(fc.tuple(...zipNames.map(() => value)), {
                minLength: zipRows,
                maxLength: zipRows,
                selector: (row) => key(Object.fromEntries(row.map((v, i) => [String(i), v]))),
              })
              .map((rows) => zipNames.map((n, k) => [n, rows.map((row) => row[k]!)] as [string, Scalar[]])),
      zipAt: fc.constant(zipAt % (axisCount + 1)),
      exclude: names.length === 0 ? fc.constant([]) : fc.array(selector, { maxLength: 3 }),
      include: names.length === 0 ? fc.constant([]) : fc.array(cell, { maxLength: 3 }),
    });
  });

function gridOf(s: Shape): Grid {
  const entries: [string, unknown][] = s.axes.map(([n, vs]) => [n, vs]);
  if (s.zip.length > 0) entries.splice(s.zipAt, 0, ['zip', Object.fromEntries(s.zip)]);
  if (s.exclude.length > 0) entries.push(['exclude', s.exclude]);
  if (s.include.length > 0) entries.push(['include', s.include]);
  return Object.fromEntries(entries) as Grid;
}

/** The axes' names in cell order: the zip's where it sits. */
function namesOf(s: Shape): string[] {
  const names = s.axes.map(([n]) => n);
  names.splice(s.zipAt, 0, ...s.zip.map(([n]) => n));
  return names;
}

/** The obvious expansion: nested loops over the factors, a filter, then the included cells. */
function reference(s: Shape): { product: Cell[]; kept: Cell[]; cells: Cell[] } {
  const factors: Cell[][] = s.axes.map(([n, vs]) => vs.map((v) => ({ [n]: v })));
  if (s.zip.length > 0) {
    const rows = s.zip[0]![1].map((_, r) => Object.fromEntries(s.zip.map(([n, vs]) => [n, vs[r]!])) as Cell);
    factors.splice(s.zipAt, 0, rows);
  }
  let product: Cell[] = factors.length === 0 && s.include.length > 0 ? [] : [{}];
  for (const rows of factors) product = product.flatMap((c) => rows.map((r) => ({ ...c, ...r })));
  const names = namesOf(s);
  const order = (c: Cell): Cell => Object.fromEntries(names.map((n) => [n, c[n]!]));
  product = product.map(order);
  const matches = (c: Cell, sel: Cell): boolean => Object.entries(sel).every(([k, v]) => String(c[k]) === String(v));
  const kept = product.filter((c) => !s.exclude.some((sel) => matches(c, sel)));
  return { product, kept, cells: [...kept, ...s.include.map(order)] };
}

describe('grid forms', () => {
  it('has product − excluded + included cells, in the reference order', () => {
    fc.assert(
      fc.property(shape, (s) => {
        const ref = reference(s);
        const g = compileGrid(gridOf(s));
        expect(g.product).toBe(ref.product.length);
        expect(g.excluded).toBe(ref.product.length - ref.kept.length);
        expect(g.included).toBe(s.include.length);
        expect(g.count).toBe(ref.product.length - (ref.product.length - ref.kept.length) + s.include.length);
        expect(expandGrid(gridOf(s))).toEqual(ref.cells);
      }),
      { numRuns: 500 },
    );
  });

  it('cellAt(i) is expandGrid()[i]', () => {
    fc.assert(
      fc.property(shape, (s) => {
        const cells = expandGrid(gridOf(s));
        const g = compileGrid(gridOf(s));
        for (let i = 0; i < cells.length; i++) expect(g.cellAt(i)).toEqual(cells[i]);
      }),
      { numRuns: 500 },
    );
  });

  it('repeats a cell only where an included cell repeats one the grid already has', () => {
    fc.assert(
      fc.property(shape, (s) => {
        const { kept } = reference(s);
        const names = namesOf(s);
        const asKey = (c: Cell): string => key(Object.fromEntries(names.map((n) => [n, c[n]!])));
        const said = new Set(kept.map(asKey));
        let repeats = 0;
        for (const c of s.include) {
          if (said.has(asKey(c))) repeats++;
          said.add(asKey(c));
        }
        const cells = expandGrid(gridOf(s));
        expect(cells.length - new Set(cells.map(key)).size).toBe(repeats);
      }),
      { numRuns: 500 },
    );
  });

  it('takes every value from its axis, its zip row or an included cell, and never splits a zip row', () => {
    fc.assert(
      fc.property(shape, (s) => {
        const cells = expandGrid(gridOf(s));
        const kept = cells.length - s.include.length;
        cells.forEach((cell, i) => {
          expect(Object.keys(cell)).toEqual(namesOf(s));
          if (i >= kept) {
            expect(cell).toEqual(expect.objectContaining(s.include[i - kept]));
            return;
          }
          for (const [n, vs] of s.axes) expect(vs).toContain(cell[n]);
          if (s.zip.length > 0) {
            const rows = s.zip[0]![1].map((_, r) => r);
            expect(rows.some((r) => s.zip.every(([n, vs]) => vs[r] === cell[n]))).toBe(true);
          }
          for (const sel of s.exclude) {
            expect(Object.entries(sel).every(([k, v]) => String(cell[k]) === String(v))).toBe(false);
          }
        });
      }),
      { numRuns: 500 },
    );
  });

  it('tagsDistinct holds only where the tags are distinct, zips and exclusions included', () => {
    fc.assert(
      fc.property(shape, (s) => {
        const tags = expandGrid(gridOf(s)).map(tagOf);
        if (tagsDistinct(gridOf(s))) expect(new Set(tags).size).toBe(tags.length);
      }),
      { numRuns: 500 },
    );
  });

  it('derives an included cell tag from its values in axis order, however the cell lists them', () => {
    const grid: Grid = { N: [384, 512], seed: [1, 2], include: [{ seed: 7, N: 1024 }] };
    const cells = expandGrid(grid);
    expect(cells.at(-1)).toEqual({ N: 1024, seed: 7 });
    expect(tagOf(cells.at(-1)!)).toBe('N1024_seed7');
  });

  it("expands the method's shapes: an exclude, a zipped learning rate and batch, an explicit job list", () => {
    expect(
      expandGrid({
        N: [384, 512],
        zip: { lr: [0.1, 0.01], batch: [32, 64] },
        exclude: [{ N: 512, batch: 64 }],
        include: [{ N: 1024, lr: 0.001, batch: 128 }],
      }),
    ).toEqual([
      { N: 384, lr: 0.1, batch: 32 },
      { N: 384, lr: 0.01, batch: 64 },
      { N: 512, lr: 0.1, batch: 32 },
      { N: 1024, lr: 0.001, batch: 128 },
    ]);
    expect(
      expandGrid({
        include: [
          { N: 384, n: 50000 },
          { N: 512, n: 652000 },
        ],
      }),
    ).toEqual([
      { N: 384, n: 50000 },
      { N: 512, n: 652000 },
    ]);
  });

  it('counts what each selector removes, none for one naming no axis or no value', () => {
    const g = compileGrid({
      N: [384, 512],
      seed: [1, 2, 3],
      exclude: [{ N: 512 }, { N: 512, seed: 1 }, { N: 640 }, { M: 1 }],
    });
    expect(g.removedBy).toEqual([3, 1, 0, 0]);
    expect(g.count).toBe(3);
  });

  it('gives a cell of a large grid with a large exclusion without expanding the grid', () => {
    const values = Array.from({ length: 1000 }, (_, i) => i);
    const g = compileGrid({ a: values, b: values, exclude: [{ a: 0 }, { b: 999 }] });
    expect(g.count).toBe(1000 * 1000 - 1999);
    expect(g.cellAt(0)).toEqual({ a: 1, b: 0 });
    expect(g.cellAt(998)).toEqual({ a: 1, b: 998 });
    expect(g.cellAt(999)).toEqual({ a: 2, b: 0 });
    expect(g.cellAt(g.count - 1)).toEqual({ a: 999, b: 998 });
  });

  it('keeps the zip where the manifest writes it among the axes, once parsed', () => {
    const parsed = (grid: string): Cell[] =>
      expandGrid(
        parseManifest(
          'm.yml',
          `campaign: c\ncluster: { executor: local }\nworkdir: w\nphases:\n  - name: p\n    grid:\n${grid}\n    command: "true"\n`,
        ).manifest.phases[0]!.grid,
      );
    expect(parsed('      N: [1, 2]\n      zip: { lr: [0.1, 0.2], b: [8, 16] }')[1]).toEqual({ N: 1, lr: 0.2, b: 16 });
    expect(Object.keys(parsed('      zip: { lr: [0.1, 0.2], b: [8, 16] }\n      N: [1, 2]')[1]!)).toEqual([
      'lr',
      'b',
      'N',
    ]);
  });
});
