/**
 * The disk holding the campaign's state fills up while `campaign run` is going: the run stops
 * with a clear error, the state saved before is intact, and once there is room again the same
 * command finishes without running any task twice. The state lives on a small tmpfs of the
 * test's own (mounting one needs root; elsewhere the test is skipped, loudly).
 */
import { execFileSync } from 'node:child_process';
import { mkdir, open, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import {
  attemptDirs,
  readState,
  runCli,
  startCli,
  useBuiltCliAndTemp,
  waitUntil,
  writeManifest,
} from '../helpers/cli.js';

const tempRoot = useBuiltCliAndTemp('disk-full');
const mounted: string[] = [];

function mountTmpfs(dir: string, size: string): boolean {
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', `size=${size}`, 'tmpfs', dir], { stdio: 'pipe' });
    mounted.push(dir);
    return true;
  } catch (e) {
    console.warn(`\n*** disk-full test SKIPPED: cannot mount a tmpfs here (needs root): ${(e as Error).message} ***\n`);
    return false;
  }
}

afterAll(() => {
  for (const dir of mounted) execFileSync('umount', ['-l', dir]);
});

/** Writes zeros into `file` until the disk says no more. */
async function fill(file: string): Promise<void> {
  const fh = await open(file, 'w');
  const block = Buffer.alloc(4096);
  try {
    for (;;) await fh.write(block);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'ENOSPC') throw e;
  } finally {
    await fh.close();
  }
}

describe('the state disk full mid-run', () => {
  it('stops with the reason, keeps the saved state, and finishes later without running a task twice', async () => {
    const dir = join(tempRoot(), 'full');
    const workdir = join(dir, 'work');
    const stateDir = join(dir, 'state');
    await mkdir(workdir, { recursive: true });
    await mkdir(stateDir);
    if (!mountTmpfs(stateDir, '1m')) return;
    const manifest = await writeManifest(
      dir,
      `campaign: full
cluster: { executor: local, max_parallel: 2 }
workdir: ${workdir}
phases:
  - name: p
    grid: { k: [1, 2, 3, 4, 5, 6] }
    command: sleep 1; echo \${k} > \${output}
    output: o_\${k}.txt
    walltime: 5m
`,
    );
    const args = ['run', manifest, '--state-dir', stateDir, '--poll', '0.2'];
    const first = startCli(args);
    await waitUntil('the first save', () => readState(stateDir), 60_000, 50);
    const filler = join(stateDir, 'filler');
    await fill(filler);
    const r = await first.done;
    expect(r.code, r.stdout + r.stderr).toBe(2);
    expect(r.stderr).toMatch(
      /cannot (save the campaign state|append to the event log) in .*no space left on device.*the state saved before is intact/i,
    );
    expect(r.stderr).toMatch(/fix: free space on that disk/);
    // What is on disk is a whole state, not a torn one.
    await readState(stateDir);

    await rm(filler);
    const second = await runCli(args, { timeoutMs: 120_000 });
    expect(second.code, second.stdout + second.stderr).toBe(0);
    const state = await readState(stateDir);
    for (const t of Object.values(state.tasks)) expect(t.attempts).toHaveLength(1);
    for (const [task, attempts] of await attemptDirs(workdir)) expect(attempts, task).toEqual([1]);
  }, 300_000);
});
