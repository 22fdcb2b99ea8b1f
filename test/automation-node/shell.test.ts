/**
 * `campaign shell` through an automation node (cluster.restricted): refused before anything is
 * sent, with the reason (the node runs no shell, nor salloc or srun) and the way out (a login
 * node); the node's gate sees no command of it.
 */
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { runCli, useBuiltCliAndTemp, writeManifest } from '../helpers/cli.js';
import { type AutomationNode, automationNodeUp, gateLog, gateLogMark } from './fixture.js';

const tempRoot = useBuiltCliAndTemp('automation-shell');
let node: AutomationNode | undefined;

beforeAll(async () => {
  node = await automationNodeUp();
}, 90_000);

describe('campaign shell through an automation node', () => {
  it('is refused with the reason and the way out, and nothing reaches the node', async (ctx) => {
    if (!node) return ctx.skip();
    const dir = tempRoot();
    const manifest = await writeManifest(
      dir,
      `campaign: shell-restricted
cluster:
  executor: slurm
  login: ${node.target}
  host_key: ${node.fingerprint}
  restricted: true
  partitions: [ { name: debug, max_time: 30m } ]
workdir: ${join(dir, 'work')}
phases:
  - { name: p, grid: { seed: [1] }, command: 'true', walltime: 5m }
`,
    );
    const mark = await gateLogMark(node);
    const r = await runCli(['shell', manifest, 'p/seed1', '--command', 'hostname'], {
      env: { ...process.env, CAMPAIGN_SSH_KEY_FILE: node.keys.all },
    });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/automation node, which runs only Slurm, listing and file-transfer commands: no shell/);
    expect(r.stderr).toMatch(/fix: open the shell from a login node of the cluster/);
    expect(await gateLog(node, mark)).toEqual([]);
  });
});
