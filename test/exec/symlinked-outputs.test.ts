/**
 * An output that is a symlink, or lies under one, proves nothing of its task's work: a task
 * that links its output to a sibling's fresh file, or writes it through a linked directory out
 * of the workdir, is not recorded as completed. Locally, and on the real Slurm test cluster
 * over SSH.
 */
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readState, runCli, useBuiltCliAndTemp, writeManifest } from '../helpers/cli.js';
import { clusterIsUp, slurmCampaign } from '../helpers/slurm-cluster.js';
import { sshdUp, type Sshd } from './transport/sshd.js';

const clusterUp = clusterIsUp('symlinked-output tests on Slurm');
const tempRoot = useBuiltCliAndTemp('symlinks');
let sshd: Sshd | undefined;
let outside = '';

beforeAll(async () => {
  outside = await mkdtemp(join(tmpdir(), 'campaign-outside-'));
  if (clusterUp) sshd = await sshdUp();
}, 300_000);

afterAll(() => rm(outside, { recursive: true, force: true }));

const phases = () => `  - name: p
    grid: { k: [1, 2, 3] }
    command: |
      case \${k} in
        1) echo 1 > o/1.txt ;;
        2) sleep 2; ln -s 1.txt o/2.txt ;;
        3) ln -s ${outside} o/3; echo 3 > o/3/3.txt; ln -s 3/3.txt o/3.txt ;;
      esac
    output: o/\${k}.txt
    walltime: 5m
`;

async function expectOnlyTheRealOneCompleted(stateDir: string, code: number | null, out: string): Promise<void> {
  expect(code, out).toBe(1);
  const state = await readState(stateDir);
  expect(state.tasks['p/k1']!.status).toBe('completed');
  for (const [id, target] of [
    ['p/k2', /o\/1\.txt$/],
    ['p/k3', new RegExp(`${outside}/3\\.txt$`)],
  ] as const) {
    const a = state.tasks[id]!.attempts;
    expect(
      a.map((x) => x.class),
      id,
    ).toEqual(['unverified']);
    expect(a[0]!.reason, id).toMatch(/ is a symlink to /);
    expect(a[0]!.reason, id).toMatch(target);
  }
}

async function setup(label: string) {
  const dir = join(tempRoot(), label);
  const workdir = join(dir, 'work');
  await mkdir(join(workdir, 'o'), { recursive: true });
  return { dir, workdir, stateDir: join(dir, 'state') };
}

describe('symlinked outputs are not proof of work', () => {
  it('local executor', async () => {
    const s = await setup('local');
    const manifest = await writeManifest(
      s.dir,
      `campaign: links\ncluster: { executor: local }\nworkdir: ${s.workdir}\nphases:\n${phases()}`,
    );
    const r = await runCli(['run', manifest, '--state-dir', s.stateDir], { timeoutMs: 120_000 });
    await expectOnlyTheRealOneCompleted(s.stateDir, r.code, r.stdout + r.stderr);
  });

  it.runIf(clusterUp)(
    'slurm executor over SSH',
    async (ctx) => {
      if (!sshd) return ctx.skip();
      const s = await slurmCampaign(tempRoot(), 'slurm', sshd, phases());
      await mkdir(join(s.workdir, 'o'));
      const r = await runCli(['run', s.manifest, '--state-dir', s.stateDir, '--poll', '1'], {
        timeoutMs: 300_000,
        env: { ...process.env, CAMPAIGN_SSH_KEY_FILE: sshd.keyFile },
      });
      await expectOnlyTheRealOneCompleted(s.stateDir, r.code, r.stdout + r.stderr);
    },
    400_000,
  );
});
