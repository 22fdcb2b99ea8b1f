/**
 * The README's first screen takes a new user from install to a summary on `local`, and the
 * deep sections live in docs/: every relative link of the README and of docs/ reaches a file,
 * and a heading where it names one, so a section moved between pages cannot leave a link behind.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, normalize, relative } from 'node:path';
import { describe, expect, it } from 'vitest';

const REPO = join(import.meta.dirname, '..', '..');
const README = join(REPO, 'README.md');

/** The text outside fenced code blocks, where a heading or a link is one. */
function prose(text: string): string {
  return text.replace(/^```[^]*?^```/gm, '');
}

/** The anchors GitHub gives a page's headings. */
function anchors(file: string): Set<string> {
  const headings = [...prose(readFileSync(file, 'utf8')).matchAll(/^#+ (.+)$/gm)].map((m) => m[1]!.trim());
  return new Set(
    headings.map((h) =>
      h
        .toLowerCase()
        .replace(/[^\p{L}\p{N}_\- ]/gu, '')
        .replace(/ /g, '-'),
    ),
  );
}

describe('the README', () => {
  const readme = readFileSync(README, 'utf8');

  it('goes from install to a summary and results on local in its first 60 lines', () => {
    const first = readme.split('\n').slice(0, 60).join('\n');
    expect(first).toMatch(/npm install .*@campaign-tools\/campaign/);
    for (const command of ['init', 'lint', 'plan', 'run', 'status', 'summary', 'results'])
      expect(first).toMatch(new RegExp(`campaign ${command} campaigns/`));
    expect(first).toContain('.gitignore');
    // The starter runs here: no cluster before the summary.
    expect(first).not.toMatch(/executor: (slurm|ssh-gpu)|sbatch|host_key/);
  });

  it('keeps the two commands of this repository and the exit statuses', () => {
    expect(readme).toContain('npm ci && npm start');
    expect(readme).toMatch(/^npm test /m);
    expect(readme).toMatch(/^Exit status: 0 success/m);
  });

  it('links every page of docs/', () => {
    const pages = readdirSync(join(REPO, 'docs')).filter((f) => f.endsWith('.md'));
    expect(pages.filter((p) => !readme.includes(`](docs/${p})`))).toEqual([]);
  });
});

describe('the links of the README and docs/', () => {
  const pages = [
    README,
    ...readdirSync(join(REPO, 'docs')).flatMap((f) => (f.endsWith('.md') ? [join(REPO, 'docs', f)] : [])),
  ];

  it('reach a file, and a heading where they name one', () => {
    const broken: string[] = [];
    for (const page of pages)
      for (const [, target] of prose(readFileSync(page, 'utf8')).matchAll(/\]\(([^)\s]+)\)/g)) {
        if (/^[a-z]+:/.test(target!)) continue;
        const [path, anchor] = target!.split('#') as [string, string | undefined];
        const file = path ? normalize(join(dirname(page), path)) : page;
        const where = `${relative(REPO, page)}: ${target}`;
        if (!existsSync(file)) broken.push(`${where} (no such file)`);
        else if (anchor && file.endsWith('.md') && !anchors(file).has(anchor))
          broken.push(`${where} (no such heading)`);
      }
    expect(broken).toEqual([]);
  });
});
