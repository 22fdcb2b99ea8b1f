/**
 * docs/ARCHITECTURE.md names every folder of src/ and only those, with the core's floors as
 * eslint.config.js fences them, so the map of the layers stays the code's; docs/DESIGN.md holds
 * every rule the code cites.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';

const REPO = join(import.meta.dirname, '..', '..');

describe('docs/ARCHITECTURE.md', () => {
  const doc = readFileSync(join(REPO, 'docs', 'ARCHITECTURE.md'), 'utf8');

  it('names every folder under src/, and no path of src/ that is not there', () => {
    const folders = readdirSync(join(REPO, 'src'), { withFileTypes: true })
      .filter((d) => d.isDirectory())
      .map((d) => `src/${d.name}`);
    expect(folders.filter((f) => !doc.includes(`\`${f}\``))).toEqual([]);
    const named = [...doc.matchAll(/`(src\/[\w/.*-]+?)\/?`/g)].map((m) => m[1]!).filter((p) => !p.includes('*'));
    expect(named.filter((p) => !existsSync(join(REPO, p)))).toEqual([]);
  });

  it("gives the core's floors as eslint.config.js fences them", async () => {
    // By its URL: the configuration is JavaScript, with no types to import it by.
    const config = (await import(pathToFileURL(join(REPO, 'eslint.config.js')).href)) as { CORE_FLOORS: string[][] };
    const section = doc.slice(doc.indexOf('floor by floor'), doc.indexOf('So the plan is rendered'));
    const floors = [...section.matchAll(/^\d+\. (.+)$/gm)].map((m) =>
      [...m[1]!.matchAll(/`src\/(\w+)`/g)].map((f) => f[1]),
    );
    expect(floors).toEqual(config.CORE_FLOORS);
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
