/**
 * campaign pointed at an automation node (scripts/automation-node, in front of the real test
 * cluster) as if it were a login node: its first command is refused by the forced command, and
 * `run` and `check` say so as what it is, naming the wrapper, before anything is submitted.
 */
import { join } from 'node:path';
import { tmpdir } from 'node:os';
import { beforeAll, describe, expect, it } from 'vitest';
import { runCli, useBuiltCliAndTemp, writeManifest } from '../helpers/cli.js';
import { clusterIsUp, jobsNamed } from '../helpers/slurm-cluster.js';
import { type AutomationNode, automationNodeUp, gateLog, gateLogMark } from './fixture.js';

const clusterUp = clusterIsUp('a campaign on an automation node');
const tempRoot = useBuiltCliAndTemp('refused-shell');
let node: AutomationNode | undefined;

beforeAll(async () => {
  if (clusterUp) node = await automationNodeUp(join(tmpdir(), 'campaign-automation-refused'), 16032);
}, 90_000);

describe.runIf(clusterUp)('campaign on an automation node, as if it were a login node', () => {
  it('run and check name the forced command and the way out; nothing is submitted', async (ctx) => {
    if (!node) return ctx.skip();
    const dir = tempRoot();
    const name = `refused-${Date.now().toString(36)}`;
    const manifest = await writeManifest(
      dir,
      `campaign: ${name}
cluster:
  executor: slurm
  login: ${node.target}
  host_key: ${node.fingerprint}
  partitions: [ { name: debug, max_time: 30m } ]
workdir: ${join(dir, 'work')}
phases:
  - { name: p, command: 'true', walltime: 5m }
`,
    );
    const env = { ...process.env, CAMPAIGN_SSH_KEY_FILE: node.keys.all };
    const mark = await gateLogMark(node);
    const r = await runCli(['run', manifest, '--state-dir', join(dir, 'state')], { env });
    expect(r.code, r.stdout + r.stderr).toBe(2);
    expect(r.stderr).toMatch(
      /runs a forced command \(allowed_commands\.sh\) that allows only a short list of commands.*automation node/,
    );
    expect(r.stderr).toMatch(/fix: set cluster\.restricted: true/);
    const check = await runCli(['check', manifest], { env });
    expect(check.code).toBe(1);
    expect(check.stdout).toMatch(/^FAIL {2}login +.*runs a forced command \(allowed_commands\.sh\)/m);
    // The node saw campaign's commands and refused them; none was run.
    const lines = await gateLog(node, mark);
    expect(lines.length).toBeGreaterThan(0);
    expect(lines.filter((l) => l.verdict === 'run')).toEqual([]);
    expect(jobsNamed(`${name}~`)).toHaveLength(0);
  });
});
