/**
 * `campaign shell` on the real test cluster over SSH: the command runs on the compute node,
 * inside an allocation of the task's resources (its CPUs, memory, partition and the phase's
 * smoke walltime), with the phase's setup, the task's CAMPAIGN_* variables and its working
 * directory; the allocation is gone once the command has ended, and the shell's exit status is
 * the command's.
 */
import { join } from 'node:path';
import { mkdir } from 'node:fs/promises';
import { beforeAll, describe, expect, it } from 'vitest';
import { runCli, useBuiltCliAndTemp, writeManifest } from '../../helpers/cli.js';
import { clusterIsUp, slurm, slurmManifestHead } from '../../helpers/slurm-cluster.js';
import { sshdUp, type Sshd } from '../transport/sshd.js';

const clusterUp = clusterIsUp('campaign shell on Slurm');
const tempRoot = useBuiltCliAndTemp('slurm-shell');
let sshd: Sshd | undefined;

beforeAll(async () => {
  if (clusterUp) sshd = await sshdUp();
}, 180_000);

const SHOW = [
  'echo "job=$SLURM_JOB_ID node=${SLURMD_NODENAME:-} host=$(hostname) cpus=$SLURM_CPUS_ON_NODE"',
  'echo "note=$PHASE_NOTE task=$CAMPAIGN_TASK seed=$CAMPAIGN_AXIS_seed pwd=$PWD"',
  'scontrol show job "$SLURM_JOB_ID"',
  'exit 3',
].join('\n');

describe.runIf(clusterUp)('campaign shell on the Slurm cluster', () => {
  it("runs on the compute node in an allocation of the task's resources, released after", async (ctx) => {
    if (!sshd) return ctx.skip();
    const dir = join(tempRoot(), 'alloc');
    const workdir = join(dir, 'work');
    await mkdir(workdir, { recursive: true });
    const name = `shell-${Date.now().toString(36)}`;
    const manifest = await writeManifest(
      dir,
      `${slurmManifestHead(sshd, name, workdir)}phases:
  - name: p
    grid: { seed: [1, 2] }
    setup: export PHASE_NOTE=from-setup
    command: echo \${seed} > \${output}
    output: out/\${seed}.txt
    walltime: 1h
    resources: { cpus: 2, mem: 300M }
    smoke: { tasks: 1, overrides: { walltime: 7m } }
`,
    );
    const r = await runCli(['shell', manifest, 'p/seed2', '--command', SHOW], {
      env: { ...process.env, CAMPAIGN_SSH_KEY_FILE: sshd.keyFile },
      timeoutMs: 120_000,
    });
    expect(r.code, r.stdout + r.stderr).toBe(3);
    const job = /^job=(\d+) node=(\S*) host=(\S+) cpus=(\d+)$/m.exec(r.stdout);
    expect(job, r.stdout).not.toBeNull();
    const [, , node, host, cpus] = job!;
    // On the compute node, in the allocation, with the task's CPUs.
    expect(node).toBe(host);
    expect(cpus).toBe('2');
    expect(r.stdout).toContain(`note=from-setup task=p/seed2 seed=2 pwd=${workdir}\n`);
    expect(r.stdout).toMatch(new RegExp(`JobName=campaign-shell\\.${name}\\b`));
    expect(r.stdout).toMatch(/\bTimeLimit=00:07:00\b/);
    expect(r.stdout).toMatch(/\bPartition=debug\b/);
    expect(r.stdout).toMatch(/\bNumCPUs=2\b/);
    expect(r.stdout).toMatch(/\bmem=300M\b/);
    expect(r.stderr).toMatch(/^\[campaign\] gate nodes: ok$/m);
    expect(r.stderr).toMatch(/^campaign: the gates passed$/m);
    // The allocation is released: the queue holds no job of it, pending or running.
    expect(slurm('squeue', ['-h', '-n', `campaign-shell.${name}`, '-o', '%i %T']).trim()).toBe('');
  }, 150_000);
});
