/**
 * The code a task runs (DESIGN rule 11) on the real test cluster over SSH: the snapshot travels
 * as one tar stream over the login's connection (test/helpers/code-scenarios.ts), and a rerun
 * with nothing changed sends no job.
 */
import { beforeAll } from 'vitest';
import { useBuiltCliAndTemp } from '../../helpers/cli.js';
import { codeScenarios } from '../../helpers/code-scenarios.js';
import { clusterIsUp, jobsNamed, slurmManifestHead } from '../../helpers/slurm-cluster.js';
import { sshdUp, type Sshd } from '../transport/sshd.js';

const clusterUp = clusterIsUp('Slurm code snapshot tests');
const root = useBuiltCliAndTemp('slurm-code');
/** Campaign names unique to this run: sacct remembers earlier runs' jobs. */
const RUN = Date.now().toString(36);
let sshd: Sshd | undefined;

beforeAll(async () => {
  if (clusterUp) sshd = await sshdUp();
}, 300_000);

// Skipped loudly without a cluster (clusterIsUp says so); under CI a skipped test fails the run.
codeScenarios('the code a task runs, on the test cluster over SSH', {
  enabled: clusterUp,
  root,
  gc: 'removes',
  head: (campaign, workdir) => slurmManifestHead(sshd!, campaign, workdir, '', 4),
  campaign: (label) => `code-${label}-${RUN}`,
  env: () => ({ ...process.env, CAMPAIGN_SSH_KEY_FILE: sshd!.keyFile }),
  poll: '1',
  timeoutMs: 300_000,
  sent: (campaign) => jobsNamed(campaign).length,
});
