/**
 * Adaptations on the real test cluster: while a campaign runs, the scheduler's records are
 * changed as an administrator (or a job_submit plugin) would: a running task's time limit is
 * cut, a pending task is moved to another partition. Both still complete, and the state and
 * the summary say what each ran with, next to its result.
 */
import { execFileSync } from 'node:child_process';
import { mkdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { readState, startCli, useBuiltCliAndTemp, writeManifest } from '../helpers/cli.js';
import { clusterEnv, clusterIsUp, slurmManifestHead } from '../helpers/slurm-cluster.js';
import { sshdUp, type Sshd } from '../exec/transport/sshd.js';

const clusterUp = clusterIsUp('adaptation tests on the cluster');
const tempRoot = useBuiltCliAndTemp('adapted-slurm');
const RUN = Date.now().toString(36);
let sshd: Sshd | undefined;

beforeAll(async () => {
  if (!clusterUp) return;
  sshd = await sshdUp();
  if (sshd) process.env.CAMPAIGN_SSH_KEY_FILE = sshd.keyFile;
}, 300_000);

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/** The campaign's array tasks in the queue: id and state. */
function queued(prefix: string): { id: string; state: string }[] {
  const out = execFileSync('squeue', ['-h', '-r', '-o', '%i|%j|%T'], {
    encoding: 'utf8',
    env: { ...process.env, ...clusterEnv() },
  });
  return out.split('\n').flatMap((l) => {
    const [id, name, state] = l.split('|');
    return name?.startsWith(prefix) ? [{ id: id!, state: state! }] : [];
  });
}

const scontrol = (...args: string[]): string =>
  execFileSync('scontrol', args, { encoding: 'utf8', env: { ...process.env, ...clusterEnv() } });

describe.runIf(clusterUp)('adaptations on the test cluster', () => {
  it('a cut time limit and a move to another partition are recorded next to the result', async (ctx) => {
    if (!sshd) return ctx.skip();
    const dir = join(tempRoot(), 'adapted');
    const workdir = join(dir, 'work');
    await mkdir(workdir, { recursive: true });
    const stateDir = join(dir, 'state');
    const name = `adapted-${RUN}`;
    // Each task takes more than half the node's CPUs: one runs while the other waits.
    const cpus =
      Math.floor(
        Number(
          execFileSync('sinfo', ['-h', '-N', '-o', '%c'], {
            encoding: 'utf8',
            env: { ...process.env, ...clusterEnv() },
          }).split('\n')[0],
        ) / 2,
      ) + 1;
    const manifest = await writeManifest(
      dir,
      `${slurmManifestHead(sshd, name, workdir)}phases:
  - name: p
    grid: { n: [1, 2] }
    command: sleep 15; echo ok > \${output}
    output: o_\${n}.txt
    walltime: 10m
    resources: { cpus: ${cpus} }
`,
    );
    const run = startCli(['run', manifest, '--state-dir', stateDir, '--poll', '2']);
    const changed = { limit: '', partition: '' };
    const deadline = Date.now() + 240_000;
    while ((!changed.limit || !changed.partition) && Date.now() < deadline) {
      const jobs = queued(`${name}~`);
      const running = jobs.find((j) => j.state === 'RUNNING');
      const pending = jobs.find((j) => j.state === 'PENDING' && !/\[/.test(j.id));
      if (running && !changed.limit) {
        scontrol('update', `JobId=${running.id}`, 'TimeLimit=5');
        changed.limit = running.id;
      }
      if (pending && running && !changed.partition) {
        scontrol('update', `JobId=${pending.id}`, 'Partition=short');
        changed.partition = pending.id;
      }
      await sleep(500);
    }
    const r = await run.done;
    expect(r.code, r.stdout + r.stderr).toBe(0);
    expect(changed.limit).not.toBe('');
    expect(changed.partition).not.toBe('');
    const state = await readState(stateDir);
    const byHandle = new Map(Object.values(state.tasks).map((t) => [t.attempts[0]!.handle, t.attempts[0]!]));
    expect(byHandle.get(changed.limit)?.adapted).toEqual(['a time limit of 5m instead of 10m']);
    expect(byHandle.get(changed.partition)?.adapted).toEqual(['partition short instead of debug']);
    const summary = await readFile(join(stateDir, 'summary.md'), 'utf8');
    expect(summary).toContain('## Tasks that ran with less than they asked');
    expect(summary).toMatch(/\| p\/n\d \| 1 \| completed \| a time limit of 5m instead of 10m \|/);
    expect(summary).toMatch(/\| p\/n\d \| 1 \| completed \| partition short instead of debug \|/);
  }, 400_000);
});
