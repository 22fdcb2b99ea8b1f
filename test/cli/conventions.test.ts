/**
 * The command line keeps the conventions users expect: `--help` on every command, `--version`,
 * a "did you mean" for a mistyped command, lint over folders, no manifest silently ignored,
 * and `status --format json`; and the table is the commands' files, one a command.
 */
import { copyFile, mkdir, readdir, readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { COMMANDS as TABLE, main } from '../../src/cli/main.js';
import { REPO, makeTemp } from '../helpers/cli.js';

/** `campaign ...args` in this process (each command's text is all it needs), with what it wrote. */
async function runCli(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  let stdout = '';
  let stderr = '';
  const out = vi.spyOn(process.stdout, 'write').mockImplementation((chunk) => ((stdout += String(chunk)), true));
  const err = vi.spyOn(process.stderr, 'write').mockImplementation((chunk) => ((stderr += String(chunk)), true));
  try {
    return { code: await main(args), stdout, stderr };
  } finally {
    out.mockRestore();
    err.mockRestore();
  }
}

let root: string | undefined;
const tempRoot = async (): Promise<string> => (root ??= await makeTemp('conventions'));
afterAll(() => (root ? rm(root, { recursive: true, force: true }) : undefined));
const COMMANDS = Object.keys(TABLE);

describe('the command line', () => {
  it.each(COMMANDS)('campaign %s --help says how to use it, and exits 0', async (command) => {
    const r = await runCli([command, '--help']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(new RegExp(`^usage: campaign ${command}\\b`));
    expect(r.stdout).toContain('Exit status');
  });

  it('the table holds each file of src/cli/commands/, by its name (the hidden __tasks aside)', async () => {
    const files = (await readdir(join(REPO, 'src/cli/commands'))).map((f) => f.replace(/\.ts$/, ''));
    expect(files.filter((f) => f !== 'tasks').sort()).toEqual([...COMMANDS].sort());
    for (const name of COMMANDS) {
      const file = (await import(`../../src/cli/commands/${name}.ts`)) as { command: unknown };
      expect(file.command, name).toBe(TABLE[name]);
    }
  });

  it('campaign help lists every command; campaign help CMD is that command', async () => {
    const all = await runCli(['help']);
    for (const c of COMMANDS) expect(all.stdout).toMatch(new RegExp(`^  ${c}\\b`, 'm'));
    expect((await runCli(['help', 'status'])).stdout).toMatch(/^usage: campaign status FILE/);
  });

  it('campaign --version prints the package version', async () => {
    const { version } = JSON.parse(await readFile(join(REPO, 'package.json'), 'utf8')) as { version: string };
    for (const flag of ['--version', '-V']) expect((await runCli([flag])).stdout).toBe(`campaign ${version}\n`);
  });

  it('a mistyped command gets a "did you mean", exit 2', async () => {
    const r = await runCli(['lnt', 'examples']);
    expect(r.code).toBe(2);
    expect(r.stderr).toBe('campaign: unknown command "lnt"; did you mean "lint"? (fix: campaign lint examples)\n');
    expect((await runCli(['frobnicate'])).stderr).toMatch(/unknown command "frobnicate" \(fix: run `campaign help`/);
  });

  it('a second manifest is refused, not ignored', async () => {
    const r = await runCli(['plan', 'examples/quickstart.yml', 'examples/distill.yml']);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/takes one manifest; also given: examples\/distill\.yml/);
  });

  it('lint takes folders, as the lint action does', async () => {
    const dir = join(await tempRoot(), 'manifests');
    await mkdir(dir, { recursive: true });
    await copyFile(join(REPO, 'examples/quickstart.yml'), join(dir, 'a.yml'));
    await copyFile(join(REPO, 'test/fixtures/broken/unknown-variable.yml'), join(dir, 'b.yaml'));
    const r = await runCli(['lint', dir]);
    expect(r.code).toBe(1);
    expect(r.stdout).toContain(`${join(dir, 'b.yaml')}:10:`);
    expect(r.stdout).toContain('error unknown-variable');
    const missing = await runCli(['lint', join(dir, 'nope')]);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toMatch(/lint: .*nope does not exist/);
  });

  it('status --format json: the phases, the stopped tasks, whether it is complete', async () => {
    const dir = join(await tempRoot(), 'status');
    await mkdir(dir, { recursive: true });
    const manifest = join(dir, 'quickstart.yml');
    await copyFile(join(REPO, 'examples/quickstart.yml'), manifest);
    const r = await runCli(['status', manifest, '--format', 'json', '--state-dir', join(dir, 'state')]);
    expect(r.code).toBe(1);
    const status = JSON.parse(r.stdout) as { phases: { phase: string }[]; stopped: unknown[]; complete: boolean };
    expect(status.complete).toBe(false);
    expect(status.stopped).toEqual([]);
    expect(status.phases.length).toBeGreaterThan(0);
    const summary = await runCli(['summary', manifest, '--format', 'json', '--state-dir', join(dir, 'state')]);
    expect(JSON.parse(summary.stdout)).toMatchObject({ campaign: 'quickstart', complete: false, stopped: [] });
  });

  it('init writes a starter manifest that lints clean, never over a file, and with --workflow its workflow', async () => {
    const repo = join(await tempRoot(), 'repo');
    await mkdir(join(repo, '.git'), { recursive: true });
    const file = join(repo, 'campaigns', 'sweep.yml');
    const r = await runCli(['init', file, '--workflow']);
    expect(r.code, r.stderr).toBe(0);
    const lint = await runCli(['lint', file]);
    expect(lint.code).toBe(0);
    expect(lint.stdout).toBe('');
    expect(await readFile(join(repo, '.github/workflows/campaign-sweep.yml'), 'utf8')).toContain('campaigns/sweep.yml');
    const again = await runCli(['init', file]);
    expect(again.code).toBe(2);
    expect(again.stderr).toMatch(/sweep\.yml exists; init writes only a new file/);
  });
});
