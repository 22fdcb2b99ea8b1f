/**
 * `campaign run` with the ssh-gpu executor over real SSH to the test sshd, against the
 * nvidia-smi stand-in: the "Done when" points of the ssh-gpu issue, each its own campaign.
 */
import { rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { readState, startCli, useBuiltCliAndTemp, waitUntil, writeManifest } from '../../helpers/cli.js';
import { gpusOfHandle } from '../../../src/exec/ssh-gpu/server.js';
import { campaignDirs, cluster, expectOnePerGpu, runCampaign, sshdUp, uuidOf, type Sshd } from './helpers.js';

const tempRoot = useBuiltCliAndTemp('ssh-gpu');
let sshd: Sshd | undefined;

beforeAll(async () => {
  sshd = await sshdUp();
  if (sshd) process.env.CAMPAIGN_SSH_KEY_FILE = sshd.keyFile;
}, 180_000);

const setUp = campaignDirs(tempRoot);

describe('ssh-gpu over SSH, with the GPU stand-in', () => {
  it('a 12-task grid on 4 GPUs completes with at most one task per GPU at a time', async (ctx) => {
    if (!sshd) return ctx.skip();
    const { dir, workdir, gpus } = await setUp('grid');
    const r = await runCampaign(
      dir,
      `campaign: grid
${cluster(sshd, gpus)}workdir: ${workdir}
phases:
  - name: grid
    grid: { seed: [1, 2, 3], n: [1, 2, 3, 4] }
    walltime: 5m
    output: out/\${seed}_\${n}.txt
    command: |
      ${gpus.log('start')}
      ${gpus.bin}/gpu-hold 2000 0.5
      ${gpus.log('end')}
      echo done > \${output}
`,
    );
    expect(r.result.code, r.result.stderr).toBe(0);
    const tasks = Object.values(r.state.tasks);
    expect(tasks).toHaveLength(12);
    for (const t of tasks) expect(t.attempts.map((a) => a.class)).toEqual(['completed']);
    const entries = await gpus.entries();
    expect(entries.filter((e) => e[0] === 'start')).toHaveLength(12);
    const used = expectOnePerGpu(entries);
    // Pinned by UUID, one GPU per task, and only GPUs of the table.
    for (const g of used) expect([0, 1, 2, 3].map(uuidOf)).toContain(g);
    expect(used.size).toBeGreaterThan(1);
  }, 180_000);

  it('a task that runs out of memory is retried after the delay on another free GPU, and completes', async (ctx) => {
    if (!sshd) return ctx.skip();
    const { dir, workdir, gpus } = await setUp('oom');
    const r = await runCampaign(
      dir,
      `campaign: oom
${cluster(sshd, gpus, '  oom:\n    retry: { attempts: 2, delay: 2s }\n')}workdir: ${workdir}
phases:
  - name: train
    walltime: 5m
    output: model.txt
    command: |
      ${gpus.log('start')}
      if [ \${attempt} = 1 ]; then
        echo 'torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 20.00 GiB' >&2
        exit 1
      fi
      echo trained > \${output}
`,
    );
    expect(r.result.code, r.result.stderr).toBe(0);
    const [a1, a2] = r.state.tasks['train/task']!.attempts;
    expect(a1!.class).toBe('out_of_memory');
    expect(a1!.reason).toMatch(/CUDA out of memory/);
    expect(a2!.class).toBe('completed');
    expect(Date.parse(a2!.submittedAt) - Date.parse(a1!.endedAt!)).toBeGreaterThanOrEqual(2000);
    const [g1] = gpusOfHandle(a1!.handle);
    const [g2] = gpusOfHandle(a2!.handle);
    expect(g1).toBeDefined();
    expect(g2).not.toBe(g1);
    expect((await gpus.entries()).map((e) => e[1])).toEqual([g1, g2]);
  }, 120_000);

  it('retries exhausted: the task ends failed with the reason, and blocks its dependents', async (ctx) => {
    if (!sshd) return ctx.skip();
    const { dir, workdir, gpus } = await setUp('oom-exhausted');
    const r = await runCampaign(
      dir,
      `campaign: oom-exhausted
${cluster(sshd, gpus, '  oom:\n    retry: { attempts: 1, delay: 1s }\n')}workdir: ${workdir}
phases:
  - name: train
    walltime: 5m
    command: |
      echo 'RuntimeError: CUDA out of memory.' >&2; exit 1
  - name: evaluate
    depends_on: [train]
    walltime: 5m
    command: ${gpus.log('start')}
`,
    );
    expect(r.result.code).toBe(1);
    const t = r.state.tasks['train/task']!;
    expect(t.status).toBe('failed');
    expect(t.attempts.map((a) => a.class)).toEqual(['out_of_memory', 'out_of_memory']);
    expect(t.reason).toMatch(/^out_of_memory: .*CUDA out of memory.*\(after 1 retries\)$/);
    expect(r.state.phases.evaluate).toMatchObject({ status: 'blocked' });
    expect(r.state.phases.evaluate!.reason).toMatch(/^dependency train failed/);
    expect(r.state.tasks['evaluate/task']).toMatchObject({ status: 'blocked', attempts: [] });
    expect(await gpus.entries()).toEqual([]);
  }, 120_000);

  it('a GPU whose memory is in use by someone else is not used until it frees', async (ctx) => {
    if (!sshd) return ctx.skip();
    const rows: [number, string, number][] = [
      [0, uuidOf(0), 3],
      [1, uuidOf(1), 30_000],
    ];
    const { dir, workdir, gpus } = await setUp('busy', rows);
    const manifest = await writeManifest(
      dir,
      `campaign: busy
${cluster(sshd, gpus)}workdir: ${workdir}
phases:
  - name: p
    grid: { seed: [1, 2, 3, 4, 5, 6] }
    walltime: 5m
    command: |
      ${gpus.log('start')}
      ${gpus.bin}/gpu-hold 2000 0.5
      ${gpus.log('end')}
`,
    );
    const stateDir = join(dir, 'state');
    const run = startCli(['run', manifest, '--state-dir', stateDir, '--poll', '0.3']);
    await waitUntil('two tasks to end', async () =>
      (await gpus.entries()).filter((e) => e[0] === 'end').length >= 2 ? true : undefined,
    );
    await gpus.mark('freed');
    await gpus.setTable([
      [0, uuidOf(0), 3],
      [1, uuidOf(1), 3],
    ]);
    const r = await run.done;
    expect(r.code, r.stderr).toBe(0);
    const entries = await gpus.entries();
    const freedAt = entries.findIndex((e) => e[0] === 'freed');
    const onBusy = entries.flatMap((e, i) => (e[0] === 'start' && e[1] === uuidOf(1) ? [i] : []));
    for (const i of onBusy) expect(i).toBeGreaterThan(freedAt);
    expect(onBusy.length).toBeGreaterThan(0);
    expect(r.stderr).toMatch(/GPU 1: 30000 MiB in use \(free below 500 MiB\)/);
    expectOnePerGpu(entries);
  }, 120_000);

  it('waves mode starts a wave only after every task of the last one exited and its GPUs settled', async (ctx) => {
    if (!sshd) return ctx.skip();
    const { dir, workdir, gpus } = await setUp('waves');
    const linger = join(gpus.dir, 'holders', `${uuidOf(0)}.linger`);
    const manifest = await writeManifest(
      dir,
      `campaign: waves
${cluster(sshd, gpus, '  mode: waves\n')}workdir: ${workdir}
phases:
  - name: p
    grid: { seed: [1, 2, 3, 4, 5, 6, 7, 8] }
    walltime: 5m
    command: |
      ${gpus.log('start')}
      ${gpus.bin}/gpu-hold 2000 0.\${seed}
      ${gpus.log('end')}
      # The first task leaves memory behind that the driver has not released yet.
      if [ \${seed} = 1 ]; then echo 2000 > ${linger}; fi
`,
    );
    const stateDir = join(dir, 'state');
    const run = startCli(['run', manifest, '--state-dir', stateDir, '--poll', '0.3']);
    await waitUntil('the first wave to end', async () =>
      (await gpus.entries()).filter((e) => e[0] === 'end').length >= 4 ? true : undefined,
    );
    // Several passes look at the server while GPU 0 has not settled; none starts the next wave.
    const seen = await gpus.probes();
    await waitUntil('three more probes', async () => ((await gpus.probes()) >= seen + 3 ? true : undefined));
    await gpus.mark('settled');
    await rm(linger);
    const r = await run.done;
    expect(r.code, r.stderr).toBe(0);
    // Within a wave the order is the machine's: a short task may end before the last one starts.
    // Between waves it is the rule's: every task of the first ended, and its GPUs settled.
    const words = (await gpus.entries()).map((e) => e[0]!);
    const settled = words.indexOf('settled');
    const wave = ['end', 'end', 'end', 'end', 'start', 'start', 'start', 'start'];
    expect([words.slice(0, settled).sort(), words.slice(settled + 1).sort()]).toEqual([wave, wave]);
    expect(r.stderr).toMatch(/the next wave waits: GPU 0 of the last wave still has 2003 MiB in use/);
  }, 120_000);

  it('the controller killed mid-run and started again reattaches to its tasks without launching any twice', async (ctx) => {
    if (!sshd) return ctx.skip();
    const { dir, workdir, gpus } = await setUp('restart');
    const release = join(dir, 'release');
    const manifest = await writeManifest(
      dir,
      `campaign: restart
${cluster(sshd, gpus)}workdir: ${workdir}
phases:
  - name: p
    grid: { seed: [1, 2, 3, 4, 5, 6] }
    walltime: 5m
    output: out/\${seed}.txt
    command: |
      ${gpus.log('start')}
      while [ ! -e ${release} ]; do sleep 0.1; done
      ${gpus.log('end')}
      echo \${seed} > \${output}
`,
    );
    const stateDir = join(dir, 'state');
    const first = startCli(['run', manifest, '--state-dir', stateDir, '--poll', '0.3']);
    await waitUntil('four tasks running', async () =>
      (await gpus.entries()).filter((e) => e[0] === 'start').length >= 4 ? true : undefined,
    );
    await waitUntil('the state to record them', async () => {
      const s = await readState(stateDir);
      return Object.values(s.tasks).filter((t) => t.attempts.length > 0).length >= 4 ? s : undefined;
    });
    first.child.kill('SIGKILL');
    await first.done;
    const seen = await gpus.probes();
    const second = startCli(['run', manifest, '--state-dir', stateDir, '--poll', '0.3']);
    // Two passes of the second controller with the tasks still running.
    await waitUntil('the second controller to look twice', async () =>
      (await gpus.probes()) >= seen + 2 ? true : undefined,
    );
    await writeFile(release, '');
    const r = await second.done;
    expect(r.code, r.stderr).toBe(0);
    const state = await readState(stateDir);
    const starts = (await gpus.entries()).filter((e) => e[0] === 'start').map((e) => e[2]);
    expect(starts.sort()).toEqual(Object.keys(state.tasks).sort());
    for (const t of Object.values(state.tasks))
      expect(t.attempts.map((a) => [a.n, a.class])).toEqual([[1, 'completed']]);
    expectOnePerGpu(await gpus.entries());
  }, 120_000);
});
