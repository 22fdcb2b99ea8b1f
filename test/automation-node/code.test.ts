/**
 * The code a task runs (DESIGN rule 11) through the test automation node (`restricted: true`:
 * Slurm's commands, listing and SFTP, no shell): the scenarios of
 * test/helpers/code-scenarios.ts, the snapshot shipped by SFTP alone; the node's log shows no
 * command refused.
 */
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect } from 'vitest';
import { useBuiltCliAndTemp } from '../helpers/cli.js';
import { codeScenarios } from '../helpers/code-scenarios.js';
import { clusterIsUp, jobsNamed } from '../helpers/slurm-cluster.js';
import { type AutomationNode, automationNodeUp, gateLog, gateLogMark, restrictedManifestHead } from './fixture.js';

const clusterUp = clusterIsUp('code snapshots through an automation node');
const root = useBuiltCliAndTemp('restricted-code');
const RUN = Date.now().toString(36);
let node: AutomationNode | undefined;
let mark = 0;

beforeAll(async () => {
  if (!clusterUp) return;
  node = await automationNodeUp(join(tmpdir(), 'campaign-automation-code'), 16042);
  if (node) mark = await gateLogMark(node);
}, 90_000);

afterAll(async () => {
  if (!node) return;
  const refused = (await gateLog(node, mark)).filter((l) => l.verdict === 'refused');
  expect(refused, 'commands the automation node refused').toEqual([]);
});

codeScenarios('the code a task runs, through an automation node', {
  enabled: clusterUp,
  root,
  gc: 'refused',
  head: (campaign, workdir) => restrictedManifestHead(node!, campaign, workdir),
  campaign: (label) => `rcode-${label}-${RUN}`,
  env: () => ({ ...process.env, CAMPAIGN_SSH_KEY_FILE: node!.keys.all }),
  poll: '1',
  timeoutMs: 300_000,
  sent: (campaign) => jobsNamed(campaign).length,
});
