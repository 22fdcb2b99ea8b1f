/**
 * The snapshot's id and a phase's code digest (plan/code.ts) change with any file's content,
 * mode or path under the declared paths, and with nothing else: not with the files outside
 * them, nor with the order the paths are written in.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  changedCodeFiles,
  codeDigest,
  codeEntry,
  snapshotId,
  underPaths,
  type CodeFiles,
} from '../../src/plan/code.js';

const segment = fc.stringMatching(/^[a-z0-9_.-]{1,6}$/).filter((s) => s !== '.' && s !== '..');
const path = fc.array(segment, { minLength: 1, maxLength: 3 }).map((parts) => parts.join('/'));
const entry = fc
  .tuple(
    fc.constantFrom('file', 'exec', 'link') as fc.Arbitrary<'file' | 'exec' | 'link'>,
    fc.stringMatching(/^[0-9a-f]{8}$/),
  )
  .map(([mode, digest]) => codeEntry(mode, digest));
const files = fc.dictionary(path, entry, { minKeys: 1, maxKeys: 12 });

/** The paths of a snapshot with no file also a folder of another (git tracks no such pair). */
const tree = files.filter((f) => Object.keys(f).every((a) => !Object.keys(f).some((b) => b.startsWith(`${a}/`))));

describe('code digests', () => {
  it('change with any content, mode or path under the declared paths', () => {
    fc.assert(
      fc.property(tree, fc.nat(), entry, segment, (code, pick, other, rename) => {
        const paths = Object.keys(code);
        const target = paths[pick % paths.length]!;
        const declared = [target.split('/')[0]!];
        const before = codeDigest(code, declared);
        if (other !== code[target]) {
          expect(codeDigest({ ...code, [target]: other }, declared)).not.toBe(before);
          expect(snapshotId({ ...code, [target]: other })).not.toBe(snapshotId(code));
        }
        const moved = `${target}${rename}`;
        if (code[moved] === undefined) {
          const { [target]: content, ...rest } = code;
          expect(codeDigest({ ...rest, [moved]: content! }, declared)).not.toBe(before);
        }
      }),
    );
  });

  it('stay the same for files outside the declared paths and for the order of the paths', () => {
    fc.assert(
      fc.property(tree, entry, fc.nat(), (code, extra, seed) => {
        const paths = [...new Set(Object.keys(code).map((p) => p.split('/')[0]!))];
        const declared = paths.slice(0, Math.max(1, paths.length - 1));
        const outside = `zz-not-declared-${seed}`;
        expect(underPaths(outside, declared)).toBe(false);
        expect(codeDigest({ ...code, [outside]: extra }, declared)).toBe(codeDigest(code, declared));
        expect(codeDigest(code, [...declared].reverse())).toBe(codeDigest(code, declared));
        // Insertion order of the files is not theirs to decide either.
        const shuffled = Object.fromEntries(Object.entries(code).reverse()) as CodeFiles;
        expect(snapshotId(shuffled)).toBe(snapshotId(code));
      }),
    );
  });

  it("name the files that changed under a phase's paths, and only those", () => {
    const before = {
      'train.py': codeEntry('file', 'a'),
      'src/m.py': codeEntry('file', 'b'),
      'eval.py': codeEntry('file', 'c'),
    };
    const now = {
      ...before,
      'src/m.py': codeEntry('exec', 'b'),
      'eval.py': codeEntry('file', 'd'),
      'src/new.py': codeEntry('file', 'e'),
    };
    expect(changedCodeFiles(before, now, ['train.py', 'src/'])).toEqual(['src/m.py', 'src/new.py']);
    expect(changedCodeFiles(before, now, ['eval.py'])).toEqual(['eval.py']);
    expect(underPaths('srcx/a.py', ['src'])).toBe(false);
  });
});
