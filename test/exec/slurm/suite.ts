/**
 * What the slurm executor's tests on the real test cluster share: the cluster and the login
 * sshd (scripts/sshd/up), a temp root, and helpers to plan, open and run a campaign.
 */
import { mkdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { beforeAll } from 'vitest';
import { parseManifest } from '../../../src/manifest/load.js';
import type { Manifest } from '../../../src/manifest/schema.js';
import { planCampaign, type Plan } from '../../../src/plan/plan.js';
import { SlurmExecutor } from '../../../src/exec/slurm/slurm-executor.js';
import { SshTransport } from '../../../src/exec/transport/ssh.js';
import { runCli, useBuiltCliAndTemp } from '../../helpers/cli.js';
import { clusterIsUp, slurmManifestHead } from '../../helpers/slurm-cluster.js';
import { sshdUp, type Sshd } from '../transport/sshd.js';

/** A whole campaign on the cluster takes a minute or two. */
export const LONG = 400_000;

/** Campaign names unique to this run: sacct remembers earlier runs' jobs. */
export const RUN = Date.now().toString(36);

/** A manifest file read back and planned, as the CLI would. */
export async function planned(file: string): Promise<{ m: Manifest; plan: Plan }> {
  const m = parseManifest(file, await readFile(file, 'utf8')).manifest;
  return { m, plan: planCampaign(m) };
}

/** Registers the suite's setup (call it at the top of a test file) and returns its helpers. */
export function slurmSuite(label: string) {
  const clusterUp = clusterIsUp(`Slurm executor tests (${label})`);
  const tempRoot = useBuiltCliAndTemp(label);
  let sshd: Sshd | undefined;
  beforeAll(async () => {
    if (!clusterUp) return;
    sshd = await sshdUp();
    if (sshd) process.env.CAMPAIGN_SSH_KEY_FILE = sshd.keyFile;
  }, 300_000);
  return {
    clusterUp,
    /** The login sshd, once beforeAll has started it. */
    sshd: (): Sshd => sshd!,
    ready: (): boolean => clusterUp && sshd !== undefined,
    /** The slurm executor over SSH to the test login node. */
    openSlurm(m: Manifest, warn?: (w: string) => void): { transport: SshTransport; executor: SlurmExecutor } {
      const transport = new SshTransport({
        target: sshd!.target,
        hostKeyFingerprint: sshd!.fingerprint,
        keyFile: sshd!.keyFile,
      });
      const executor = new SlurmExecutor({
        manifest: m,
        transport,
        since: new Date().toISOString(),
        ...(warn ? { warn } : {}),
      });
      return { transport, executor };
    },
    cluster: (name: string, workdir: string, extra = ''): string => slurmManifestHead(sshd!, name, workdir, extra),
    async campaignDir(name: string): Promise<{ dir: string; workdir: string; stateDir: string }> {
      const dir = join(tempRoot(), name);
      const workdir = join(dir, 'work');
      await mkdir(workdir, { recursive: true });
      return { dir, workdir, stateDir: join(dir, 'state') };
    },
    run: (manifest: string, stateDir: string) =>
      runCli(['run', manifest, '--state-dir', stateDir, '--poll', '2'], { timeoutMs: 400_000 }),
  };
}
