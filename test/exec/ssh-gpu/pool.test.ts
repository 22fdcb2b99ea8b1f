/**
 * A pool of GPU servers (cluster.servers): the shared test sshd and a second sshd of this test's
 * own on loopback act as two servers, each with its own nvidia-smi stand-in (the probe picks it
 * by the port the connection came in on, from SSH_CONNECTION). Both serve this machine, so they
 * share the workdir, as a pool's servers must.
 */
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_PROBE } from '../../../src/decide/gpu.js';
import { serverOfHandle } from '../../../src/exec/ssh-gpu/server.js';
import { readState, runCli, startCli, useBuiltCliAndTemp, waitUntil, writeManifest } from '../../helpers/cli.js';
import { sshdCrash } from '../transport/sshd.js';
import { expectOnePerGpu, sshdUp, StandIn, type Row, type Sshd } from './helpers.js';

const SECOND_DIR = '/tmp/campaign-sshd-pool';
const SECOND_PORT = 16040;

const tempRoot = useBuiltCliAndTemp('ssh-gpu-pool');
let first: Sshd | undefined;
let second: Sshd | undefined;

const port = (s: Sshd): string => s.target.split(':').pop()!;
/** GPUs with UUIDs of their server's own (GPU-<port>…), so that a ledger line says where a task ran. */
const rowsOf = (s: Sshd, n: number): Row[] =>
  Array.from({ length: n }, (_, i) => [
    i,
    `GPU-${port(s)}${String(i).padStart(3, '0')}-aaaa-4bbb-8ccc-dddddddddddd`,
    3,
  ]);
const onServer = (s: Sshd, gpu: string): boolean => gpu.startsWith(`GPU-${port(s)}`);

/** The second sshd lets the first one's client key in too: the campaign logs in to both with one key. */
async function letFirstKeyIn(): Promise<void> {
  const keys = await Promise.all([first!, second!].map((s) => readFile(`${s.keyFile}.pub`, 'utf8')));
  await writeFile(join(SECOND_DIR, 'authorized_keys'), keys.join(''));
}

beforeAll(async () => {
  [first, second] = await Promise.all([sshdUp(), sshdUp(SECOND_DIR, SECOND_PORT)]);
  if (!first || !second) return;
  process.env.CAMPAIGN_SSH_KEY_FILE = first.keyFile;
  await letFirstKeyIn();
}, 180_000);

/** A campaign directory with a stand-in per server, and the cluster block of the pool of both. */
async function setUp(name: string, gpusEach: number, extra = '') {
  const dir = join(tempRoot(), name);
  const stand = await Promise.all(
    [first!, second!].map((s) => StandIn.install(join(dir, `gpus-${port(s)}`), rowsOf(s, gpusEach))),
  );
  const ledger = join(dir, 'ledger');
  // SSH_CONNECTION is "client port server port": $4 is the port of the server asked.
  const probe = `set -- $SSH_CONNECTION; "${dir}/gpus-$4/bin/nvidia-smi" ${DEFAULT_PROBE.split(' ').slice(1).join(' ')}`;
  const cluster = `cluster:
  executor: ssh-gpu
  servers:
${[first!, second!].map((s) => `    - login: ${s.target}\n      host_key: ${s.fingerprint}\n`).join('')}  probe: >-
    ${probe}
  probe_timeout: 3s
${extra}`;
  const log = (word: string) => `printf '${word} %s %s\\n' "$CUDA_VISIBLE_DEVICES" "$CAMPAIGN_TASK" >> ${ledger}`;
  const entries = async (): Promise<string[][]> =>
    (await readFile(ledger, 'utf8').catch(() => ''))
      .split('\n')
      .filter(Boolean)
      .map((l) => l.split(' '));
  return { dir, stand, cluster, log, entries, workdir: join(dir, 'work') };
}

