/**
 * A controller killed while its tasks run leaves them running (they are detached); the next
 * `campaign run` reattaches to them by their pid files and exit markers instead of launching
 * them again.
 */
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  alive,
  attemptDir,
  attemptDirs,
  countByFirstWord,
  lines,
  readState,
  runCli,
  startCli,
  waitUntil,
  writeManifest,
  type CliResult,
  useBuiltCliAndTemp,
} from '../../helpers/cli.js';

const tempRoot = useBuiltCliAndTemp('reattach');

const TASKS = ['hold/seed1', 'hold/seed2'];

/**
 * A campaign of two tasks, in its own directory. Each task runs until the test writes
 * `release` into the workdir (at most 30 s), so it is surely running while the controller is
 * killed and restarted.
 */
async function setUp(name: string): Promise<{ manifest: string; stateDir: string; workdir: string }> {
  const dir = join(tempRoot(), name);
  await mkdir(dir, { recursive: true });
  const manifest = await writeManifest(
    dir,
    `campaign: reattach
cluster: { executor: local, max_parallel: 2 }
workdir: work
phases:
  - name: hold
    grid: { seed: [1, 2] }
    walltime: 2m
    output: out/\${seed}.txt
    command: >
      printf '%s %s\\n' \${task} \${attempt} >> starts.txt;
      for i in $(seq 600); do [ -e release ] && break; sleep 0.05; done;
      echo "seed \${seed}" > \${output};
      printf '%s %s\\n' \${task} \${attempt} >> ledger.txt
`,
  );
  return { manifest, stateDir: join(dir, 'state'), workdir: join(dir, 'work') };
}

/** Starts `campaign run`, waits until both tasks run, and SIGKILLs the controller alone. */
async function killWhileRunning(manifest: string, stateDir: string, workdir: string): Promise<Map<string, string>> {
  const run = startCli(['run', manifest, '--state-dir', stateDir, '--poll', '0.2']);
  try {
    await waitUntil('both tasks to be running', async () => {
      const state = await readState(stateDir);
      return TASKS.every((id) => state.tasks[id]?.status === 'running') ? true : undefined;
    });
  } finally {
    run.child.kill('SIGKILL');
    const r = await run.done;
    expect(r.signal).toBe('SIGKILL');
  }
  const pids = new Map<string, string>();
  for (const id of TASKS) pids.set(id, await readFile(join(attemptDir(workdir, id, 1), 'pid'), 'utf8'));
  // The tasks outlive their controller.
  for (const [id, pid] of pids) expect(await alive(Number(pid)), id).toBe(true);
  expect(await lines(join(workdir, 'ledger.txt'))).toEqual([]);
  return pids;
}

/**
 * Runs `campaign run` again; once it holds the lock, with the tasks still running, lets them
 * finish. Resolves when the run has ended.
 */
async function restart(
  manifest: string,
  stateDir: string,
  workdir: string,
  pids: Map<string, string>,
): Promise<CliResult> {
  const run = startCli(['run', manifest, '--state-dir', stateDir, '--poll', '0.2']);
  try {
    await waitUntil('the restarted run to take the lock', async () =>
      (await readFile(join(stateDir, 'lock'), 'utf8')).includes(`"pid":${run.child.pid}`) ? true : undefined,
    );
    for (const [id, pid] of pids) expect(await alive(Number(pid)), id).toBe(true);
  } finally {
    await writeFile(join(workdir, 'release'), '');
  }
  const safety = setTimeout(() => run.child.kill('SIGKILL'), 45_000);
  const r = await run.done;
  clearTimeout(safety);
  return r;
}

