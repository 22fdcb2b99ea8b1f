/**
 * Full disks. The one holding the campaign's state fills up while `campaign run` is going: the
 * run stops with a clear error, the state saved before is intact, and once there is room again
 * the same command finishes without running any task twice. The cluster's disk where tasks
 * write their outputs is full: the campaign pauses with an alert instead of spending retries,
 * and finishes once there is room; the indices still waiting in Slurm's queue are taken out of
 * it (none of them starts while the disk is full, as `squeue -r` watched throughout shows) and
 * sent again by the next run, none lost. Each disk is a small tmpfs of the test's own (mounting one
 * needs root; elsewhere the tests are skipped, loudly).
 */
import { execFileSync } from 'node:child_process';
import { mkdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { clusterIsUp, jobsNamed, ONE_AT_A_TIME, slurm, slurmCampaign } from '../helpers/slurm-cluster.js';
import { fillDisk, smallDisks } from '../helpers/full-disk.js';
import { sshdUp } from '../exec/transport/sshd.js';
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
const mountTmpfs = smallDisks('disk-full test');

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
    await fillDisk(filler);
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

  it.runIf(clusterIsUp('cluster disk-full test'))(
    "the cluster's output disk full: the campaign pauses without spending retries, and finishes once there is room",
    async (ctx) => {
      const sshd = await sshdUp();
      if (!sshd) return ctx.skip();
      const { name, workdir, manifest, stateDir } = await slurmCampaign(
        tempRoot(),
        'cluster-full',
        sshd,
        `  - name: p
    grid: { k: [1, 2, 3, 4, 5] }
    command: sleep 4 && head -c 100000 /dev/zero > \${output}
    output: out/o_\${k}.bin
    walltime: 5m
    slurm_args: ["--licenses=${ONE_AT_A_TIME.diskFull}"]
    retry: { failed: { attempts: 3 } }
  - name: q
    depends_on: p
    command: 'true'
    walltime: 5m
`,
        // The whole array in the queue at once, one task running at a time (each holds the
        // test's license): the rest wait there, to be held when the disk fills.
        5,
      );
      const out = join(workdir, 'out');
      await mkdir(out);
      // Room for two outputs of 100 kB and no more.
      if (!mountTmpfs(out, '256k')) return;
      const args = ['run', manifest, '--state-dir', stateDir, '--poll', '1'];
      const env = { ...process.env, CAMPAIGN_SSH_KEY_FILE: sshd.keyFile };
      const running = startCli(args, { env });
      // Every array index of the campaign seen running, watched with squeue -r until the run ends.
      const seenRunning = new Set<string>();
      let over = false;
      const watched = running.done.finally(() => (over = true));
      while (!over) {
        const queue = slurm('squeue', ['-r', '-h', '-o', '%i %T %j']);
        for (const [id, st, job] of queue.split('\n').map((l) => l.trim().split(/\s+/)))
          if (job?.startsWith(`${name}~`) && st === 'RUNNING') seenRunning.add(id!);
        await new Promise((r) => setTimeout(r, 200));
      }
      const first = await watched;
      expect(first.code, first.stdout + first.stderr).toBe(1);
      // How many found it themselves and how many were held depends on how soon the pause began.
      expect(first.stderr).toMatch(
        /paused: \d+ tasks? found the disk full \(the disk is full: .*No space left on device/,
      );
      let state = await readState(stateDir);
      const full = Object.entries(state.tasks).filter(([, t]) => t.attempts.at(-1)?.class === 'disk_full');
      expect(full.map(([id]) => id).sort(), JSON.stringify(state.tasks)).toEqual(['p/k3', 'p/k4', 'p/k5']);
      // No retry spent, although the phase allows three for failures.
      for (const [, t] of full) expect(t.attempts).toHaveLength(1);
      // The indices still waiting in the queue (one runs at a time) once k3 was seen to find the
      // disk full were taken out of it and never started: one of k4 and k5 at least (the next
      // may have started as k3 ended, before the controller could know, and found the disk full
      // itself; Slurm starts an array's waiting indices in no promised order, and once started
      // k5 before k4). Each task waits 4 s before it writes, so the controller sees k3's end
      // before the next can end.
      const held = full.filter(([, t]) => t.attempts[0]!.reason?.startsWith('held: '));
      expect(held.map(([id]) => id).filter((id) => id === 'p/k4' || id === 'p/k5')).not.toEqual([]);
      // Held, not failed: no retry spent, and never started. An index that started between the
      // decision to hold it and its scancel is not held: it ran, and found the disk full itself.
      for (const [id, t] of held) {
        expect(t.attempts[0]!.startedAt, id).toBeUndefined();
        expect([...seenRunning], id).not.toContain(t.attempts[0]!.handle);
      }
      expect(seenRunning.size).toBeGreaterThan(0);
      expect(state.tasks['q/task']!.attempts).toHaveLength(0);

      execFileSync('mount', ['-o', 'remount,size=2m', out]);
      const second = await runCli(args, { timeoutMs: 300_000, env });
      expect(second.code, second.stdout + second.stderr).toBe(0);
      state = await readState(stateDir);
      for (const [id] of full)
        expect(state.tasks[id]!.attempts.map((a) => a.class)).toEqual(['disk_full', 'completed']);
      expect(state.tasks['q/task']!.status).toBe('completed');
      // The first array, the three sent again, and q.
      expect(jobsNamed(`${name}~`)).toHaveLength(3);
    },
    400_000,
  );
});
