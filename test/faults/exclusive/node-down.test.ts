/**
 * The test cluster's only node set DOWN while one array task runs on it, over real SSH.
 * Setting the node DOWN kills every job on it, so the fault tests run alone, after the rest of
 * the suite (vitest.faults.config.ts), one file at a time.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readState, startCli, useBuiltCliAndTemp, waitUntil } from '../../helpers/cli.js';
import {
  arrayTasksNamed,
  arrayTasksRecorded,
  clusterEnv,
  clusterIsUp,
  jobsNamed,
  failNode,
  resumeNode,
  slurmCampaign,
} from '../../helpers/slurm-cluster.js';
import { sshdUp, type Sshd } from '../../exec/transport/sshd.js';

const clusterUp = clusterIsUp('node fault tests');
const tempRoot = useBuiltCliAndTemp('node-down');
let sshd: Sshd | undefined;
let node = '';

beforeAll(async () => {
  if (!clusterUp) return;
  sshd = await sshdUp();
  node = clusterEnv().CAMPAIGN_CLUSTER_NODE!;
}, 300_000);

afterAll(() => {
  // Whatever happened, the node goes back to service for whoever uses the cluster next.
  if (node) resumeNode(node);
});

describe.runIf(clusterUp)('a node set DOWN during a run (real cluster, over SSH)', () => {
  it('resubmits the index that ran there, alone, and the campaign completes once the node is back', async (ctx) => {
    if (!sshd) return ctx.skip();
    // k=3's first attempt outlives the others, so it is alone on the node when the node goes down.
    const { name, workdir, manifest, stateDir } = await slurmCampaign(
      tempRoot(),
      'down',
      sshd,
      `  - name: p
    grid: { k: [1, 2, 3] }
    command: |
      if [ \${k} = 3 ] && [ \${attempt} = 1 ]; then sleep 600; fi
      echo \${k} > \${output}
    output: o_\${k}.txt
    walltime: 15m
`,
      3,
    );
    const run = startCli(['run', manifest, '--state-dir', stateDir, '--poll', '1'], {
      env: { ...process.env, CAMPAIGN_SSH_KEY_FILE: sshd.keyFile },
    });
    try {
      const victim = await waitUntil(
        'two tasks completed and the third running',
        async () => {
          const tasks = arrayTasksNamed(`${name}~`);
          const running = tasks.filter((t) => t.state === 'RUNNING');
          const done = tasks.filter((t) => t.state === 'COMPLETED');
          return running.length === 1 && done.length === 2 ? running[0] : undefined;
        },
        240_000,
        500,
      );
      await failNode(node, `${name}~`, victim.job);
      const r = await run.done;
      expect(r.code, r.stdout + r.stderr).toBe(0);
    } finally {
      run.child.kill('SIGKILL');
    }

    // One array of three, then one resubmission holding that single index.
    const jobs = jobsNamed(`${name}~`);
    expect(jobs).toHaveLength(2);
    const retry = (await arrayTasksRecorded(`${name}~`, 4)).filter((t) => t.job === jobs[1]);
    expect(retry).toHaveLength(1);
    expect(retry[0]!.state).toBe('COMPLETED');

    const state = await readState(stateDir);
    const byK = Object.entries(state.tasks)
      .sort(([a], [b]) => a.localeCompare(b))
      .map(([, t]) => t);
    expect(byK.map((t) => t.attempts.length)).toEqual([1, 1, 2]);
    const failed = byK[2]!.attempts[0]!;
    expect(failed.class).toBe('node_fail');
    expect(failed.node).toBe(node);
    expect(byK[2]!.status).toBe('completed');
    for (const k of [1, 2, 3]) expect((await readFile(join(workdir, `o_${k}.txt`), 'utf8')).trim()).toBe(String(k));
  }, 600_000);
});
