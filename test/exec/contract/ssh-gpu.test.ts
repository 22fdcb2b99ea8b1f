/**
 * The executor contract (battery.ts) against the ssh-gpu executor, over real SSH to the test
 * sshd with the nvidia-smi stand-in; and what only it records: the GPUs in the provenance.
 * Skipped visibly without the sshd.
 */
import { mkdir, readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import type { Provenance } from '../../../src/state/provenance.js';
import { runCli, useBuiltCliAndTemp } from '../../helpers/cli.js';
import {
  StandIn,
  campaignDirs,
  cluster,
  fourGpus,
  runCampaign,
  sshdUp,
  uuidOf,
  type Row,
  type Sshd,
} from '../ssh-gpu/helpers.js';
import { contractBattery } from './battery.js';

let sshd: Sshd | undefined;
beforeAll(async () => {
  sshd = await sshdUp();
  if (sshd) process.env.CAMPAIGN_SSH_KEY_FILE = sshd.keyFile;
}, 180_000);

contractBattery({
  name: 'ssh-gpu',
  ready: () => sshd !== undefined,
  async place(dir) {
    const workdir = join(dir, 'work');
    await mkdir(workdir, { recursive: true });
    const gpus = await StandIn.install(join(dir, 'gpus'), fourGpus());
    return { workdir, head: (name) => `campaign: ${name}\n${cluster(sshd!, gpus)}workdir: ${workdir}\n` };
  },
  ssh: () => ({ keyFile: sshd!.keyFile }),
  poll: 0.3,
  timeoutMs: 120_000,
  attempts: (campaign) => `.campaign/ssh-gpu/${campaign}/attempts`,
  setsAside: true,
});

const tempRoot = useBuiltCliAndTemp('contract-ssh-gpu-provenance');
const setUp = campaignDirs(tempRoot);

describe('ssh-gpu: the GPUs in the provenance', () => {
  it("a completed output's provenance names the GPUs the stand-in reported, the attempt and its log", async (ctx) => {
    if (!sshd) return ctx.skip();
    // GPUs 0 and 2 are in use by someone else: the tasks run on 1 and 3 only.
    const rows: Row[] = [
      [0, uuidOf(0), 30_000],
      [1, uuidOf(1), 3],
      [2, uuidOf(2), 30_000],
      [3, uuidOf(3), 3],
    ];
    const { dir, workdir, gpus } = await setUp('provenance', rows);
    const reported = [...(await gpus.read()).matchAll(/GPU-[0-9a-f-]+/g)].map((m) => m[0]);
    expect(reported).toEqual([0, 1, 2, 3].map(uuidOf));
    const r = await runCampaign(
      dir,
      `campaign: defs
${cluster(sshd, gpus)}workdir: ${workdir}
phases:
  - name: train
    grid: { seed: [1, 2, 3] }
    walltime: 1m
    output: out/train-\${seed}.txt
    command: echo "v1 \${seed} $CUDA_VISIBLE_DEVICES" > \${output}
`,
    );
    expect(r.result.code, r.result.stderr).toBe(0);
    const sidecar = async (output: string): Promise<Provenance> =>
      JSON.parse(
        await readFile(join(workdir, 'out', `.${output.slice('out/'.length)}.provenance.json`), 'utf8'),
      ) as Provenance;

    for (const seed of [1, 2, 3]) {
      const id = `train/seed${seed}`;
      const output = `out/train-${seed}.txt`;
      const p = await sidecar(output);
      const a = r.state.tasks[id]!.attempts.at(-1)!;
      expect(r.state.tasks[id]!.status, id).toBe('completed');
      // What the task itself saw in CUDA_VISIBLE_DEVICES.
      const seen = (await readFile(join(workdir, output), 'utf8')).trim().split(' ')[2]!.split(',');
      expect(p.gpus).toEqual(seen);
      expect(p.gpus).toEqual(a.gpus);
      expect(p.gpus).toHaveLength(1);
      expect([uuidOf(1), uuidOf(3)]).toContain(p.gpus[0]);
      // The fields every kind writes are the battery's; these are the GPUs' and the attempt's own.
      expect(p).toMatchObject({ task: id, attempt: 1, handle: a.handle });
      expect(p.log).toBe(join(workdir, '.campaign', 'ssh-gpu', 'defs', 'attempts', id, '1', 'log'));
      expect(p.handle).toContain(p.gpus[0]);
      expect((await stat(p.log!)).isFile()).toBe(true);
    }

    // `campaign provenance` prints the record beside the output.
    const file = join(dir, 'campaign.yml');
    const json = await runCli(['provenance', file, 'out/train-1.txt', '--state-dir', r.stateDir, '--format', 'json']);
    expect(json.code, json.stderr).toBe(0);
    expect(JSON.parse(json.stdout)).toEqual(await sidecar('out/train-1.txt'));
    const text = await runCli(['provenance', file, 'out/train-1.txt', '--state-dir', r.stateDir]);
    expect(text.code, text.stderr).toBe(0);
    const p1 = await sidecar('out/train-1.txt');
    expect(text.stdout).toContain(`GPUs ${p1.gpus[0]}`);
    expect(text.stdout).toContain(`attempt 1`);
    expect(text.stdout).toContain(`log ${p1.log}`);
    expect(text.stdout).toContain("the campaign's current result for this task");
  }, 120_000);
});
