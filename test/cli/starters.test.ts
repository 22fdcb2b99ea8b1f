/**
 * Starters side by side: two manifests from `campaign init` in one folder each run to completion
 * on the local executor and each gathers its results, and the .gitignore keeps their state and
 * outputs out of git. Two campaigns that do claim the same outputs are told by `lint` and
 * `check` before either runs, naming both, and the second's smoke stage names the owner.
 */
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { schemaReference } from '../../src/cli/init.js';
import { runCli, useBuiltCliAndTemp } from '../helpers/cli.js';

const tempRoot = useBuiltCliAndTemp('starters');

/** A fresh folder in a git work tree (a `.git` is all init looks for). */
async function repoFolder(name: string): Promise<string> {
  const dir = join(tempRoot(), name);
  await mkdir(join(dir, '.git'), { recursive: true });
  return dir;
}

describe('two starters in one folder', () => {
  it('each runs to completion and gathers its results; the .gitignore names the state and both workdirs', async () => {
    const dir = await repoFolder('side-by-side');
    for (const name of ['first', 'second']) {
      const r = await runCli(['init', `${name}.yml`], { cwd: dir });
      expect(r.code, r.stderr).toBe(0);
    }
    expect((await readFile(join(dir, '.gitignore'), 'utf8')).split('\n')).toEqual([
      '/.campaign/',
      '/runs/first/',
      '/runs/second/',
      '',
    ]);
    const lint = await runCli(['lint', 'first.yml', 'second.yml'], { cwd: dir });
    expect(lint.code, lint.stdout).toBe(0);
    expect(lint.stdout).toBe('');

    const runs = await Promise.all(
      ['first', 'second'].map((name) => runCli(['run', `${name}.yml`], { cwd: dir, timeoutMs: 120_000 })),
    );
    for (const r of runs) expect(r.code, r.stdout + r.stderr).toBe(0);
    for (const name of ['first', 'second']) {
      const results = await runCli(['results', `${name}.yml`], { cwd: dir });
      expect(results.code, results.stderr).toBe(0);
      const [header, ...rows] = results.stdout.trim().split('\n');
      expect(header).toMatch(/^lr,status,n,planned,loss_mean,/);
      // One row per learning rate, both seeds averaged.
      expect(rows.map((row) => row.split(',').slice(0, 4).join(','))).toEqual([
        '0.1,complete,2,2',
        '0.01,complete,2,2',
      ]);
    }
  }, 240_000);

  it('points the editor at a pinned schema, or at the installed one where the package is in node_modules', async () => {
    expect(
      schemaReference(
        '/p/campaigns/x.yml',
        '/p/node_modules/@campaign-tools/campaign/schema/campaign.schema.json',
        '1.2.3',
      ),
    ).toBe('../node_modules/@campaign-tools/campaign/schema/campaign.schema.json');
    // A global install, or the tool's own checkout: not the project's to point into.
    expect(
      schemaReference(
        '/p/x.yml',
        '/usr/lib/node_modules/@campaign-tools/campaign/schema/campaign.schema.json',
        '1.2.3',
      ),
    ).toBe('https://unpkg.com/@campaign-tools/campaign@1.2.3/schema/campaign.schema.json');
    expect(schemaReference('/p/x.yml', undefined, '1.2.3')).toMatch(/@1\.2\.3\//);
  });
});

describe('two campaigns claiming the same outputs', () => {
  it('lint and check name both; the second to run has its smoke stage refused, and its checklist names the owner', async () => {
    const dir = await repoFolder('collision');
    for (const name of ['first', 'second']) await runCli(['init', `${name}.yml`], { cwd: dir });
    // The second one's workdir put where the first one's is.
    const second = (await readFile(join(dir, 'second.yml'), 'utf8')).replace(
      /^workdir: runs\/second/m,
      'workdir: runs/first',
    );
    await writeFile(join(dir, 'second.yml'), second);

    const lint = await runCli(['lint', '.'], { cwd: dir });
    expect(lint.code).toBe(1);
    const errors = lint.stdout.split('\n').filter((l) => l.includes('error shared-outputs'));
    expect(errors).toHaveLength(2);
    expect(errors[0]).toMatch(
      /^first\.yml:\d+:\d+: error shared-outputs: campaigns first and second \(second\.yml\) both write runs\/first\/_smoke\/train\/results\/seed1_lr0\.1\.jsonl and \d+ more paths/,
    );
    expect(errors[1]).toMatch(
      /^second\.yml:\d+:\d+: error shared-outputs: campaigns second and first \(first\.yml\) both write /,
    );

    const check = await runCli(['check', 'second.yml'], { cwd: dir });
    expect(check.code).toBe(1);
    expect(check.stdout).toMatch(/^FAIL {2}outputs +campaigns second and first \(first\.yml\) both write /m);

    expect((await runCli(['run', 'first.yml'], { cwd: dir, timeoutMs: 120_000 })).code).toBe(0);
    const refused = await runCli(['run', 'second.yml'], { cwd: dir, timeoutMs: 120_000 });
    expect(refused.code).toBe(1);
    const summary = await readFile(join(dir, '.campaign', 'second', 'summary.md'), 'utf8');
    expect(summary).toContain('the output paths belong to campaign first: give this campaign its own workdir');
    expect(summary).not.toContain('a value is not reaching the program');
  }, 240_000);
});
