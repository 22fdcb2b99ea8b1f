/**
 * Every script the ssh-gpu executor generates (the attempt wrapper, the pass's query, the launch,
 * the cancel) and the GPU stand-in's own scripts pass shellcheck, for paths and
 * probe commands with spaces, quotes and `$`.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { DEFAULT_PROBE } from '../../src/decide/gpu.js';
import { renderLaunch, renderQuery } from '../../src/render/ssh-gpu.js';
import { CANCEL_FILE, renderCancel, renderWrapper } from '../../src/render/wrapper.js';

const root = mkdtempSync(join(tmpdir(), 'campaign-ssh-gpu-sc-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

/** shellcheck's findings at warning level or above, as `file:line: SCnnnn message`. */
function shellcheck(files: readonly string[]): string[] {
  const r = spawnSync('shellcheck', ['-s', 'bash', '-S', 'warning', '-f', 'gcc', ...files], { encoding: 'utf8' });
  if (r.error) throw r.error;
  return r.stdout.split('\n').filter(Boolean);
}

const odd = '/tmp/it\'s a "dir" $(touch x)/attempts/p/seed1/2';

describe('generated ssh-gpu scripts', () => {
  const scripts: Record<string, string> = {
    'wrapper (remote)': renderWrapper({ dir: odd, walltimeSeconds: 7200, killAfterSeconds: 10, envFile: true }),
    'wrapper (local)': renderWrapper({ dir: odd, walltimeSeconds: 0.5, killAfterSeconds: 10 }),
    query: renderQuery(DEFAULT_PROBE, 20, `${odd}/wave`, `${odd}/shells`),
    'query, odd probe': renderQuery(`PATH="$HOME/bin:$PATH" nvidia-smi --x='a b' | head`, 3, 'wave', 'shells'),
    launch: renderLaunch(),
    cancel: renderCancel(CANCEL_FILE, 10),
  };
  for (const [name, text] of Object.entries(scripts)) {
    it(`${name} passes shellcheck`, () => {
      const file = join(root, `${name.replace(/\W+/g, '-')}.sh`);
      writeFileSync(file, `#!/usr/bin/env bash\n${text}`);
      expect(shellcheck([file])).toEqual([]);
    });
  }

  it("the GPU stand-in's nvidia-smi and gpu-hold pass shellcheck", () => {
    const dir = resolve(import.meta.dirname, '../../scripts/gpu-stand-in');
    expect(shellcheck([join(dir, 'nvidia-smi'), join(dir, 'gpu-hold')])).toEqual([]);
  });
});

describe('the cancel, run with real bash', () => {
  // kill and setsid are shadowed by functions that record their arguments: nothing is signalled.
  const cancel = (pgid: string): { kills: string; marked: boolean } => {
    const dir = mkdtempSync(join(root, 'cancel-'));
    writeFileSync(join(dir, 'pgid'), `${pgid}\n`);
    const log = join(dir, 'kills');
    const shadow = `kill() { printf 'kill %s\\n' "$*" >> ${JSON.stringify(log)}; }\nsetsid() { printf 'setsid\\n' >> ${JSON.stringify(log)}; }\n`;
    const r = spawnSync('bash', ['-c', shadow + renderCancel(CANCEL_FILE, 10)], {
      input: `${dir}\n`,
      encoding: 'utf8',
    });
    if (r.error) throw r.error;
    const kills = spawnSync('cat', [log], { encoding: 'utf8' }).stdout;
    return { kills, marked: spawnSync('test', ['-e', join(dir, CANCEL_FILE)]).status === 0 };
  };

  it('signals the process group its pgid file names', () => {
    expect(cancel('4242')).toEqual({ kills: 'kill -TERM -- -4242\nsetsid\n', marked: true });
  });

  it('never signals a pgid that is not a canonical number above 1 (kill -- -1 would reach every process of the user)', () => {
    // A leading zero is refused: `kill -TERM -- -01` is kill(-1).
    for (const bad of ['1', '0', '-1', '', '1 2', '$(touch x)', '12a', '01', '001', '00', '+1', ' 1', '0x1']) {
      expect(cancel(bad), JSON.stringify(bad)).toEqual({ kills: '', marked: false });
    }
  });
});
