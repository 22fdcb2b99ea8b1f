/**
 * A partition's MaxTime lowered under a running campaign (as an administrator does before a
 * maintenance window), over real SSH: the indices still queued would wait for ever
 * (PartitionTimeLimit). The controller cancels them and ends their attempts as unschedulable,
 * so the run ends and says why; once the limit is back, `run --retry-failed` completes the
 * campaign. The partition it lowers, `window`, is the test cluster's spare one (scripts/cluster/up),
 * which no other test uses: it runs beside them.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readState, runCli, startCli, useBuiltCliAndTemp, waitUntil } from '../helpers/cli.js';
import { arrayTasksNamed, clusterIsUp, slurm, slurmCampaign } from '../helpers/slurm-cluster.js';
import { sshdUp, type Sshd } from '../exec/transport/sshd.js';

const clusterUp = clusterIsUp('partition limit fault tests');
const tempRoot = useBuiltCliAndTemp('partition-limit');
let sshd: Sshd | undefined;

/** The spare partition's MaxTime as scripts/cluster/up sets it. */
const restore = (): string => slurm('scontrol', ['update', 'PartitionName=window', 'MaxTime=30:00']);

beforeAll(async () => {
  if (clusterUp) sshd = await sshdUp();
}, 300_000);

afterAll(() => {
  if (clusterUp) restore();
});

describe.runIf(clusterUp)("a partition's MaxTime lowered under queued tasks (real cluster, over SSH)", () => {
  it('cancels the indices that would wait for ever, ends them unschedulable with the reason, and --retry-failed completes later', async (ctx) => {
    if (!sshd) return ctx.skip();
    const { name, workdir, manifest, stateDir } = await slurmCampaign(
      tempRoot(),
      'maxtime',
      sshd,
      `  - name: p
    grid: { k: [1, 2, 3] }
    command: sleep 8; echo \${k} > \${output}
    output: o_\${k}.txt
    walltime: 5m
`,
      1,
      // The spare partition alone, so that lowering its limit reaches no other test's jobs.
      ['{ name: window, max_time: 30m }'],
    );
    const env = { ...process.env, CAMPAIGN_SSH_KEY_FILE: sshd.keyFile };
    const run = startCli(['run', manifest, '--state-dir', stateDir, '--poll', '1'], { env });
    let r;
    try {
      await waitUntil(
        'the first index running, the other two waiting for its place',
        async () => {
          const tasks = arrayTasksNamed(`${name}~`);
          return tasks.some((t) => t.state === 'RUNNING') ? true : undefined;
        },
        120_000,
        300,
      );
      slurm('scontrol', ['update', 'PartitionName=window', 'MaxTime=2']);
      r = await run.done;
    } finally {
      run.child.kill('SIGKILL');
      restore();
    }
    expect(r.code, r.stdout + r.stderr).toBe(1);
    expect(r.stdout).toContain('Slurm will never start it');
    const state = await readState(stateDir);
    const byK = Object.entries(state.tasks)
      .sort(([a], [b]) => a.localeCompare(b))
      .map(([, t]) => t);
    expect(byK.map((t) => t.status)).toEqual(['completed', 'failed', 'failed']);
    for (const t of byK.slice(1)) {
      expect(t.attempts.map((a) => a.class)).toEqual(['unschedulable']);
      expect(t.attempts[0]!.reason).toBe(
        'Slurm will never start it: asks for more time than the partition allows (PartitionTimeLimit); cancelled',
      );
    }
    // Sent one at a time (max_parallel 1) after the limit fell, the two were held, then cancelled,
    // and never ran. Their jobs never became eligible, so sacct finds them by id alone.
    const jobs = byK.flatMap((t) => t.attempts.map((a) => a.handle!.split('_')[0]!));
    const records = slurm('sacct', ['-X', '-n', '-P', '-j', jobs.join(','), '-o', 'JobName,State,Elapsed'])
      .split('\n')
      .filter((line) => line.startsWith(`${name}~`))
      .map((line) => {
        const [, state, elapsed] = line.split('|');
        return state!.startsWith('CANCELLED') ? `CANCELLED ${elapsed}` : state!;
      })
      .sort();
    expect(records).toEqual(['CANCELLED 00:00:00', 'CANCELLED 00:00:00', 'COMPLETED']);

    // The limit back, the way out the summary names: the two are sent again and complete.
    const again = await runCli(['run', manifest, '--state-dir', stateDir, '--poll', '1', '--retry-failed'], {
      env,
      timeoutMs: 240_000,
    });
    expect(again.code, again.stdout + again.stderr).toBe(0);
    for (const k of [1, 2, 3]) expect((await readFile(join(workdir, `o_${k}.txt`), 'utf8')).trim()).toBe(String(k));
  }, 600_000);
});