describe('ssh-gpu over a pool of two servers', () => {
  // The first two share nothing and run at once; the outage runs alone, after them.
  it.concurrent(
    'an OOM on a server with no other free GPU is retried on the other server’s free GPU',
    async (ctx) => {
      if (!first || !second) return ctx.skip();
      const { dir, cluster, log, entries, workdir } = await setUp(
        'oom',
        1,
        '  oom:\n    retry: { attempts: 1, delay: 1s }\n',
      );
      const manifest = await writeManifest(
        dir,
        `campaign: pool-oom
${cluster}workdir: ${workdir}
phases:
  - name: train
    walltime: 30s
    command: |
      ${log('start')}
      if [ \${attempt} = 1 ]; then echo 'torch.OutOfMemoryError: CUDA out of memory.' >&2; exit 1; fi
`,
      );
      const r = await runCli(['run', manifest, '--state-dir', join(dir, 'state'), '--poll', '0.3'], {
        timeoutMs: 60_000,
      });
      expect(r.code, r.stderr).toBe(0);
      const [a1, a2] = (await readState(join(dir, 'state'))).tasks['train/task']!.attempts;
      expect(a1!.class).toBe('out_of_memory');
      expect(a2!.class).toBe('completed');
      // The handle names the server: a resumed controller knows where each attempt runs.
      expect([serverOfHandle(a1!.handle), serverOfHandle(a2!.handle)]).toEqual([first!.target, second!.target]);
      const gpus = (await entries()).map((e) => e[1]!);
      expect(gpus).toHaveLength(2);
      expect(onServer(first!, gpus[0]!) && onServer(second!, gpus[1]!)).toBe(true);
    },
    90_000,
  );

  it.concurrent(
    'campaign check probes every server and finds the workdir shared',
    async (ctx) => {
      if (!first || !second) return ctx.skip();
      const { dir, cluster, workdir } = await setUp('check', 2);
      const manifest = await writeManifest(
        dir,
        `campaign: pool-check
${cluster}workdir: ${workdir}
phases:
  - name: p
    walltime: 30s
    command: echo hi
`,
      );
      const r = await runCli(['check', manifest]);
      expect(r.code, r.stderr).toBe(0);
      for (const s of [first, second]) expect(r.stdout).toContain(`gpus     ${s.target}: 2 of 2 GPUs free`);
      expect(r.stdout).toContain('the servers that answer share the workdir');
    },
    60_000,
  );

  it('24 tasks spread over both; the second server stopped mid-run delays its tasks, none lost or started twice', async (ctx) => {
    if (!first || !second) return ctx.skip();
    const { dir, cluster, log, entries, workdir } = await setUp('outage', 4);
    const manifest = await writeManifest(
      dir,
      `campaign: pool-outage
${cluster}workdir: ${workdir}
phases:
  - name: grid
    grid: { i: [${Array.from({ length: 24 }, (_, i) => i + 1).join(', ')}] }
    walltime: 40s
    output: out/\${i}.txt
    command: |
      ${log('start')}
      sleep 3
      ${log('end')}
      echo done > \${output}
`,
    );
    const run = startCli(['run', manifest, '--state-dir', join(dir, 'state'), '--poll', '0.3']);
    try {
      await waitUntil(
        'a task to start on the second server',
        async () => ((await entries()).some((e) => e[0] === 'start' && onServer(second!, e[1]!)) ? true : undefined),
        30_000,
      );
      await sshdCrash(SECOND_DIR);
      // A launch the crash cut off may still start its task there: it was sent before the
      // outage. Such a start is written within moments; from then on none may come.
      const startsOnSecond = async () =>
        (await entries()).filter((e) => e[0] === 'start' && onServer(second!, e[1]!)).length;
      let quiet = { count: await startsOnSecond(), since: Date.now() };
      await waitUntil(
        'the second server’s launches cut off by the crash to settle',
        async () => {
          const count = await startsOnSecond();
          if (count !== quiet.count) quiet = { count, since: Date.now() };
          return Date.now() - quiet.since >= 2_000 ? true : undefined;
        },
        30_000,
        100,
      );
      const stoppedAt = (await entries()).length;
      // Until the tasks running there have ended, which nobody can see, and the first server has
      // started more: the pool keeps going.
      await waitUntil(
        'the second server’s tasks to end and the first server to start more',
        async () => {
          const all = await entries();
          const on = (word: string) =>
            all
              .filter((e) => e[0] === word && onServer(second!, e[1]!))
              .map((e) => e[2])
              .sort();
          const later = all.slice(stoppedAt).some((e) => e[0] === 'start' && onServer(first!, e[1]!));
          return later && on('start').join() === on('end').join() ? true : undefined;
        },
        30_000,
        100,
      );
      const during = (await entries()).slice(stoppedAt);
      expect(during.filter((e) => e[0] === 'start' && onServer(second!, e[1]!))).toEqual([]);
      await sshdUp(SECOND_DIR, SECOND_PORT);
      await letFirstKeyIn();
    } catch (e) {
      run.child.kill('SIGKILL');
      throw e;
    }
    const r = await run.done;
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr.match(new RegExp(`${second.target} does not answer`, 'g'))).toHaveLength(1);
    expect(r.stderr).toContain(`${second.target} answers again`);
    const state = await readState(join(dir, 'state'));
    const tasks = Object.values(state.tasks);
    expect(tasks).toHaveLength(24);
    for (const t of tasks) expect(t.attempts.map((a) => a.class)).toEqual(['completed']);
    const all = await entries();
    const starts = all.filter((e) => e[0] === 'start');
    expect(new Set(starts.map((e) => e[2])).size).toBe(24);
    expect(starts).toHaveLength(24);
    expectOnePerGpu(all);
    const onSecond = starts.filter((e) => onServer(second!, e[1]!)).length;
    expect(onSecond).toBeGreaterThan(0);
    expect(24 - onSecond).toBeGreaterThan(0);
    for (const t of tasks) {
      const a = t.attempts[0]!;
      expect(onServer(serverOfHandle(a.handle) === first!.target ? first! : second!, a.gpus![0]!)).toBe(true);
    }
  }, 120_000);
});
