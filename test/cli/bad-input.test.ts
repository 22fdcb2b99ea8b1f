/**
 * Input no command can use is said as such, with the way out, and exits 2: never a crash
 * (exit 3), never minutes of parsing first.
 */
import { mkdir, open, readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli, useBuiltCliAndTemp, writeManifest } from '../helpers/cli.js';

const tempRoot = useBuiltCliAndTemp('bad-input');

const manifest = `campaign: bad
cluster: { executor: local }
workdir: work
phases:
  - name: p
    command: echo hi > \${output}
    output: out.txt
    walltime: 1m
`;

describe('bad input', () => {
  it('a state.json that is a directory: exit 2, naming it and the way out', async () => {
    const dir = join(tempRoot(), 'state-dir');
    await mkdir(join(dir, 'state', 'state.json'), { recursive: true });
    const file = await writeManifest(dir, manifest);
    for (const command of ['status', 'run', 'summary']) {
      const r = await runCli([command, file, '--state-dir', join(dir, 'state')]);
      expect(r.code, `${command}: ${r.stderr}`).toBe(2);
      expect(r.stderr).toMatch(/state\.json is not a file \(fix: move it away/);
    }
  });

  it('a manifest far larger than any manifest is refused before it is parsed', async () => {
    const dir = join(tempRoot(), 'huge');
    await mkdir(dir, { recursive: true });
    const file = join(dir, 'huge.yml');
    // A sparse file: its size, not its bytes, is what the check looks at.
    const fh = await open(file, 'w');
    await fh.truncate(97 * 2 ** 20);
    await fh.close();
    const r = await runCli(['lint', file]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/huge\.yml is 97\.0 MiB; a manifest is at most 16 MiB/);
  });

  it('a corrupt state is said by the commands that only read it, and changed by none of them', async () => {
    const dir = join(tempRoot(), 'corrupt');
    await mkdir(dir, { recursive: true });
    const file = await writeManifest(dir, manifest);
    const stateDir = join(dir, 'state');
    expect((await runCli(['run', file, '--state-dir', stateDir, '--poll', '0.2'])).code).toBe(0);
    await writeFile(join(stateDir, 'state.prev.json'), await readFile(join(stateDir, 'state.json')));
    await writeFile(join(stateDir, 'state.json'), '{"version": 1, "campaign": "bad", "tru');
    const before = await readdir(stateDir);
    for (const command of ['status', 'summary', 'plan', 'calibrate']) {
      const r = await runCli([command, file, '--state-dir', stateDir]);
      expect(r.code, `${command}: ${r.stderr}`).toBe(2);
      expect(r.stderr).toMatch(/state\.json is corrupt: .*this command changes nothing/);
      expect(await readFile(join(stateDir, 'state.json'), 'utf8')).toBe('{"version": 1, "campaign": "bad", "tru');
      expect(await readdir(stateDir)).toEqual(before);
    }
  });
});
