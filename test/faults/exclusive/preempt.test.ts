/**
 * A job of higher priority preempting a campaign's running array tasks, over real SSH: the test
 * cluster's `urgent` partition preempts the others (scripts/cluster/up). The campaign's jobs are
 * --no-requeue, so Slurm ends a preempted task for good (PREEMPTED); the controller sends it
 * again. Preemption kills every job it needs room from, so this runs with the fault tests, alone.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { readState, startCli, useBuiltCliAndTemp, waitUntil } from '../../helpers/cli.js';
import { arrayTasksNamed, clusterIsUp, slurm, slurmCampaign } from '../../helpers/slurm-cluster.js';
import { sshdUp, type Sshd } from '../../exec/transport/sshd.js';

const clusterUp = clusterIsUp('preemption fault tests');
const tempRoot = useBuiltCliAndTemp('preempt');
let sshd: Sshd | undefined;

beforeAll(async () => {
  if (clusterUp) sshd = await sshdUp();
}, 300_000);

describe.runIf(clusterUp)('running tasks preempted by a job of higher priority (real cluster, over SSH)', () => {
  it('records them preempted, sends each again, and the campaign completes', async (ctx) => {
    if (!sshd) return ctx.skip();
    const { name, workdir, manifest, stateDir } = await slurmCampaign(
      tempRoot(),
      'preempt',
      sshd,
      `  - name: p
    grid: { k: [1, 2] }
    command: |
      if [ \${attempt} = 1 ]; then sleep 600; fi
      echo \${k} > \${output}
    output: o_\${k}.txt
    walltime: 15m
`,
      2,
    );
    const run = startCli(['run', manifest, '--state-dir', stateDir, '--poll', '1'], {
      env: { ...process.env, CAMPAIGN_SSH_KEY_FILE: sshd.keyFile },
    });
    let first = '';
    try {
      first = await waitUntil(
        'both tasks running',
        async () => {
          const running = arrayTasksNamed(`${name}~`).filter((t) => t.state === 'RUNNING');
          return running.length === 2 ? running[0]!.job : undefined;
        },
        240_000,
        500,
      );
      // The whole node, at once: it can only start by preempting both.
      slurm('sbatch', [
        '-p',
        'urgent',
        '--exclusive',
        '--mem',
        '100M',
        '-J',
        `${name}-urgent`,
        '-o',
        '/dev/null',
        '--wrap',
        'sleep 2',
      ]);
      const r = await run.done;
      expect(r.code, r.stdout + r.stderr).toBe(0);
    } finally {
      run.child.kill('SIGKILL');
    }

    const firstRound = arrayTasksNamed(`${name}~`).filter((t) => t.job === first);
    expect(firstRound.map((t) => t.state)).toEqual(['PREEMPTED', 'PREEMPTED']);
    const state = await readState(stateDir);
    for (const t of Object.values(state.tasks)) {
      expect(t.status).toBe('completed');
      expect(t.attempts.map((a) => a.class)).toEqual(['preempted', 'completed']);
      expect(t.attempts[0]!.reason).toMatch(/^preempted by a job of higher priority/);
    }
    for (const k of [1, 2]) expect((await readFile(join(workdir, `o_${k}.txt`), 'utf8')).trim()).toBe(String(k));
  }, 600_000);
});
