/** Grid expansion (manifest/grid.ts): the tasks a manifest's grid stands for, and their identifiers. */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  axesOf,
  cellCount,
  compileGrid,
  expandGrid,
  GRID_KEYS,
  matchesSelector,
  parseSelector,
  selectorMaker,
  selectorOf,
  tagMaker,
  tagOf,
  tagsDistinct,
  type Cell,
  type Grid,
} from '../../src/manifest/grid.js';
import type { Scalar } from '../../src/manifest/schema.js';

/** An axis name; the keys a grid reserves (include, exclude, zip) are not axes. */
const axisName = fc
  .stringMatching(/^[A-Za-z_][A-Za-z0-9_]{0,5}$/)
  .filter((n) => !(GRID_KEYS as readonly string[]).includes(n));

/** A scalar as YAML gives it: string, integer, float or boolean (never -0, which YAML cannot tell from 0). */
const scalar: fc.Arbitrary<Scalar> = fc.oneof(
  fc.string({ maxLength: 6 }),
  fc.integer({ min: -1000, max: 1000 }),
  fc.double({ noNaN: true, noDefaultInfinity: true }).filter((x) => !Object.is(x, -0)),
  fc.boolean(),
);

/** Values of one axis, distinct (the duplicate-value lint refuses repeats). */
const axisValues = (value: fc.Arbitrary<Scalar>, maxLength = 4): fc.Arbitrary<Scalar[]> =>
  fc.uniqueArray(value, { minLength: 1, maxLength, selector: (v) => `${typeof v}:${String(v)}` });

/** A grid of up to 4 axes, each a list or (sometimes) a bare scalar. */
const gridOf = (value: fc.Arbitrary<Scalar>): fc.Arbitrary<Grid> =>
  fc
    .uniqueArray(fc.tuple(axisName, fc.oneof(axisValues(value), value)), {
      maxLength: 4,
      selector: ([name]) => name,
    })
    .map((entries) => Object.fromEntries(entries) as Grid);

const grid = gridOf(scalar);

/** Identity of a cell including value types: 1 and "1" are different cells. */
const key = (cell: Cell): string => JSON.stringify(Object.entries(cell).map(([k, v]) => [k, typeof v, String(v)]));

describe('grid expansion', () => {
  it('has as many cells as the product of the axis lengths, and cellCount says so without expanding', () => {
    fc.assert(
      fc.property(grid, (g) => {
        const product = Object.values(g).reduce<number>((n, v) => n * (Array.isArray(v) ? v.length : 1), 1);
        expect(cellCount(g)).toBe(product);
        expect(expandGrid(g)).toHaveLength(product);
      }),
      { numRuns: 300 },
    );
  });

  it('every cell is distinct, and every combination of axis values occurs', () => {
    fc.assert(
      fc.property(grid, (g) => {
        const cells = expandGrid(g);
        expect(new Set(cells.map(key)).size).toBe(cells.length);
        const axes = axesOf(g);
        for (const cell of cells) {
          expect(Object.keys(cell)).toEqual(axes.map(([name]) => name));
          for (const [name, values] of axes) expect(values).toContain(cell[name]);
        }
      }),
      { numRuns: 300 },
    );
  });

  it('cellAt(i) is expandGrid()[i], with the first axis slowest', () => {
    fc.assert(
      fc.property(grid, (g) => {
        const axes = axesOf(g);
        const cells = expandGrid(g);
        const compiled = compileGrid(g);
        for (let i = 0; i < cells.length; i++) {
          expect(compiled.cellAt(i)).toEqual(cells[i]);
          // Mixed-radix digits of i, most significant first, pick each axis's value.
          let rest = i;
          const expected: Record<string, Scalar> = {};
          for (let a = axes.length - 1; a >= 0; a--) {
            const [name, values] = axes[a]!;
            expected[name] = values[rest % values.length]!;
            rest = Math.floor(rest / values.length);
          }
          expect(cells[i]).toEqual(expected);
        }
      }),
      { numRuns: 300 },
    );
  });

  it('orders cells as a user reads the grid: first axis slowest', () => {
    expect(expandGrid({ N: [384, 512], seed: [1, 2, 3] })).toEqual([
      { N: 384, seed: 1 },
      { N: 384, seed: 2 },
      { N: 384, seed: 3 },
      { N: 512, seed: 1 },
      { N: 512, seed: 2 },
      { N: 512, seed: 3 },
    ]);
    expect(expandGrid(undefined)).toEqual([{}]);
    expect(cellCount({})).toBe(1);
  });

  it('a scalar axis is a one-value axis', () => {
    fc.assert(
      fc.property(grid, fc.nat(), scalar, (g, at, value) => {
        const entries = Object.entries(g);
        const position = entries.length === 0 ? 0 : at % (entries.length + 1);
        const name = 'scalar_axis_added'; // longer than any generated axis name
        const withScalar = Object.fromEntries([
          ...entries.slice(0, position),
          [name, value],
          ...entries.slice(position),
        ]) as Grid;
        const withList = Object.fromEntries([
          ...entries.slice(0, position),
          [name, [value]],
          ...entries.slice(position),
        ]) as Grid;
        expect(cellCount(withScalar)).toBe(cellCount(g));
        expect(expandGrid(withScalar)).toEqual(expandGrid(withList));
        for (const cell of expandGrid(withScalar)) expect(cell[name]).toBe(value);
      }),
      { numRuns: 300 },
    );
  });

  it('a grid with an empty axis has no cells', () => {
    expect(cellCount({ a: [1, 2], b: [] })).toBe(0);
    expect(expandGrid({ a: [1, 2], b: [] })).toEqual([]);
  });
});

