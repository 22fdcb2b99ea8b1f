/**
 * A login whose forced command refuses in words of its own ("automation node: command not
 * allowed" on stderr, a failing status), not the Alliance wrapper's "Command rejected by …":
 * `run` and `check` say it is an automation node and name `restricted: true` (or `slurm`) as
 * the way out, not "check that Slurm is reachable". A real sshd (scripts/automation-node) whose
 * keys are bound to such a command.
 */
import { chmod, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { tmpdir } from 'node:os';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli, useBuiltCliAndTemp, writeManifest } from '../helpers/cli.js';
import { type AutomationNode, automationNodeDown, automationNodeUp } from '../automation-node/fixture.js';

const tempRoot = useBuiltCliAndTemp('refused-login');
const NODE_DIR = join(tmpdir(), 'campaign-automation-other-refusal');
let node: AutomationNode | undefined;

beforeAll(async () => {
  node = await automationNodeUp(NODE_DIR, 16051);
  if (!node) return;
  // Every key of this node is bound to a command that refuses as some centres' wrappers do.
  const refuse = join(NODE_DIR, 'refuse');
  await writeFile(refuse, '#!/bin/sh\necho "automation node: command not allowed" >&2\nexit 1\n');
  await chmod(refuse, 0o755);
  const keys = join(NODE_DIR, 'authorized_keys');
  await writeFile(keys, (await readFile(keys, 'utf8')).replace(/command="[^"]*"/g, `command="${refuse}"`));
}, 90_000);

afterAll(async () => {
  if (node) await automationNodeDown(NODE_DIR);
});

describe('a login that refuses a shell command in its own words', () => {
  it('run and check call it an automation node and name restricted as the fix', async (ctx) => {
    if (!node) return ctx.skip();
    const dir = tempRoot();
    const manifest = await writeManifest(
      dir,
      `campaign: refused
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
    const r = await runCli(['run', manifest, '--state-dir', join(dir, 'state')], { env });
    expect(r.code, r.stdout + r.stderr).toBe(2);
    expect(r.stderr).toMatch(/runs a forced command \(answering "automation node: command not allowed"\)/);
    expect(r.stderr).toMatch(/fix: set cluster\.restricted: true \(or restricted: slurm/);
    expect(r.stderr).not.toMatch(/reachable from the login node/);
    const check = await runCli(['check', manifest], { env });
    expect(check.code).toBe(1);
    expect(check.stdout).toMatch(/^FAIL {2}login +.*runs a forced command \(answering/m);
  });
});
