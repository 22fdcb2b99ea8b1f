/**
 * The options real clusters need, on the real test cluster (typed GPUs gpu:h100:4, the node
 * feature cascade, the account lab, QOS enforced: standby allowed, premium not), over SSH:
 * asked for, granted and checked; and a refused QOS or an unknown feature found by `campaign
 * check` and by `run` before any array is sent, with the option named.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { readState, runCli, useBuiltCliAndTemp } from '../../helpers/cli.js';
import { clusterEnv, clusterIsUp, jobsNamed, slurmCampaign } from '../../helpers/slurm-cluster.js';
import { sshdUp, type Sshd } from '../transport/sshd.js';

const clusterUp = clusterIsUp('cluster options');
const tempRoot = useBuiltCliAndTemp('cluster-options');
let sshd: Sshd | undefined;
const env = () => ({ ...process.env, CAMPAIGN_SSH_KEY_FILE: sshd!.keyFile });
const cluster: Record<string, string> = clusterUp ? clusterEnv() : {};

beforeAll(async () => {
  if (clusterUp) sshd = await sshdUp();
}, 300_000);

/** A one-task phase asking `resources`, whose output is the job as slurmctld granted it. */
const phase = (resources: string) => `  - name: p
    resources: { ${resources} }
    slurm_args: ["--mail-type=END"]
    command: scontrol show job "$SLURM_JOB_ID" -o > \${output}
    output: job.txt
    walltime: 5m
`;

describe.runIf(clusterUp)('Slurm options on the test cluster, over SSH', () => {
  it('typed GPUs, a QOS, a node feature and an account are asked, granted, and the devices gate counts them', async (ctx) => {
    if (!sshd) return ctx.skip();
    const c = await slurmCampaign(
      tempRoot(),
      'granted',
      sshd,
      phase(
        `gpus: 2, gpu_type: ${cluster.CAMPAIGN_CLUSTER_GPU_TYPE}, qos: ${cluster.CAMPAIGN_CLUSTER_QOS}, constraint: ${cluster.CAMPAIGN_CLUSTER_FEATURE}, account: ${cluster.CAMPAIGN_CLUSTER_ACCOUNT}`,
      ),
    );
    const check = await runCli(['check', c.manifest], { env: env() });
    expect(check.code, check.stdout + check.stderr).toBe(0);
    expect(check.stdout).toMatch(/^ok {4}submission {2}sbatch --test-only accepts the 1 arrays$/m);
    // Its QOS is the test cluster's low-priority one: its job may wait behind every job of the
    // cluster group's other tests, which share the node.
    const r = await runCli(['run', c.manifest, '--state-dir', c.stateDir, '--poll', '1'], {
      env: env(),
      timeoutMs: 240_000,
    });
    expect(r.code, r.stdout + r.stderr).toBe(0);
    const job = await readFile(join(c.workdir, 'job.txt'), 'utf8');
    expect(job).toContain(`QOS=${cluster.CAMPAIGN_CLUSTER_QOS}`);
    expect(job).toContain(`Account=${cluster.CAMPAIGN_CLUSTER_ACCOUNT}`);
    expect(job).toContain(`Features=${cluster.CAMPAIGN_CLUSTER_FEATURE}`);
    expect(job).toContain(`MailType=END`);
    expect(job).toMatch(new RegExp(`gres[:/]gpu:${cluster.CAMPAIGN_CLUSTER_GPU_TYPE}:2\\b`));
    const [task] = Object.keys((await readState(c.stateDir)).tasks);
    const logs = await runCli(['logs', c.manifest, task!, '--state-dir', c.stateDir], { env: env() });
    expect(logs.stdout).toContain('[campaign] gate devices: ok');
  }, 300_000);

  for (const [what, resources, option] of [
    ['a QOS the account may not use', `qos: ${cluster.CAMPAIGN_CLUSTER_QOS_DENIED}`, 'resources.qos'],
    ['a feature no node has', 'constraint: nosuchfeature', 'resources.constraint'],
  ] as const) {
    it(`${what}: check and run both name ${option}, and nothing is submitted`, async (ctx) => {
      if (!sshd) return ctx.skip();
      const c = await slurmCampaign(tempRoot(), option.split('.')[1]!, sshd, phase(resources));
      const check = await runCli(['check', c.manifest], { env: env() });
      expect(check.code, check.stdout + check.stderr).toBe(1);
      expect(check.stdout).toMatch(
        new RegExp(`^FAIL {2}submission .*for ${option.replace('.', '\\.')}: .*\\[blocks p\\]$`, 'm'),
      );
      expect(check.stdout).toMatch(/^ {8,}fix: /m);
      const r = await runCli(['run', c.manifest, '--state-dir', c.stateDir, '--poll', '1'], { env: env() });
      expect(r.code, r.stdout + r.stderr).toBe(2);
      expect(r.stderr).toContain(`for ${option}`);
      expect(jobsNamed(`${c.name}~`)).toHaveLength(0);
    });
  }
});
