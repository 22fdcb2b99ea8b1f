/**
 * The results core (report/results): outputs parsed by content, the result record picked, the
 * metrics taken as numbers or said to be missing, and the aggregation over replicates checked
 * against a direct computation.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { aggregate, stats, type TaskResult } from '../../src/report/results/aggregate.js';
import { parseCsv, writeCsv } from '../../src/report/results/csv.js';
import { metricValues, parseRecordRule, parseRecords, pickRecords } from '../../src/report/results/records.js';
import { cellTable, renderTable, taskTable } from '../../src/report/results/table.js';

const records = (text: string) => {
  const p = parseRecords(text);
  if ('error' in p) throw new Error(p.error);
  return p;
};

describe('parseRecords', () => {
  it('tells JSON lines, a JSON object, a JSON array and CSV apart by content', () => {
    expect(records('{"loss": 1}\n{"loss": 0.5}\n')).toEqual({ format: 'jsonl', records: [{ loss: 1 }, { loss: 0.5 }] });
    expect(records('{"loss": 1, "acc": 0.9}')).toEqual({ format: 'json', records: [{ loss: 1, acc: 0.9 }] });
    expect(records(' [{"loss": 1}, {"loss": 2}]\n')).toEqual({ format: 'json', records: [{ loss: 1 }, { loss: 2 }] });
    expect(records('epoch,loss,note\r\n1,0.5,"a, b"\r\n2,0.25,\r\n')).toEqual({
      format: 'csv',
      records: [
        { epoch: 1, loss: 0.5, note: 'a, b' },
        { epoch: 2, loss: 0.25 },
      ],
    });
  });

  it("reads Python's bare NaN and Infinity as what they are, not as a number", () => {
    const p = records('{"loss": NaN, "acc": 0.5}\n{"loss": -Infinity, "acc": 1}\n');
    expect(p.records).toEqual([
      { loss: 'NaN', acc: 0.5 },
      { loss: '-Infinity', acc: 1 },
    ]);
    expect(metricValues(p.records[0]!, ['loss', 'acc']).problems).toEqual(['loss is "NaN", not a number']);
  });

  it('says what is wrong with an output it cannot read', () => {
    expect(parseRecords('')).toEqual({ error: 'the output is empty' });
    expect(parseRecords('{"a": 1}\n{"a": 2')).toEqual({ error: 'line 2 is not JSON (a record cut off mid-write?)' });
    expect(parseRecords('[1, 2]')).toEqual({ error: 'item 1 of the JSON is not an object' });
    expect(parseRecords('a,b\n1,2,3\n')).toEqual({ error: 'CSV line 2 has 3 fields, the header 2' });
    expect(parseRecords('just some words')).toHaveProperty('error');
  });

  const key = fc.stringMatching(/^[a-z][a-z0-9 ,"_.\n-]{0,8}$/);
  const number = fc.double({ noNaN: true, noDefaultInfinity: true }).map((x) => (Object.is(x, -0) ? 0 : x));
  const table = fc.uniqueArray(key, { minLength: 1, maxLength: 5 }).chain((keys) =>
    fc.array(
      fc.tuple(...keys.map(() => number)).map((vs) => Object.fromEntries(keys.map((k, i) => [k, vs[i]]))),
      {
        minLength: 1,
        maxLength: 8,
      },
    ),
  );

  it('reads back the same records written as JSON lines, a JSON array or CSV', () => {
    fc.assert(
      fc.property(table, (rs) => {
        const keys = Object.keys(rs[0]!);
        const csv = writeCsv([keys, ...rs.map((r) => keys.map((k) => String(r[k])))]);
        for (const text of [rs.map((r) => JSON.stringify(r)).join('\n'), JSON.stringify(rs), csv])
          expect(records(text).records).toEqual(rs);
      }),
    );
  });
});

describe('CSV', () => {
  it('writes RFC 4180: quotes where needed, quotes doubled, CRLF', () => {
    expect(writeCsv([['a', 'b,c', 'say "hi"', 'two\nlines', '']])).toBe('a,"b,c","say ""hi""","two\nlines",\r\n');
  });

  it('reads back any rows it wrote', () => {
    fc.assert(
      fc.property(fc.array(fc.array(fc.string(), { minLength: 1, maxLength: 5 }), { maxLength: 6 }), (rows) => {
        expect(parseCsv(writeCsv(rows))).toEqual(rows);
      }),
    );
  });

  it('refuses a quote never closed, or one inside an unquoted field', () => {
    expect(parseCsv('a,"b\n')).toBeUndefined();
    expect(parseCsv('a,b"c\n')).toBeUndefined();
  });
});

describe('picking the result record', () => {
  const numbers = fc.array(fc.oneof(fc.integer({ min: -1000, max: 1000 }), fc.constant(undefined)), {
    minLength: 1,
    maxLength: 10,
  });

  it('best:<field>:min|max is the first record with the least or greatest number; last is the last', () => {
    fc.assert(
      fc.property(numbers, (xs) => {
        const rs = xs.map((x, i) => (x === undefined ? { i } : { i, loss: x }));
        expect(pickRecords(rs, parseRecordRule('last'))).toEqual({ picked: [{ index: xs.length, record: rs.at(-1) }] });
        expect(pickRecords(rs, parseRecordRule('all'))).toEqual({
          picked: rs.map((record, i) => ({ index: i + 1, record })),
        });
        const present = xs.filter((x): x is number => x !== undefined);
        for (const by of ['min', 'max'] as const) {
          const got = pickRecords(rs, parseRecordRule(`best:loss:${by}`));
          if (present.length === 0) {
            expect(got).toEqual({ error: 'no record has a number in loss (record: best)' });
            continue;
          }
          const want = by === 'min' ? Math.min(...present) : Math.max(...present);
          expect(got).toEqual({ picked: [{ index: xs.indexOf(want) + 1, record: rs[xs.indexOf(want)] }] });
        }
      }),
    );
  });

  it('names each metric that is missing or not a number, and never makes it 0', () => {
    expect(metricValues({ loss: 0.5, acc: 'high', x: null }, ['loss', 'acc', 'x', 'f1'])).toEqual({
      values: { loss: 0.5 },
      problems: ['acc is "high", not a number', 'x is null, not a number', 'no f1'],
    });
  });
});

describe('stats', () => {
  it('matches a direct computation: mean, sample std (n − 1), sem, min, max', () => {
    fc.assert(
      fc.property(fc.array(fc.double({ min: -1e6, max: 1e6, noNaN: true }), { minLength: 1, maxLength: 30 }), (xs) => {
        const s = stats(xs)!;
        const n = xs.length;
        let sum = 0;
        for (const x of xs) sum += x;
        const mean = sum / n;
        expect(s.mean).toBeCloseTo(mean, 6);
        expect(s.min).toBe(Math.min(...xs));
        expect(s.max).toBe(Math.max(...xs));
        expect(s.min <= s.mean && s.mean <= s.max).toBe(true);
        if (n < 2) {
          expect(s.std).toBeUndefined();
          expect(s.sem).toBeUndefined();
          return;
        }
        let ss = 0;
        for (const x of xs) ss += (x - mean) * (x - mean);
        const std = Math.sqrt(ss / (n - 1));
        expect(s.std!).toBeCloseTo(std, 4);
        expect(s.sem!).toBeCloseTo(std / Math.sqrt(n), 4);
      }),
    );
    expect(stats([])).toBeUndefined();
    expect(stats([1e12 + 1, 1e12 + 1, 1e12 + 1])!.std).toBe(0);
  });
});

describe('aggregate', () => {
  /** A grid lr × seed; each task either completed with a loss, completed without one, or failed. */
  const outcome = fc.oneof(
    fc.record({ kind: fc.constant('ok' as const), loss: fc.integer({ min: -100, max: 100 }) }),
    fc.constant({ kind: 'failed' as const }),
    fc.constant({ kind: 'no-metric' as const }),
  );
  const grid = fc.record({
    lrs: fc.uniqueArray(fc.integer({ min: 1, max: 9 }), { minLength: 1, maxLength: 3 }),
    seeds: fc.uniqueArray(fc.integer({ min: 0, max: 99 }), { minLength: 1, maxLength: 5 }),
  });
  const case_ = grid.chain(({ lrs, seeds }) =>
    fc
      .array(outcome, { minLength: lrs.length * seeds.length, maxLength: lrs.length * seeds.length })
      .map((outs) => ({ lrs, seeds, outs })),
  );

  it('counts n of planned, averages only what is present and lists each missing replicate', () => {
    fc.assert(
      fc.property(case_, ({ lrs, seeds, outs }) => {
        const tasks: TaskResult[] = [];
        lrs.forEach((lr, i) =>
          seeds.forEach((seed, j) => {
            const o = outs[i * seeds.length + j]!;
            tasks.push({
              id: `train/lr${lr}_seed${seed}`,
              values: { lr, seed },
              status: o.kind === 'failed' ? 'failed' : 'completed',
              records:
                o.kind === 'ok'
                  ? [{ index: 3, values: { loss: o.loss } }]
                  : o.kind === 'no-metric'
                    ? [{ index: 3, values: {}, problem: 'record 3: no loss' }]
                    : [],
            });
          }),
        );
        const cells = aggregate(tasks, ['loss'], 'seed', false);
        expect(cells.map((c) => c.values)).toEqual(lrs.map((lr) => ({ lr })));
        lrs.forEach((lr, i) => {
          const mine = outs.slice(i * seeds.length, (i + 1) * seeds.length);
          const losses = mine.flatMap((o) => (o.kind === 'ok' ? [o.loss] : []));
          const c = cells[i]!;
          expect(c.planned).toBe(seeds.length);
          expect(c.n).toBe(losses.length);
          expect(c.missing).toEqual(
            mine.flatMap((o, j) =>
              o.kind === 'failed'
                ? [`seed=${seeds[j]}: failed`]
                : o.kind === 'no-metric'
                  ? [`seed=${seeds[j]}: record 3: no loss`]
                  : [],
            ),
          );
          if (losses.length === 0) expect(c.stats.loss).toBeUndefined();
          else expect(c.stats.loss!.mean).toBeCloseTo(losses.reduce((s, x) => s + x, 0) / losses.length, 9);
        });
      }),
    );
  });

  it('with record: all, one cell per place of a record, short where a replicate has fewer records', () => {
    const t = (seed: number, losses: number[]): TaskResult => ({
      id: `p/seed${seed}`,
      values: { seed },
      status: 'completed',
      records: losses.map((loss, i) => ({ index: i + 1, values: { loss } })),
    });
    const cells = aggregate([t(1, [4, 2]), t(2, [6])], ['loss'], 'seed', true);
    expect(cells.map((c) => [c.record, c.n, c.planned, c.stats.loss?.mean, c.missing])).toEqual([
      [1, 2, 2, 5, []],
      [2, 1, 2, 2, ['seed=2: no record 2']],
    ]);
  });
});

