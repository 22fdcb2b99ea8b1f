/**
 * Shell completion and the man page, both made from the command table: the bash script parses
 * (bash -n), registers itself when sourced (complete -p), and completes the table's commands,
 * options, choices and a stored state's task ids in a real bash; the man page in the package
 * is the table's, and groff reads it without a warning. Every command's help names its options
 * and gives examples.
 */
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { COMMANDS, manual } from '../../src/cli/main.js';
import { BIN, REPO, runCli, runProgram, useBuiltCliAndTemp, writeManifest } from '../helpers/cli.js';

const tempRoot = useBuiltCliAndTemp('completion');

let script: string;
let manifest: string;
let stateDir: string;
beforeAll(async () => {
  const r = await runCli(['completion', 'bash']);
  expect(r.code, r.stderr).toBe(0);
  script = join(tempRoot(), 'campaign.bash');
  await writeFile(script, r.stdout);
  const dir = join(tempRoot(), 'campaign');
  await mkdir(dir, { recursive: true });
  manifest = await writeManifest(
    dir,
    `campaign: completed
cluster: { executor: local, name: here }
workdir: work
phases:
  - name: train
    grid: { seed: [1, 2], lr: [0.1] }
    command: echo '{}' > \${output}
    output: out/\${tag}.json
    walltime: 1m
`,
  );
  stateDir = join(dir, 'state');
  const ran = await runCli(['run', manifest, '--state-dir', stateDir, '--poll', '0.2']);
  expect(ran.code, ran.stderr).toBe(0);
}, 120_000);

/** What bash completes for the words of a command line, the last being the word under the cursor. */
async function complete(...words: string[]): Promise<string[]> {
  const quoted = words.map((w) => `'${w.replace(/'/g, `'\\''`)}'`).join(' ');
  const r = await runProgram('bash', [
    '-c',
    `campaign() { '${process.execPath}' '${BIN}' "$@"; }
source '${script}'
COMP_WORDS=(campaign ${quoted}); COMP_CWORD=${words.length}
_campaign
printf '%s\\n' "\${COMPREPLY[@]}"`,
  ]);
  expect(r.code, r.stderr).toBe(0);
  return r.stdout.split('\n').filter((l) => l !== '');
}

describe('campaign completion bash', () => {
  it('parses, and registers itself for campaign when sourced', async () => {
    expect((await runProgram('bash', ['-n', script])).code).toBe(0);
    const r = await runProgram('bash', ['-c', `source '${script}'; complete -p campaign`]);
    expect(r.stdout.trim()).toBe('complete -o filenames -F _campaign campaign');
  });

  it('completes every command of the table, and each one’s options', async () => {
    expect((await complete('')).sort()).toEqual([...Object.keys(COMMANDS), 'help'].sort());
    for (const [name, c] of Object.entries(COMMANDS)) {
      const options = Object.keys(c.options).map((o) => `--${o}`);
      expect((await complete(name, '--')).sort(), name).toEqual([...options, '--help'].sort());
    }
  });

  it('completes an option’s choices, and a shell', async () => {
    expect(await complete('plan', manifest, '--format', '')).toEqual(['text', 'json']);
    expect(await complete('results', manifest, '--format', 'j')).toEqual(['jsonl']);
    expect(await complete('completion', '')).toEqual(['bash', 'zsh', 'fish']);
  });

  it('completes logs’ TASK with the task ids of the stored state, following --state-dir', async () => {
    expect(await complete('logs', manifest, '--state-dir', stateDir, 'train/')).toEqual([
      'train/seed1_lr0.1',
      'train/seed2_lr0.1',
    ]);
  });

  it('refuses a shell it does not know, naming those it does', async () => {
    const r = await runCli(['completion', 'tcsh']);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/completes in bash, zsh and fish, not tcsh/);
  });
});

describe('the man page', () => {
  it('is the command table’s, as man/campaign.1 (npm run man writes it)', async () => {
    expect(await readFile(join(REPO, 'man', 'campaign.1'), 'utf8')).toBe(await manual());
  });

  it('is in the package, and named as its man page', async () => {
    const r = await runProgram('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], { timeoutMs: 120_000 });
    expect(r.code, r.stderr).toBe(0);
    const [pack] = JSON.parse(r.stdout) as [{ files: { path: string }[] }];
    expect(pack.files.map((f) => f.path)).toContain('man/campaign.1');
    const pkg = JSON.parse(await readFile(join(REPO, 'package.json'), 'utf8')) as { man?: string };
    expect(pkg.man).toBe('./man/campaign.1');
  });

  it('reads in groff without a warning, with every command', async () => {
    // Plain text out (-P-cbou: no escape sequences, no overstriking), to be read here.
    const r = await runProgram('groff', ['-man', '-Tutf8', '-ww', '-P-cbou', join(REPO, 'man', 'campaign.1')]);
    expect(r.stderr).toBe('');
    for (const c of Object.values(COMMANDS)) expect(r.stdout).toContain(c.synopsis);
  });
});

describe('the command table', () => {
  it.each(Object.entries(COMMANDS))('%s: its help names each of its options, and gives examples', (name, c) => {
    for (const option of Object.keys(c.options)) expect(c.help, `${name} --${option}`).toContain(`--${option}`);
    expect(c.examples.length).toBeGreaterThan(0);
    for (const e of c.examples) expect(e).toMatch(new RegExp(`^campaign ${name}\\b|^source <\\(campaign ${name}\\b`));
  });
});
