/**
 * `campaign logs` reads a task's log from where its executor put it (and follows it while a run
 * drives the campaign), and `campaign cancel` stops a local campaign's running tasks, each one's
 * whole process group, and records them cancelled. Real processes on this machine.
 */
import { mkdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readState, runCli, startCli, useBuiltCliAndTemp, waitUntil, writeManifest } from '../helpers/cli.js';

const tempRoot = useBuiltCliAndTemp('logs-cancel');

const manifest = async (dir: string, command: string, walltime = '5m') => {
  await mkdir(dir, { recursive: true });
  return writeManifest(
    dir,
    `campaign: lc
cluster: { executor: local, max_parallel: 2 }
workdir: work
phases:
  - name: p
    grid: { k: [1, 2] }
    command: ${JSON.stringify(command)}
    output: o_\${k}.txt
    walltime: ${walltime}
`,
  );
};

const alive = (pid: number): boolean => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

describe('campaign logs and cancel (local executor)', () => {
  it('logs prints a finished task’s log, follows a running one to its end, and names a task it lacks', async () => {
    const dir = join(tempRoot(), 'logs');
    const file = await manifest(
      dir,
      'for i in 1 2 3 4 5; do echo "line $i of ${k}"; sleep 0.4; done; echo ok > ${output}',
    );
    const stateDir = join(dir, 'state');
    const run = startCli(['run', file, '--state-dir', stateDir]);
    await waitUntil(
      'a running task',
      async () => ((await readState(stateDir)).tasks['p/k1']?.attempts.length ? true : undefined),
      30_000,
      100,
    );
    const followed = await runCli(['logs', file, 'p/k1', '--follow', '--state-dir', stateDir], { timeoutMs: 60_000 });
    expect(followed.code, followed.stderr).toBe(0);
    // The task's own lines, each once and in order, among the lines campaign's task script writes.
    const own = followed.stdout.split('\n').filter((l) => !l.startsWith('[campaign]') && l !== '');
    expect(own).toEqual([1, 2, 3, 4, 5].map((i) => `line ${i} of 1`));
    expect((await run.done).code).toBe(0);

    const done = await runCli(['logs', file, 'p/k2', '--state-dir', stateDir]);
    expect(done.stdout).toContain('line 5 of 2\n');
    const wrong = await runCli(['logs', file, 'p/k3', '--state-dir', stateDir]);
    expect(wrong.code).toBe(2);
    expect(wrong.stderr).toMatch(/lc has no task p\/k3; did you mean p\/k\d\?/);
    const noAttempt = await runCli(['logs', file, 'p/k1', '--attempt', '2', '--state-dir', stateDir]);
    expect(noAttempt.stderr).toMatch(/p\/k1 has no attempt 2; it has 1/);
  }, 120_000);

  it('cancel stops each running task’s whole process group and records it cancelled', async () => {
    const dir = join(tempRoot(), 'cancel');
    // Each task leaves a child of its own behind it in the group: the cancel must reach it too.
    const file = await manifest(dir, '(sleep 300 & echo $! > child_${k}.pid; wait) & sleep 300; echo ok > ${output}');
    const stateDir = join(dir, 'state');
    const run = startCli(['run', file, '--state-dir', stateDir]);
    const pids = await waitUntil(
      'both tasks and their children running',
      async () => {
        const read = (k: number) => readFile(join(dir, 'work', `child_${k}.pid`), 'utf8').then((t) => Number(t.trim()));
        const [a, b] = await Promise.all([read(1), read(2)]);
        return a > 0 && b > 0 ? [a, b] : undefined;
      },
      30_000,
      100,
    );
    // Ctrl-C stops the run after the pass under way, which saves what it submitted; the tasks run on.
    run.child.kill('SIGINT');
    const stopped = await run.done;
    expect(stopped.code).toBe(130);
    expect(stopped.stderr).toMatch(/stopping after this pass \(again to stop at once\); running tasks go on/);
    for (const pid of pids) expect(alive(pid)).toBe(true);

    const r = await runCli(['cancel', file, '--state-dir', stateDir], { timeoutMs: 90_000 });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout.split('\n').filter(Boolean).sort()).toEqual(['cancelled p/k1', 'cancelled p/k2']);
    await waitUntil('the children gone', async () => (pids.every((p) => !alive(p)) ? true : undefined), 30_000, 100);
    const state = await readState(stateDir);
    for (const id of ['p/k1', 'p/k2']) expect(state.tasks[id]!.attempts.map((a) => a.class)).toEqual(['cancelled']);
  }, 120_000);
});
