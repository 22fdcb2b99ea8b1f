/**
 * A campaign's state lost or corrupted after it has run on the real test cluster (over SSH):
 * the next run rebuilds it from the scheduler's records, the task tables and the outputs, and
 * `sacct` counts no job twice, even where retries now group differently than they did.
 */
import { readFile, rename, rm, truncate } from 'node:fs/promises';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { readState, runCli, useBuiltCliAndTemp } from '../../helpers/cli.js';
import { clusterIsUp, jobsNamed, slurmCampaign } from '../../helpers/slurm-cluster.js';
import { sshdUp, type Sshd } from '../transport/sshd.js';

const clusterUp = clusterIsUp('Slurm state rebuild tests');
const tempRoot = useBuiltCliAndTemp('slurm-rebuild');
let sshd: Sshd | undefined;

beforeAll(async () => {
  if (clusterUp) sshd = await sshdUp();
}, 300_000);

describe.runIf(clusterUp)('a lost or corrupt state rebuilt from the cluster (real cluster, over SSH)', () => {
  it('deleted, truncated, and corrupt with its previous copy: no job is submitted again', async (ctx) => {
    if (!sshd) return ctx.skip();
    // k=1 and k=2 fail once, in different passes: their retries went out as two sbatch calls,
    // which a rebuilt state, seeing both failures at once, would group as one.
    const { name, dir, workdir, manifest, stateDir } = await slurmCampaign(
      tempRoot(),
      'rebuild',
      sshd,
      `  - name: p
    grid: { k: [1, 2, 3] }
    command: |
      if [ \${attempt} = 1 ] && [ \${k} = 1 ]; then exit 3; fi
      if [ \${attempt} = 1 ] && [ \${k} = 2 ]; then sleep 8; exit 3; fi
      echo \${k} > \${output}
    output: o_\${k}.txt
    walltime: 5m
    retry: { failed: { attempts: 2 } }
`,
      3,
    );
    const statePath = join(stateDir, 'state.json');
    const env = { ...process.env, CAMPAIGN_SSH_KEY_FILE: sshd.keyFile };
    const run = () => runCli(['run', manifest, '--state-dir', stateDir, '--poll', '1'], { timeoutMs: 300_000, env });
    const attemptsByTask = async () =>
      Object.fromEntries(Object.entries((await readState(stateDir)).tasks).map(([id, t]) => [id, t.attempts.length]));

    const first = await run();
    expect(first.code, first.stdout + first.stderr).toBe(0);
    const jobs = jobsNamed(`${name}~`);
    expect(jobs).toHaveLength(3);
    const attempts = await attemptsByTask();
    expect(Object.values(attempts).sort()).toEqual([1, 2, 2]);

    // Deleted: state, previous state and event log all gone.
    await rm(stateDir, { recursive: true });
    const rebuilt = await run();
    expect(rebuilt.code, rebuilt.stdout + rebuilt.stderr).toBe(0);
    expect(jobsNamed(`${name}~`)).toEqual(jobs);
    expect(await attemptsByTask()).toEqual(attempts);

    // Truncated mid-write: the previous state is taken, and the campaign is still complete.
    const size = (await readFile(statePath)).length;
    await truncate(statePath, Math.floor(size / 2));
    const truncated = await run();
    expect(truncated.code, truncated.stdout + truncated.stderr).toBe(0);
    expect(truncated.stderr).toMatch(/state\.json was corrupt/);
    expect(jobsNamed(`${name}~`)).toEqual(jobs);

    // Both copies corrupt: refused with the way out, which then works.
    await truncate(statePath, 10);
    await truncate(join(stateDir, 'state.prev.json'), 10);
    const refused = await run();
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain(statePath);
    expect(refused.stderr).toMatch(/move it aside: the next run rebuilds the state/);
    await rename(statePath, join(dir, 'state.corrupt.json'));
    const afterMove = await run();
    expect(afterMove.code, afterMove.stdout + afterMove.stderr).toBe(0);
    expect(jobsNamed(`${name}~`)).toEqual(jobs);
    expect(await attemptsByTask()).toEqual(attempts);
    for (const k of [1, 2, 3]) expect((await readFile(join(workdir, `o_${k}.txt`), 'utf8')).trim()).toBe(String(k));
  }, 600_000);
});