describe('tags', () => {
  /** Values that survive tagOf unchanged, distinct as text within an axis. */
  const tagSafe: fc.Arbitrary<Scalar> = fc.oneof(
    fc.stringMatching(/^[A-Za-z0-9.+-]{1,6}$/),
    fc.integer({ min: -100000, max: 100000 }),
    fc.double({ noNaN: true }).filter((x) => !Object.is(x, -0)),
    fc.boolean(),
  );
  const tagSafeGrid = fc
    .uniqueArray(
      fc.tuple(axisName, fc.uniqueArray(tagSafe, { minLength: 1, maxLength: 4, selector: (v) => String(v) })),
      { maxLength: 4, selector: ([name]) => name },
    )
    .map((entries) => Object.fromEntries(entries) as Grid);

  it('distinct cells get distinct tags when values are tag-safe', () => {
    fc.assert(
      fc.property(tagSafeGrid, (g) => {
        const cells = expandGrid(g);
        const tags = cells.map(tagOf);
        expect(new Set(tags).size).toBe(cells.length);
        for (const t of tags) expect(t).toMatch(/^[A-Za-z0-9_.+-]+$/);
      }),
      { numRuns: 300 },
    );
  });

  it('tagMaker and selectorMaker give what tagOf and selectorOf give, cell after cell', () => {
    fc.assert(
      fc.property(grid, fc.func(fc.boolean()), (g, pick) => {
        const cells = expandGrid(g);
        const axes = Object.keys(cells[0] ?? {}).filter((_, k) => pick(k));
        const [tag, selector] = [tagMaker(), selectorMaker(axes)];
        for (const cell of cells) {
          expect(tag(cell)).toBe(tagOf(cell));
          expect(selector(cell)).toBe(selectorOf(cell, axes));
        }
      }),
      { numRuns: 200 },
    );
  });

  it('tagsDistinct says of a product exactly whether its tags are distinct', () => {
    /** Values whose tags often collide: characters a tag does not keep become "-". */
    const clashing: fc.Arbitrary<Scalar> = fc.oneof(
      fc.constantFrom('a b', 'a-b', 'a_b', 'a/b', 'a', '1', '_', ''),
      fc.integer({ min: 0, max: 3 }),
    );
    fc.assert(
      fc.property(gridOf(clashing), (g) => {
        const tags = expandGrid(g).map(tagOf);
        expect(tagsDistinct(g)).toBe(new Set(tags).size === tags.length);
      }),
      { numRuns: 300 },
    );
  });

  it('a tag names each axis and value, and holds no character a path or shell would trip on', () => {
    expect(tagOf({ N: 384, n: 50000, seed: 42 })).toBe('N384_n50000_seed42');
    expect(tagOf({})).toBe('task');
    fc.assert(
      fc.property(grid, (g) => {
        for (const cell of expandGrid(g)) {
          const tag = tagOf(cell);
          expect(tag).toMatch(/^[A-Za-z0-9_.+-]+$/);
          if (Object.keys(cell).length > 0) {
            expect(tag.split('_').length).toBeGreaterThanOrEqual(Object.keys(cell).length);
          }
        }
      }),
      { numRuns: 200 },
    );
  });
});

describe('selectors', () => {
  /** A value a selector can spell: no comma, no surrounding blanks (the manifest schema's selector keys). */
  const selectorSafe: fc.Arbitrary<Scalar> = fc.oneof(
    fc.string({ maxLength: 6 }).filter((s) => !s.includes(',') && s.trim() === s),
    fc.integer(),
    fc.double({ noNaN: true }),
    fc.boolean(),
  );
  const selectorGrid = gridOf(selectorSafe);

  it('a cell matches its own selector, for any subset of axes', () => {
    fc.assert(
      fc.property(selectorGrid, fc.func(fc.boolean()), (g, pick) => {
        const axes = axesOf(g).map(([name]) => name);
        for (const cell of expandGrid(g)) {
          const chosen = axes.filter((a) => pick(a, key(cell)));
          const selector = selectorOf(cell, chosen);
          if (chosen.length === 0) {
            expect(selector).toBe('all');
            continue;
          }
          expect(matchesSelector(cell, selector)).toBe(true);
          expect(parseSelector(selector)).toEqual(chosen.map((a) => [a, String(cell[a])]));
        }
      }),
      { numRuns: 300 },
    );
  });

  it('a selector matches exactly the cells that agree with it on its axes', () => {
    fc.assert(
      fc.property(selectorGrid, fc.nat(), fc.nat(), (g, from, mask) => {
        const cells = expandGrid(g);
        const axes = axesOf(g).map(([name]) => name);
        const chosen = axes.filter((_, i) => (mask >> i) & 1);
        if (chosen.length === 0) return;
        const origin = cells[from % cells.length]!;
        const selector = selectorOf(origin, chosen);
        for (const cell of cells) {
          const agrees = chosen.every((a) => String(cell[a]) === String(origin[a]));
          expect(matchesSelector(cell, selector)).toBe(agrees);
        }
      }),
      { numRuns: 300 },
    );
  });

  it('reads selectors as a user writes them: blanks around parts, numbers as text', () => {
    const cell = { N: 384, n: 50000, name: 'a=b' };
    expect(matchesSelector(cell, 'N=384')).toBe(true);
    expect(matchesSelector(cell, ' N = 384 , n=50000')).toBe(true);
    expect(matchesSelector(cell, 'N=512')).toBe(false);
    expect(matchesSelector(cell, 'name=a=b')).toBe(true);
    expect(matchesSelector(cell, 'missing=1')).toBe(false);
  });
});
