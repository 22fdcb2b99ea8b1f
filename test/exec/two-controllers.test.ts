/**
 * Two controllers on one campaign, each with its own state directory (a laptop and CI on one
 * manifest), started at once: every task runs exactly once, on Slurm (over SSH), ssh-gpu and
 * local, and both end with the same results. The campaign's generation is the cluster's: a
 * `run --fresh` by one makes the other stop with the reason instead of sending its tasks again.
 */
import { mkdir, readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { readState, runCli, startCli, useBuiltCliAndTemp, writeManifest } from '../helpers/cli.js';
import { clusterIsUp, slurmManifestHead } from '../helpers/slurm-cluster.js';
import { campaignDirs, cluster } from './ssh-gpu/helpers.js';
import { sshdUp, type Sshd } from './transport/sshd.js';

const tempRoot = useBuiltCliAndTemp('two-controllers');
const clusterUp = clusterIsUp('two controllers on Slurm');
let sshd: Sshd | undefined;

beforeAll(async () => {
  sshd = await sshdUp();
}, 300_000);

const KS = [1, 2, 3, 4, 5, 6];

/**
 * Six short tasks, two at a time: their later submissions go out as places free, so the two
 * controllers group them as their passes happen to see the ends. Each task appends a line to
 * its own file in `runs/` of the workdir, one per execution.
 */
const phases = (sleep: number): string => `phases:
  - name: p
    grid: { k: [${KS.join(', ')}] }
    command: mkdir -p runs; echo ran >> runs/\${k}; sleep ${sleep}; echo \${k} > \${output}
    output: o_\${k}.txt
    walltime: 5m
`;

/** How many times each task ran, by its `k`. */
async function executions(workdir: string): Promise<Record<string, number>> {
  const dir = join(workdir, 'runs');
  const names = await readdir(dir).catch(() => [] as string[]);
  const counts: Record<string, number> = {};
  for (const n of names) counts[n] = (await readFile(join(dir, n), 'utf8')).split('\n').filter(Boolean).length;
  return counts;
}

/** The test sshd, or a visible skip (in CI, where it must be up, a failure). */
function sshdOr(ctx: { skip: () => void }): Sshd | undefined {
  if (sshd) return sshd;
  if (process.env.CI === 'true') throw new Error('CI=true and scripts/sshd/up could not start the test sshd');
  ctx.skip();
  return undefined;
}

const once = Object.fromEntries(KS.map((k) => [String(k), 1]));

/** What a state says of each task: its status and the handle of the attempt that made its output. */
async function results(stateDir: string): Promise<Record<string, string>> {
  const state = await readState(stateDir);
  return Object.fromEntries(
    Object.entries(state.tasks).map(([id, t]) => [id, `${t.status} ${t.attempts.at(-1)?.handle ?? ''}`]),
  );
}

/**
 * `campaign run` twice at once, each with its own state directory: both succeed, each task ran
 * once, and both states hold every task completed by the same attempts.
 */
async function twoAtOnce(manifest: string, dir: string, workdir: string, env?: NodeJS.ProcessEnv): Promise<void> {
  const args = (state: string) => ['run', manifest, '--state-dir', join(dir, state), '--poll', '0.5'];
  const [a, b] = await Promise.all([startCli(args('a'), { env }).done, startCli(args('b'), { env }).done]);
  expect(a.code, a.stderr + a.stdout).toBe(0);
  expect(b.code, b.stderr + b.stdout).toBe(0);
  expect(await executions(workdir)).toEqual(once);
  const [ra, rb] = [await results(join(dir, 'a')), await results(join(dir, 'b'))];
  expect(Object.values(ra).every((r) => r.startsWith('completed '))).toBe(true);
  expect(Object.keys(ra)).toHaveLength(KS.length);
  expect(rb).toEqual(ra);
  for (const k of KS) expect((await readFile(join(workdir, `o_${k}.txt`), 'utf8')).trim()).toBe(String(k));
}

describe('two controllers with separate states on one campaign, at once', () => {
  it('local: each task runs once, both end with the same results; --fresh by one stops the other', async () => {
    const dir = join(tempRoot(), 'local');
    const workdir = join(dir, 'work');
    await mkdir(workdir, { recursive: true });
    const manifest = await writeManifest(
      dir,
      `campaign: two-local\ncluster: { executor: local, max_parallel: 2 }\nworkdir: ${workdir}\n${phases(0.5)}`,
    );
    await twoAtOnce(manifest, dir, workdir);

    // A starts afresh: every task runs again, once, in the new generation.
    const fresh = await runCli(['run', manifest, '--state-dir', join(dir, 'a'), '--poll', '0.5', '--fresh']);
    expect(fresh.code, fresh.stderr).toBe(0);
    const twice = Object.fromEntries(KS.map((k) => [String(k), 2]));
    expect(await executions(workdir)).toEqual(twice);
    // B, on the old generation, stops with the reason instead of sending its tasks again.
    const stale = await runCli(['run', manifest, '--state-dir', join(dir, 'b'), '--poll', '0.5']);
    expect(stale.code).toBe(2);
    expect(stale.stderr).toMatch(/started afresh by another controller at \S+/);
    expect(stale.stderr).toContain(join(dir, 'b', 'previous'));
    expect(await executions(workdir)).toEqual(twice);
    // Run again, it follows the new generation: A's attempts adopted, nothing sent again.
    const follows = await runCli(['run', manifest, '--state-dir', join(dir, 'b'), '--poll', '0.5']);
    expect(follows.code, follows.stderr).toBe(0);
    expect(await executions(workdir)).toEqual(twice);
    expect(await results(join(dir, 'b'))).toEqual(await results(join(dir, 'a')));
  }, 120_000);

  it('ssh-gpu: each task runs once, both end with the same results', async (ctx) => {
    const login = sshdOr(ctx);
    if (!login) return;
    const { dir, workdir, gpus } = await campaignDirs(tempRoot)('ssh-gpu');
    const manifest = await writeManifest(
      dir,
      `campaign: two-gpu\n${cluster(login, gpus)}workdir: ${workdir}\ndefaults:\n  resources: { gpus: 1 }\n${phases(0.5)}`,
    );
    await twoAtOnce(manifest, dir, workdir, { ...process.env, CAMPAIGN_SSH_KEY_FILE: login.keyFile });
  }, 120_000);

  it.runIf(clusterUp)(
    'Slurm: each task runs once, both end with the same results',
    async (ctx) => {
      const login = sshdOr(ctx);
      if (!login) return;
      const dir = join(tempRoot(), 'slurm');
      const workdir = join(dir, 'work');
      await mkdir(workdir, { recursive: true });
      const name = `two-${Date.now().toString(36)}`;
      const manifest = await writeManifest(dir, `${slurmManifestHead(login, name, workdir)}${phases(1)}`);
      await twoAtOnce(manifest, dir, workdir, { ...process.env, CAMPAIGN_SSH_KEY_FILE: login.keyFile });
    },
    300_000,
  );
});
