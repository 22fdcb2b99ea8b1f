/**
 * The executor contract (battery.ts) against the slurm executor driving the real test cluster
 * through the test automation node (`cluster.restricted`: plain Slurm commands, listing and
 * SFTP; no shell, so `--fresh` is refused there). Skipped visibly without the cluster or node.
 */
import { mkdir } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll } from 'vitest';
import { clusterIsUp, jobsNamed } from '../../helpers/slurm-cluster.js';
import { automationNodeUp, restrictedManifestHead, type AutomationNode } from '../../automation-node/fixture.js';
import { contractBattery } from './battery.js';

const clusterUp = clusterIsUp('the executor contract through an automation node');
let node: AutomationNode | undefined;
beforeAll(async () => {
  if (clusterUp) node = await automationNodeUp(join(tmpdir(), 'campaign-automation-contract'), 16043);
}, 90_000);

contractBattery({
  name: 'automation node',
  ready: () => clusterUp && node !== undefined,
  async place(dir) {
    const workdir = join(dir, 'work');
    await mkdir(workdir, { recursive: true });
    return { workdir, head: (name) => restrictedManifestHead(node!, name, workdir) };
  },
  ssh: () => ({ keyFile: node!.keys.all }),
  poll: 1,
  timeoutMs: 400_000,
  setsAside: false,
  submissions: async (campaign) => jobsNamed(`${campaign}~`).length,
});
