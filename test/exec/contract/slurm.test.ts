/**
 * The executor contract (battery.ts) against the slurm executor on the real test cluster, over
 * SSH to the login sshd (scripts/cluster/up, scripts/sshd/up). Skipped visibly without them.
 */
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { beforeAll } from 'vitest';
import { clusterIsUp, jobsNamed, slurmManifestHead } from '../../helpers/slurm-cluster.js';
import { sshdUp, type Sshd } from '../transport/sshd.js';
import { contractBattery } from './battery.js';

const clusterUp = clusterIsUp('the executor contract on Slurm');
let sshd: Sshd | undefined;
beforeAll(async () => {
  if (clusterUp) sshd = await sshdUp();
}, 300_000);

contractBattery({
  name: 'slurm',
  ready: () => clusterUp && sshd !== undefined,
  async place(dir) {
    const workdir = join(dir, 'work');
    await mkdir(workdir, { recursive: true });
    return { workdir, head: (name) => slurmManifestHead(sshd!, name, workdir, '', 4) };
  },
  ssh: () => ({ keyFile: sshd!.keyFile }),
  poll: 1,
  timeoutMs: 400_000,
  setsAside: true,
  submissions: async (campaign) => jobsNamed(`${campaign}~`).length,
});
