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