describe('tables', () => {
  const tasks: TaskResult[] = [
    {
      id: 't/n1_seed1',
      values: { n: 1, seed: 1 },
      status: 'completed',
      records: [{ index: 1, values: { loss: 1 } }],
      attempt: 1,
      definition: 'abc',
      gpuHours: 0.5,
      node: 'gpu1',
    },
    { id: 't/n1_seed2', values: { n: 1, seed: 2 }, status: 'failed', records: [], attempt: 2 },
  ];

  it('names an axis grid.<axis> where a result column has its name, and marks a short cell', () => {
    const cells = aggregate(tasks, ['loss'], 'seed', false);
    const table = cellTable(['n'], cells, ['loss'], false);
    expect(table.columns).toEqual([
      'grid.n',
      'status',
      'n',
      'planned',
      'loss_mean',
      'loss_std',
      'loss_sem',
      'loss_min',
      'loss_max',
      'missing',
    ]);
    expect(table.rows).toEqual([[1, 'incomplete', 1, 2, 1, undefined, undefined, 1, 1, 'seed=2: failed']]);
    expect(renderTable(table, 'jsonl')).toBe(
      '{"grid.n":1,"status":"incomplete","n":1,"planned":2,"loss_mean":1,"loss_std":null,"loss_sem":null,"loss_min":1,"loss_max":1,"missing":"seed=2: failed"}\n',
    );
  });

  it('lists every task with where it ran, and keeps a markdown cell one cell', () => {
    const table = taskTable(['n', 'seed'], tasks, ['loss'], false);
    expect(table.columns).toEqual([
      'n',
      'seed',
      'status',
      'loss',
      'attempt',
      'definition',
      'gpu_hours',
      'node',
      'problem',
    ]);
    expect(renderTable(table, 'csv')).toBe(
      'n,seed,status,loss,attempt,definition,gpu_hours,node,problem\r\n1,1,completed,1,1,abc,0.5,gpu1,\r\n1,2,failed,,2,,,,\r\n',
    );
    const md = renderTable({ columns: ['a'], rows: [['x|y'], [1 / 3]] }, 'markdown');
    expect(md).toBe('| a |\n| --- |\n| x\\|y |\n| 0.333333 |\n');
  });
});
