/**
 * The Slurm batch script's markers read back (exec/slurm/markers.ts): any set of start and end
 * lines, as the script writes them and `cat` joins them in any order, gives back what was
 * written, whatever else is mixed in; and the glob that reads them.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { UserError } from '../../../src/errors.js';
import { markersGlob, parseMarkers, type TaskMarkers } from '../../../src/exec/slurm/markers.js';
import { plainCommand } from '../../../src/exec/transport/words.js';

const token = fc.stringMatching(/^[A-Za-z0-9._~-]{1,16}$/).filter((s) => s !== '-');
const ms = fc.integer({ min: 0, max: 4_102_444_800_000 });

/** One array task's markers: at least one of start and end. */
const task = fc
  .record({
    key: token,
    index: fc.nat(100_000),
    jobId: fc.nat(10_000_000).map(String),
    start: fc.option(fc.record({ at: ms, node: fc.option(token, { nil: undefined }) }), { nil: undefined }),
    end: fc.option(
      fc.record({
        at: ms,
        code: fc.integer({ min: 0, max: 255 }),
        signal: fc.option(fc.constant('TERM' as const), { nil: undefined }),
        gate: fc.option(token, { nil: undefined }),
      }),
      { nil: undefined },
    ),
  })
  .filter((t) => t.start !== undefined || t.end !== undefined);

type Task = typeof task extends fc.Arbitrary<infer T> ? T : never;

/**
 * The lines the batch script writes for a task, as render/task-script.ts formats them, or as
 * earlier releases did (`renamed`: capital kinds, no terminator).
 */
function lines(t: Task, renamed = false): string[] {
  const id = `${t.key} ${t.index} ${t.jobId}`;
  const line = (kind: 's' | 'e', fields: string) =>
    renamed ? `${kind.toUpperCase()} ${fields}` : `${kind} ${fields} .`;
  return [
    ...(t.start ? [line('s', `${id} ${t.start.at} ${t.start.node ?? '-'}`)] : []),
    ...(t.end ? [line('e', `${id} ${t.end.at} ${t.end.code} ${t.end.signal ?? '-'} ${t.end.gate ?? '-'}`)] : []),
  ];
}

/** The files' contents one `cat` joins: each written as the script writes it, a newline first. */
const files = (all: readonly string[]) => all.map((l) => `\n${l}\n`);

function expected(t: Task): TaskMarkers {
  const iso = (n: number) => new Date(n).toISOString();
  return {
    key: t.key,
    index: t.index,
    jobId: t.jobId,
    ...(t.start ? { startedAt: iso(t.start.at), ...(t.start.node ? { node: t.start.node } : {}) } : {}),
    ...(t.end
      ? {
          end: {
            at: iso(t.end.at),
            code: t.end.code,
            ...(t.end.signal ? { signal: t.end.signal } : {}),
            ...(t.end.gate ? { gate: t.end.gate } : {}),
          },
        }
      : {}),
  };
}

/** A line that is no marker: none starts with a marker's kind and a blank. */
const garbage = fc.string({ maxLength: 60 }).filter((s) => !s.includes('\n') && !/^[SEWsew] /.test(s));

describe('parseMarkers', () => {
  it('gives back every task of the lines written, in any order, with other lines mixed in', () => {
    fc.assert(
      fc.property(
        fc.uniqueArray(task, { maxLength: 8, selector: (t) => `${t.jobId}_${t.index}` }),
        fc.array(garbage, { maxLength: 5 }),
        fc.integer(),
        fc.boolean(),
        (tasks, noise, seed, renamed) => {
          const all = [...tasks.flatMap((t) => lines(t, renamed)), ...noise];
          // A fixed shuffle from the seed: cat reads the files in the shell's order, not ours.
          const shuffled = all
            .map((l, i) => ({ l, k: Math.imul(i + 1, seed | 1) >>> 0 }))
            .sort((a, b) => a.k - b.k)
            .map((x) => x.l);
          const got = parseMarkers(files(shuffled).join(''));
          expect(got).toEqual(new Map(tasks.map((t) => [`${t.jobId}_${t.index}`, expected(t)])));
        },
      ),
    );
  });

  it('takes a marker being written for none yet, and reads the files after it whole', () => {
    fc.assert(
      fc.property(
        task,
        fc.uniqueArray(task, { maxLength: 4, selector: (t) => `${t.jobId}_${t.index}` }),
        fc.nat(),
        (torn, whole, cut) => {
          const others = whole.filter((t) => t.jobId !== torn.jobId || t.index !== torn.index);
          // Any strict prefix of the file being written: empty, mid-field, or just short of its terminator.
          const [first = ''] = files(lines(torn));
          const partial = first.slice(0, cut % first.trimEnd().length);
          const got = parseMarkers(partial + files(others.flatMap((t) => lines(t))).join(''));
          expect(got).toEqual(new Map(others.map((t) => [`${t.jobId}_${t.index}`, expected(t)])));
        },
      ),
    );
  });

  it('skips what is not a whole marker', () => {
    const bad = [
      'cat: /w/.campaign/slurm/c/*/markers/*: No such file or directory',
      'S k 1 42 1700000000000',
      'S k 1 42 1700000000000 node extra',
      'S k x 42 1700000000000 node',
      'S k 1 42 later node',
      'S k 1  1700000000000 node',
      'E k 1 42 1700000000000 0 - ',
      'E k 1 42 1700000000000 256 - -',
      'E k 1 42 1700000000000 0 KILL -',
      'E k 1 42 1700000000000 -1 - -',
      'X k 1 42 1700000000000 0 - -',
      's k 1 42 1700000000000 node',
      's k 1 42 1700000000000 node ,',
      'e k 1 42 1700000000000 0 - -',
      'e k 1 42 1700000000000 0 - - . .',
      '',
    ];
    expect(parseMarkers(bad.join('\n'))).toEqual(new Map());
    fc.assert(
      fc.property(fc.array(garbage), (noise) => {
        expect(parseMarkers(noise.join('\n')).size).toBe(0);
      }),
    );
  });

  it('keeps an end whose start is missing', () => {
    expect(parseMarkers('\ne abc 3 77 1700000000000 97 - index .\n').get('77_3')).toEqual({
      key: 'abc',
      index: 3,
      jobId: '77',
      end: { at: '2023-11-14T22:13:20.000Z', code: 97, gate: 'index' },
    });
  });
});

describe('markersGlob', () => {
  it("matches a submission's markers under the campaign's Slurm directory", () => {
    const glob = markersGlob('/scratch/me/work/.campaign/slurm/c', '0123456789ab');
    expect(glob).toBe('/scratch/me/work/.campaign/slurm/c/0123456789ab/markers/*');
    // An automation node runs it as plain words.
    expect(plainCommand(['cat', { glob }])).toBe(`cat ${glob}`);
  });

  it('refuses a directory the shell would expand or split', () => {
    for (const root of [
      '/a b/c',
      '/a*/c',
      '/a?/c',
      '/a[1]/c',
      "/it's",
      '/a$HOME',
      'relative/c',
      '/a\\b',
      '/home/~me/c',
    ]) {
      expect(() => markersGlob(root, 'k'), root).toThrow(UserError);
    }
  });
});
