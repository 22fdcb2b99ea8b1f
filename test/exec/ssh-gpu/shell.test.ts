/**
 * `campaign shell` on a GPU server over real SSH, against the nvidia-smi stand-in: the shell
 * gets a free GPU in CUDA_VISIBLE_DEVICES, which a campaign run meanwhile leaves alone (its
 * tasks go to the other GPU), and which is free again once the shell ends.
 */
import { readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { startCli, useBuiltCliAndTemp, waitUntil, writeManifest } from '../../helpers/cli.js';
import { campaignDirs, cluster, runCampaign, sshdUp, uuidOf, type Sshd } from './helpers.js';

const tempRoot = useBuiltCliAndTemp('ssh-gpu-shell');
let sshd: Sshd | undefined;

beforeAll(async () => {
  sshd = await sshdUp();
  if (sshd) process.env.CAMPAIGN_SSH_KEY_FILE = sshd.keyFile;
}, 180_000);

const setUp = campaignDirs(tempRoot);

describe('campaign shell on a GPU server', () => {
  it('holds a free GPU for the shell while it lasts: a run meanwhile places its tasks elsewhere', async (ctx) => {
    if (!sshd) return ctx.skip();
    const { dir, workdir, gpus } = await setUp('held', [
      [0, uuidOf(0), 3],
      [1, uuidOf(1), 3],
    ]);
    const yaml = `campaign: held
${cluster(sshd, gpus)}workdir: ${workdir}
phases:
  - name: p
    grid: { seed: [1, 2] }
    walltime: 5m
    resources: { gpus: 1 }
    output: out/\${seed}.txt
    command: |
      ${gpus.log('start')}
      sleep 0.3
      echo done > \${output}
`;
    const manifest = await writeManifest(dir, yaml);
    // The shell says which GPU it has, then waits (a bounded while) for the test to let it go.
    const shell = startCli([
      'shell',
      manifest,
      'p/seed1',
      '--command',
      'echo "$CUDA_VISIBLE_DEVICES" > held; for _ in $(seq 600); do [ -e go ] && exit 0; sleep 0.1; done; exit 9',
    ]);
    const held = await waitUntil(
      'the shell to say its GPU',
      async () => (await readFile(join(workdir, 'held'), 'utf8')).trim() || undefined,
      30_000,
      100,
    );
    expect([uuidOf(0), uuidOf(1)]).toContain(held);
    expect(await readdir(join(workdir, '.campaign', 'ssh-gpu', 'shells'))).toEqual([held]);

    const run = await runCampaign(dir, yaml);
    expect(run.result.code, run.result.stderr).toBe(0);
    const started = (await gpus.entries()).filter((e) => e[0] === 'start');
    expect(started).toHaveLength(2);
    for (const [, gpu] of started) expect(gpu).not.toBe(held);

    await writeFile(join(workdir, 'go'), '');
    const ended = await shell.done;
    expect(ended.code, ended.stderr).toBe(0);
    expect(ended.stderr).toMatch(new RegExp(`GPUs ${held} are held for the shell until it ends`));
    expect(await readdir(join(workdir, '.campaign', 'ssh-gpu', 'shells'))).toEqual([]);
  }, 120_000);
});
