/**
 * A state is not trusted to name files: a log path it carries is never read. Through the real
 * CLI on this machine's stand-in GPUs (ssh-gpu without login), a failed task's log tail in the
 * summary is its own log's, whatever log the state claims for it.
 */
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli, useBuiltCliAndTemp } from '../../helpers/cli.js';
import { campaignDirs, runCampaign, uuidOf } from './helpers.js';

const setUp = campaignDirs(useBuiltCliAndTemp('ssh-gpu-state-paths'));

describe('paths a state carries', () => {
  it('a log path planted in the state is not read: the summary shows the log of the attempt itself', async () => {
    const { dir, workdir, gpus } = await setUp('planted', [[0, uuidOf(0), 3]]);
    const r = await runCampaign(
      dir,
      `campaign: planted
cluster:
  executor: ssh-gpu
  probe: ${gpus.probe}
workdir: ${workdir}
phases:
  - name: p
    command: echo "the task's own words"; exit 3
    walltime: 1m
`,
    );
    expect(r.result.code).toBe(1);
    const secret = join(dir, 'id_ed25519');
    await writeFile(secret, '-----BEGIN OPENSSH PRIVATE KEY-----\nsecret\n');
    const statePath = join(r.stateDir, 'state.json');
    const state = JSON.parse(await readFile(statePath, 'utf8'));
    state.tasks['p/task'].attempts[0].log = secret;
    await writeFile(statePath, JSON.stringify(state));
    const summary = await runCli(['summary', join(dir, 'campaign.yml'), '--state-dir', r.stateDir]);
    expect(summary.stdout).toContain("the task's own words");
    expect(summary.stdout).not.toContain('PRIVATE KEY');
  }, 120_000);
});
