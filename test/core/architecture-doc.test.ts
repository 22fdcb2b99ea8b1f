/** docs/ARCHITECTURE.md names every folder of src/, so the map of the layers stays the code's. */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const REPO = join(import.meta.dirname, '..', '..');

describe('docs/ARCHITECTURE.md', () => {
  it('names every folder under src/', () => {
    const doc = readFileSync(join(REPO, 'docs', 'ARCHITECTURE.md'), 'utf8');
    const folders = readdirSync(join(REPO, 'src'), { withFileTypes: true })
      .filter((d) => d.isDirectory())
      .map((d) => `src/${d.name}`);
    expect(folders.filter((f) => !doc.includes(`\`${f}\``))).toEqual([]);
  });
});

/** Every file of src/ below `dir`, recursively. */
function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? sourceFiles(join(dir, e.name)) : e.name.endsWith('.ts') ? [join(dir, e.name)] : [],
  );
}

describe('docs/DESIGN.md', () => {
  const doc = readFileSync(join(REPO, 'docs', 'DESIGN.md'), 'utf8');

  it('holds every rule a comment of src/ cites', () => {
    const cited = new Set(
      sourceFiles(join(REPO, 'src')).flatMap((f) =>
        [...readFileSync(f, 'utf8').matchAll(/DESIGN rules? (\d+)/g)].map((m) => Number(m[1])),
      ),
    );
    const written = new Set([...doc.matchAll(/^(\d+)\. \*\*/gm)].map((m) => Number(m[1])));
    expect([...cited].filter((n) => !written.has(n)).sort((a, b) => a - b)).toEqual([]);
  });

  it('names only files that exist where it says a rule is enforced', () => {
    const named = [...doc.matchAll(/`(src\/[\w/.-]+)`/g)].map((m) => m[1]!);
    expect(named.length).toBeGreaterThan(10);
    const missing = named.filter((p) => {
      try {
        readdirSync(join(REPO, p.replace(/\/$/, '')));
        return false;
      } catch (e) {
        return (e as NodeJS.ErrnoException).code !== 'ENOTDIR';
      }
    });
    expect(missing).toEqual([]);
  });

  it('says that a task is its code too (rule 11)', () => {
    expect(doc).toMatch(/11\. \*\*A result deserves its name[^]*code\.paths[^]*snapshot/);
  });
});