async function expectRanOnce(stateDir: string, workdir: string, pids: Map<string, string>): Promise<void> {
  const state = await readState(stateDir);
  const dirs = await attemptDirs(workdir);
  const starts = countByFirstWord(await lines(join(workdir, 'starts.txt')));
  const ledger = countByFirstWord(await lines(join(workdir, 'ledger.txt')));
  for (const id of TASKS) {
    const s = state.tasks[id]!;
    expect(s.status, id).toBe('completed');
    // The same attempt, followed to its end: no second attempt, no second launch.
    expect(s.attempts.map((a) => a.n)).toEqual([1]);
    expect(s.attempts[0]!.handle).toBe(`pid:${pids.get(id)!.trim()}`);
    expect(dirs.get(id)).toEqual([1]);
    expect(await readFile(join(attemptDir(workdir, id, 1), 'pid'), 'utf8')).toBe(pids.get(id));
    expect(starts.get(id), id).toBe(1);
    expect(ledger.get(id), id).toBe(1);
    expect(await readFile(join(workdir, 'out', `${id.slice(-1)}.txt`), 'utf8')).toBe(`seed ${id.slice(-1)}\n`);
  }
}

describe('a controller killed while its tasks run', () => {
  it('is restarted and reattaches to the running tasks, which complete once', async () => {
    const { manifest, stateDir, workdir } = await setUp('killed');
    const pids = await killWhileRunning(manifest, stateDir, workdir);
    const before = await readState(stateDir);
    for (const id of TASKS) expect(before.tasks[id]!.attempts[0]!.handle).toBe(`pid:${pids.get(id)!.trim()}`);

    const r = await restart(manifest, stateDir, workdir, pids);
    expect(r.code).toBe(0);
    expect(r.stderr).toMatch(/took over the lock .* is no longer running/);
    expect(r.stdout).toContain('**Every task completed.**');
    await expectRanOnce(stateDir, workdir, pids);
    // The attempt kept the times it had before the kill.
    const after = await readState(stateDir);
    for (const id of TASKS) {
      expect(after.tasks[id]!.attempts[0]!.submittedAt).toBe(before.tasks[id]!.attempts[0]!.submittedAt);
      expect(after.tasks[id]!.attempts[0]!.startedAt).toBe(before.tasks[id]!.attempts[0]!.startedAt);
    }
  }, 60_000);

  it('finds its running attempts even when state.json is lost, and launches nothing twice', async () => {
    const { manifest, stateDir, workdir } = await setUp('lost-state');
    const pids = await killWhileRunning(manifest, stateDir, workdir);
    // As after a crash between launching the tasks and saving the state that records them.
    await rm(join(stateDir, 'state.json'));
    await rm(join(stateDir, 'state.prev.json'), { force: true });

    const r = await restart(manifest, stateDir, workdir, pids);
    expect(r.code).toBe(0);
    await expectRanOnce(stateDir, workdir, pids);
  }, 60_000);
});

describe('a launch cut short before its process started', () => {
  it('is launched again, and runs once', async () => {
    const { manifest, stateDir, workdir } = await setUp('cut-short');
    // What a controller killed between recording the launch and starting the wrapper leaves.
    const dir = attemptDir(workdir, 'hold/seed1', 1);
    await mkdir(dir, { recursive: true });
    await writeFile(join(dir, 'launched'), `${new Date().toISOString()}\n`);
    await writeFile(join(workdir, 'release'), '');

    const r = await runCli(['run', manifest, '--state-dir', stateDir, '--poll', '0.2']);
    expect(r.code).toBe(0);
    const state = await readState(stateDir);
    const starts = countByFirstWord(await lines(join(workdir, 'starts.txt')));
    const ledger = countByFirstWord(await lines(join(workdir, 'ledger.txt')));
    for (const id of TASKS) {
      expect(state.tasks[id]!.attempts.map((a) => [a.n, a.class])).toEqual([[1, 'completed']]);
      expect(starts.get(id), id).toBe(1);
      expect(ledger.get(id), id).toBe(1);
    }
    expect((await attemptDirs(workdir)).get('hold/seed1')).toEqual([1]);
  }, 60_000);
});
