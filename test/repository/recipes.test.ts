/**
 * docs/ARCHITECTURE.md's recipes hold for what is already there: every executor kind, lint rule,
 * command and smoke check of src/ touches the files its recipe says, and no other. A rule or a command that
 * another file imports, or a check the controller or another module tests for by name, would
 * make the next one cost more than the recipe says.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { basename, dirname, join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { EXECUTOR_KINDS } from '../../src/plan/executor-kinds.js';

const REPO = join(import.meta.dirname, '..', '..');
const SRC = join(REPO, 'src');

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? sourceFiles(join(dir, e.name)) : e.name.endsWith('.ts') ? [join(dir, e.name)] : [],
  );
}

const FILES = new Map(sourceFiles(SRC).map((f) => [relative(REPO, f), readFileSync(f, 'utf8')]));

/** The files of src/ that import `target` (a path relative to the repository), statically or as they run. */
function importersOf(target: string): string[] {
  const wanted = target.replace(/\.ts$/, '.js');
  return [...FILES]
    .filter(([file, text]) =>
      [...text.matchAll(/(?:from|import\()\s*'(\.{1,2}\/[^']+)'/g)].some(
        (m) => relative(REPO, resolve(REPO, dirname(file), m[1]!)) === wanted,
      ),
    )
    .map(([file]) => file)
    .sort();
}

describe("docs/ARCHITECTURE.md's recipes, counted on what src/ holds", () => {
  /** The files of `folder` (but `except`) that a file of src/ other than `importer` imports. */
  const importedElsewhere = (
    folder: string,
    importer: string,
    except = '',
  ): { file: string; importers: string[] }[] => {
    const files = [...FILES.keys()].filter((f) => dirname(f) === folder && basename(f) !== except);
    expect(files.length).toBeGreaterThan(15);
    return files.map((file) => ({ file, importers: importersOf(file) })).filter((f) => f.importers.join() !== importer);
  };

  it('a lint rule is one file of src/lint/rules/ and one line of its index', () => {
    expect(importedElsewhere('src/lint/rules', 'src/lint/rules/index.ts', 'index.ts')).toEqual([]);
  });

  it('a command is one file of src/cli/commands/ and one line of the table in src/cli/main.ts', () => {
    expect(importedElsewhere('src/cli/commands', 'src/cli/main.ts')).toEqual([]);
  });

  it('an executor kind is its folder, its schema member, its traits and its opener, and the files that read its own settings', () => {
    const kinds = Object.keys(EXECUTOR_KINDS);
    const recipe = ['src/app/executors.ts', 'src/manifest/schema.ts', 'src/plan/executor-kinds.ts'];
    // Where a kind differs beyond its folder: each file narrows the cluster to its kind to read a
    // setting only that kind has, or does what only it can (campaign shell's allocation, or the
    // GPUs a server holds for it; SSH to cluster.login, which the local kind has not).
    const ownSettings: Record<string, string[]> = {
      local: ['src/app/transport-for.ts', 'src/workflow/render.ts'],
      slurm: [
        'src/app/queue-limit.ts',
        'src/app/shell.ts',
        'src/lint/rules/max-parallel-over-max-jobs.ts',
        'src/lint/rules/slurm-option-elsewhere.ts',
        'src/plan/pack.ts',
        'src/render/sbatch.ts',
      ],
      'ssh-gpu': [
        'src/app/shell.ts',
        'src/app/transport-for.ts',
        'src/decide/policy.ts',
        'src/lint/rules/gpus-beyond-server.ts',
        'src/lint/rules/pattern-nested-quantifier.ts',
        'src/lint/rules/pool-with-login.ts',
      ],
    };
    expect(Object.keys(ownSettings).sort()).toEqual([...kinds].sort());
    for (const kind of kinds) {
      const folder = `src/exec/${kind}/`;
      // Its name as the code compares it (`executor === 'slurm'`), as a table's key or the
      // schema's literal, or an import of its folder.
      const key = kind.includes('-') ? `'${kind}'` : kind;
      const named = new RegExp(
        `executor [!=]== '${kind}'|case '${kind}':|^ {2}${key}: \\{|z\\.literal\\('${kind}'\\)|from '(\\.\\./)+exec/${kind}/`,
        'm',
      );
      const files = [...FILES]
        .filter(([file, text]) => !file.startsWith(folder) && named.test(text))
        .map(([file]) => file)
        .sort();
      expect([kind, files]).toEqual([kind, [...new Set([...recipe, ...ownSettings[kind]!])].sort()]);
    }
  });

  it('a smoke check is named in the schema and the checklist, and in the controller only where it needs facts', () => {
    const schema = FILES.get('src/manifest/schema.ts')!;
    const union = schema.slice(schema.indexOf("discriminatedUnion('check'"));
    const kinds = [...union.slice(0, union.indexOf(']);')).matchAll(/check: z\.literal\('(\w+)'\)/g)].map((m) => m[1]!);
    expect(kinds).toContain('all_completed');
    const touched = Object.fromEntries(
      kinds.map((kind) => {
        // A test of a check by its kind: `check === 'records'`, `case 'records':`, the schema's literal.
        const named = new RegExp(`check === '${kind}'|case '${kind}':|check: z\\.literal\\('${kind}'\\)`);
        // Lint rules may read what a check declares (a results rule, its fields), which adds none.
        const files = [...FILES].filter(([file, text]) => !file.startsWith('src/lint/') && named.test(text));
        return [kind, files.map(([file]) => file).sort()];
      }),
    );
    const two = ['src/judge/checklist.ts', 'src/manifest/schema.ts'];
    const three = ['src/exec/controller.ts', ...two];
    // Those whose facts the controller gathers: records (the outputs' text) and command (runCheck).
    const withFacts = new Set(['records', 'command']);
    for (const kind of kinds) expect([kind, touched[kind]]).toEqual([kind, withFacts.has(kind) ? three : two]);
  });
});
