/**
 * Small modules with one purpose each (docs/ARCHITECTURE.md, "Modules"): no file of src/ is over
 * 500 lines unless the comment at its top says why it is one concern. A long file that grew a
 * second concern is where a newcomer gets lost; one that is long for a reason says so.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';

const REPO = join(import.meta.dirname, '..', '..');
const LIMIT = 500;

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory()
      ? sourceFiles(join(dir, entry.name))
      : entry.name.endsWith('.ts')
        ? [join(dir, entry.name)]
        : [],
  );
}

/** The file's leading doc comment, where it has one. */
const topComment = (text: string): string => /^\/\*\*[\s\S]*?\*\//.exec(text)?.[0] ?? '';

describe('the modules of src/', () => {
  it(`are at most ${LIMIT} lines, or say at their top why they are one concern`, () => {
    const long = sourceFiles(join(REPO, 'src')).flatMap((file) => {
      const text = readFileSync(file, 'utf8');
      const lines = text.split('\n').length - (text.endsWith('\n') ? 1 : 0);
      return lines > LIMIT && !/\bone concern\b/.test(topComment(text))
        ? [`${relative(REPO, file)}: ${lines} lines`]
        : [];
    });
    expect(long, 'split it at its seams, or say in its top comment why it is one concern').toEqual([]);
  });
});
