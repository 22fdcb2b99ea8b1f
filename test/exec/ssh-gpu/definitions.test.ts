/**
 * DESIGN rule 11 with the ssh-gpu executor, through the real `campaign` command over real SSH to
 * the test sshd and the nvidia-smi stand-in: a task is its definition. A changed command runs
 * exactly the changed tasks again (or keeps them, by a recorded choice); another campaign never
 * takes over this one's outputs; an attempt left under another definition is never adopted;
 * every output says what made it, GPUs included; `--fresh` starts over without deleting anything.
 */
import { mkdir, readdir, readFile, rm, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { readState, runCli, startCli, useBuiltCliAndTemp, waitUntil, writeManifest } from '../../helpers/cli.js';
import type { Provenance } from '../../../src/state/provenance.js';
import type { CampaignState } from '../../../src/state/state.js';
import { campaignDirs, cluster, sshdUp, uuidOf, type Ran, type Row, type Sshd, type StandIn } from './helpers.js';

const tempRoot = useBuiltCliAndTemp('ssh-gpu-definitions');
let sshd: Sshd | undefined;

beforeAll(async () => {
  sshd = await sshdUp();
  if (sshd) process.env.CAMPAIGN_SSH_KEY_FILE = sshd.keyFile;
}, 180_000);

beforeEach((ctx) => {
  if (sshd) return;
  // sshdUp has said loudly why; in CI a missing sshd is a failure, not a skip.
  if (process.env.CI === 'true') throw new Error('CI=true and scripts/sshd/up could not start the test sshd');
  ctx.skip();
});

const setUp = campaignDirs(tempRoot);

const TRAIN = ['train/seed1', 'train/seed2', 'train/seed3'];
const OTHER = ['other/seed1', 'other/seed2'];
const OUTPUTS = ['out/train-1.txt', 'out/train-2.txt', 'out/train-3.txt', 'out/other-1.txt', 'out/other-2.txt'];

/**
 * Two independent phases: `train`, whose command carries `version` (the marker its outputs
 * hold, with the GPUs the task saw), and `other`, which stays as it is. Each task writes a
 * ledger line when it starts.
 */
function manifest(
  s: Sshd,
  gpus: StandIn,
  workdir: string,
  version: string,
  campaign = 'defs',
  otherWord = 'other',
): string {
  return `campaign: ${campaign}
${cluster(s, gpus)}workdir: ${workdir}
phases:
  - name: train
    grid: { seed: [1, 2, 3] }
    walltime: 1m
    output: out/train-\${seed}.txt
    command: |
      ${gpus.log('start')}
      echo "${version} \${seed} $CUDA_VISIBLE_DEVICES" > \${output}
  - name: other
    grid: { seed: [1, 2] }
    walltime: 1m
    output: out/other-\${seed}.txt
    command: |
      ${gpus.log('start')}
      echo "${otherWord} \${seed}" > \${output}
`;
}

/** `campaign run` on the manifest written into `dir` (state in `dir/state`), with `flags`. */
async function run(dir: string, yaml: string, flags: string[] = []): Promise<Ran> {
  await mkdir(dir, { recursive: true });
  const file = await writeManifest(dir, yaml);
  const stateDir = join(dir, 'state');
  const result = await runCli(['run', file, '--state-dir', stateDir, '--poll', '0.3', ...flags], {
    timeoutMs: 60_000,
  });
  if (/internal error|bug in campaign/i.test(result.stderr)) throw new Error(result.stderr);
  return { result, state: await readState(stateDir), stateDir };
}

/** Each task's attempt numbers, as the state records them. */
const attemptsOf = (state: CampaignState): Record<string, number[]> =>
  Object.fromEntries(Object.entries(state.tasks).map(([id, t]) => [id, t.attempts.map((a) => a.n)]));

const lastOf = (state: CampaignState, id: string) => state.tasks[id]!.attempts.at(-1)!;

/** The bytes of the files under `workdir`, by path. */
async function snapshot(workdir: string, paths: readonly string[]): Promise<Map<string, Buffer>> {
  return new Map(await Promise.all(paths.map(async (p) => [p, await readFile(join(workdir, p))] as const)));
}

/** The provenance sidecar beside an output. */
async function sidecar(workdir: string, output: string): Promise<Provenance> {
  const [d, name] = [output.slice(0, output.lastIndexOf('/')), output.slice(output.lastIndexOf('/') + 1)];
  return JSON.parse(await readFile(join(workdir, d, `.${name}.provenance.json`), 'utf8')) as Provenance;
}

/** How many times each task started, from the ledger. */
async function starts(gpus: StandIn): Promise<Record<string, number>> {
  const out: Record<string, number> = {};
  for (const [word, , task = ''] of await gpus.entries()) if (word === 'start') out[task] = (out[task] ?? 0) + 1;
  return out;
}

/**
 * What a run says of itself on stderr (`campaign: …` lines; the lint warnings are apart), less
 * the closing line every run ends with, that points to the summary.
 */
const notes = (stderr: string): string[] =>
  stderr.split('\n').filter((l) => l.startsWith('campaign: ') && !l.startsWith('campaign: the summary is in '));

const attemptsRoot = (workdir: string, campaign: string): string =>
  join(workdir, '.campaign', 'ssh-gpu', campaign, 'attempts');

const exists = (p: string): Promise<boolean> =>
  stat(p).then(
    () => true,
    () => false,
  );

function expectAllCompleted(r: Ran): void {
  expect(r.result.code, r.result.stderr).toBe(0);
  for (const id of [...TRAIN, ...OTHER]) expect(r.state.tasks[id]?.status, id).toBe('completed');
}

describe('ssh-gpu: a task is its definition (DESIGN rule 11)', () => {
  it('a changed command runs exactly the changed tasks again, says so before submitting, and an unchanged run sends nothing', async () => {
    const { dir, workdir, gpus } = await setUp('changed');
    const first = await run(dir, manifest(sshd!, gpus, workdir, 'v1'));
    expectAllCompleted(first);
    expect(attemptsOf(first.state)).toEqual(Object.fromEntries([...TRAIN, ...OTHER].map((id) => [id, [1]])));
    const otherBefore = await snapshot(workdir, ['out/other-1.txt', 'out/other-2.txt']);

    // The second run, watched: by the time its first task of the new command has started, the
    // run has already said what changed and what runs again.
    const file = await writeManifest(dir, manifest(sshd!, gpus, workdir, 'v2'));
    const stateDir = join(dir, 'state');
    const second = startCli(['run', file, '--state-dir', stateDir, '--poll', '0.3']);
    let said = '';
    second.child.stderr!.on('data', (b: Buffer) => (said += b.toString()));
    const saidAtFirstStart = await waitUntil(
      'a task of the new command to start',
      async () => ((await gpus.entries()).filter((e) => e[0] === 'start').length > 5 ? said : undefined),
      45_000,
    );
    const r2 = await second.done;
    expect(r2.code, r2.stderr).toBe(0);
    expect(saidAtFirstStart).toMatch(/^campaign: phase train: command changed: 3 tasks will run again$/m);
    expect(notes(r2.stderr)).toEqual(['campaign: phase train: command changed: 3 tasks will run again']);

    const s2 = await readState(stateDir);
    for (const id of TRAIN) {
      const t = s2.tasks[id]!;
      expect(t.status, id).toBe('completed');
      expect(
        t.attempts.map((a) => a.n),
        id,
      ).toEqual([1, 2]);
      expect(
        t.attempts.map((a) => a.class),
        id,
      ).toEqual(['completed', 'completed']);
      expect(t.attempts[1]!.definition, id).toBeDefined();
      expect(t.attempts[1]!.definition, id).not.toBe(t.attempts[0]!.definition);
      // The new attempt's directory records the definition it ran under.
      const recorded = await readFile(join(attemptsRoot(workdir, 'defs'), id, '2', 'definition'), 'utf8');
      expect(recorded.trim(), id).toBe(t.attempts[1]!.definition);
    }
    for (const id of OTHER) {
      expect(s2.tasks[id]!.attempts, id).toEqual(first.state.tasks[id]!.attempts);
    }
    for (const seed of [1, 2, 3]) {
      expect(await readFile(join(workdir, `out/train-${seed}.txt`), 'utf8')).toMatch(new RegExp(`^v2 ${seed} GPU-`));
    }
    expect(await snapshot(workdir, ['out/other-1.txt', 'out/other-2.txt'])).toEqual(otherBefore);
    expect(await starts(gpus)).toEqual({
      'train/seed1': 2,
      'train/seed2': 2,
      'train/seed3': 2,
      'other/seed1': 1,
      'other/seed2': 1,
    });

    // Nothing changed since: nothing is sent.
    const third = await run(dir, manifest(sshd!, gpus, workdir, 'v2'));
    expectAllCompleted(third);
    expect(notes(third.result.stderr)).toEqual([]);
    expect(attemptsOf(third.state)).toEqual(attemptsOf(s2));
    expect((await starts(gpus))['train/seed1']).toBe(2);
    expect((await gpus.entries()).filter((e) => e[0] === 'start')).toHaveLength(8);
  }, 120_000);

  it('--keep-changed keeps the results, records the choice in the state and the provenance, and a later run keeps to it', async () => {
    const { dir, workdir, gpus } = await setUp('keep');
    const first = await run(dir, manifest(sshd!, gpus, workdir, 'v1'));
    expectAllCompleted(first);
    const before = await snapshot(workdir, OUTPUTS);

    const kept = await run(dir, manifest(sshd!, gpus, workdir, 'v2'), ['--keep-changed']);
    expectAllCompleted(kept);
    expect(notes(kept.result.stderr)).toEqual([
      'campaign: phase train: command changed: 3 completed tasks kept as they are, by --keep-changed (recorded with them)',
    ]);
    expect(attemptsOf(kept.state)).toEqual(attemptsOf(first.state));
    expect(await snapshot(workdir, OUTPUTS)).toEqual(before);
    expect((await gpus.entries()).filter((e) => e[0] === 'start')).toHaveLength(5);

    for (const [i, id] of TRAIN.entries()) {
      const a = lastOf(kept.state, id);
      expect(a.n).toBe(1);
      expect(a.definition).toBe(lastOf(first.state, id).definition);
      expect(a.kept, id).toHaveLength(1);
      const k = a.kept![0]!;
      expect(k.changed).toContain('command');
      expect(k.definition).not.toBe(a.definition);
      const p = await sidecar(workdir, `out/train-${i + 1}.txt`);
      expect(p.definition).toBe(a.definition);
      expect(p.kept).toEqual([{ definition: k.definition, at: k.at, changed: k.changed }]);
    }
    for (const id of OTHER) expect(lastOf(kept.state, id).kept, id).toBeUndefined();
    expect((await sidecar(workdir, 'out/other-1.txt')).kept).toEqual([]);

    // The kept results now count for the new definition: a plain run sends nothing again.
    const after = await run(dir, manifest(sshd!, gpus, workdir, 'v2'));
    expectAllCompleted(after);
    expect(notes(after.result.stderr)).toEqual([]);
    expect(attemptsOf(after.state)).toEqual(attemptsOf(first.state));
    expect((await gpus.entries()).filter((e) => e[0] === 'start')).toHaveLength(5);
  }, 120_000);

  it("another campaign in the same workdir with the same output paths fails its output gate, naming the first, and leaves the first's outputs as they were", async () => {
    const { dir, workdir, gpus } = await setUp('two-campaigns');
    const first = await run(dir, manifest(sshd!, gpus, workdir, 'v1', 'first'));
    expectAllCompleted(first);
    const sidecars = OUTPUTS.map((o) => o.replace(/([^/]+)$/, '.$1.provenance.json'));
    const claims = OUTPUTS.map((o) => `.campaign/claims/${o}`);
    const before = await snapshot(workdir, [...OUTPUTS, ...sidecars, ...claims]);

    const second = await run(join(dir, 'second'), manifest(sshd!, gpus, workdir, 'intruder', 'second', 'mine'));
    expect(second.result.code, second.result.stderr).toBe(1);
    for (const [i, id] of [...TRAIN, ...OTHER].entries()) {
      const t = second.state.tasks[id]!;
      expect(t.status, id).toBe('failed');
      expect(
        t.attempts.map((a) => a.class),
        id,
      ).toEqual(['gate']);
      expect(t.reason, id).toMatch(/gate output/);
      expect(t.reason, id).toContain(`${OUTPUTS[i]} belongs to task ${id} of campaign first`);
    }
    // The gate comes before the command: none of the second campaign's commands ran.
    expect((await gpus.entries()).filter((e) => e[0] === 'start')).toHaveLength(5);
    expect(await snapshot(workdir, [...OUTPUTS, ...sidecars, ...claims])).toEqual(before);
    expect((await readFile(join(workdir, claims[0]!), 'utf8')).trim()).toBe('first train/seed1');
    expect(await exists(attemptsRoot(workdir, 'first'))).toBe(true);
  }, 120_000);

  it('with the state lost and the command changed, the attempts left under the old definition are set aside, never adopted', async () => {
    const { dir, workdir, gpus } = await setUp('state-lost');
    const first = await run(dir, manifest(sshd!, gpus, workdir, 'v1'));
    expectAllCompleted(first);
    await rm(join(dir, 'state'), { recursive: true, force: true });

    const second = await run(dir, manifest(sshd!, gpus, workdir, 'v2'));
    expectAllCompleted(second);
    for (const [i, id] of TRAIN.entries()) {
      expect(await readFile(join(workdir, `out/train-${i + 1}.txt`), 'utf8')).toMatch(new RegExp(`^v2 ${i + 1} GPU-`));
      const a = lastOf(second.state, id);
      expect(a.definition, id).not.toBe(lastOf(first.state, id).definition);
      const taskDir = join(attemptsRoot(workdir, 'defs'), id);
      const names = await readdir(taskDir);
      const superseded = names.filter((n) => /^1\.superseded-\d+$/.test(n));
      expect(superseded, `${id}: ${names.join(' ')}`).toHaveLength(1);
      // The old attempt, kept whole under its old definition; the one in use is the new one's.
      const old = await readFile(join(taskDir, superseded[0]!, 'definition'), 'utf8');
      expect(old.trim()).toBe(lastOf(first.state, id).definition);
      expect(await readFile(join(taskDir, superseded[0]!, 'exit'), 'utf8')).toBeTruthy();
      const current = await readFile(join(taskDir, String(a.n), 'definition'), 'utf8');
      expect(current.trim()).toBe(a.definition);
    }
    const ran = await starts(gpus);
    for (const id of TRAIN) expect(ran[id], id).toBe(2);
    // The unchanged phase's attempts are this definition's: adopted, not run again.
    for (const id of OTHER) {
      expect(ran[id], id).toBe(1);
      expect((await readdir(join(attemptsRoot(workdir, 'defs'), id))).filter((n) => n.includes('superseded'))).toEqual(
        [],
      );
    }
  }, 120_000);

  it("a completed output's provenance names the GPUs the stand-in reported, the attempt and its log", async () => {
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
    const r = await run(dir, manifest(sshd!, gpus, workdir, 'v1'));
    expectAllCompleted(r);

    for (const [i, id] of TRAIN.entries()) {
      const output = `out/train-${i + 1}.txt`;
      const p = await sidecar(workdir, output);
      const a = lastOf(r.state, id);
      // What the task itself saw in CUDA_VISIBLE_DEVICES.
      const seen = (await readFile(join(workdir, output), 'utf8')).trim().split(' ')[2]!.split(',');
      expect(p.gpus).toEqual(seen);
      expect(p.gpus).toEqual(a.gpus);
      expect(p.gpus).toHaveLength(1);
      expect([uuidOf(1), uuidOf(3)]).toContain(p.gpus[0]);
      expect(p).toMatchObject({
        campaign: 'defs',
        phase: 'train',
        task: id,
        stage: 'full',
        values: { seed: i + 1 },
        output,
        attempt: 1,
        definition: a.definition,
        handle: a.handle,
        exit_status: 0,
        kept: [],
        log: join(attemptsRoot(workdir, 'defs'), id, '1', 'log'),
      });
      expect(p.handle).toContain(p.gpus[0]);
      expect(await exists(p.log!)).toBe(true);
    }

    // `campaign provenance` prints the record beside the output.
    const file = join(dir, 'campaign.yml');
    const json = await runCli(['provenance', file, 'out/train-1.txt', '--state-dir', r.stateDir, '--format', 'json']);
    expect(json.code, json.stderr).toBe(0);
    expect(JSON.parse(json.stdout)).toEqual(await sidecar(workdir, 'out/train-1.txt'));
    const text = await runCli(['provenance', file, 'out/train-1.txt', '--state-dir', r.stateDir]);
    expect(text.code, text.stderr).toBe(0);
    const p1 = await sidecar(workdir, 'out/train-1.txt');
    expect(text.stdout).toContain(`GPUs ${p1.gpus[0]}`);
    expect(text.stdout).toContain(`attempt 1`);
    expect(text.stdout).toContain(`log ${p1.log}`);
    expect(text.stdout).toContain("the campaign's current result for this task");
  }, 120_000);

  it('--fresh starts over: the earlier outputs and attempts are moved aside, and every task runs again to completion', async () => {
    const { dir, workdir, gpus } = await setUp('fresh');
    const yaml = manifest(sshd!, gpus, workdir, 'v1');
    const first = await run(dir, yaml);
    expectAllCompleted(first);
    const sidecars = OUTPUTS.map((o) => o.replace(/([^/]+)$/, '.$1.provenance.json'));
    const before = await snapshot(workdir, [...OUTPUTS, ...sidecars]);

    const fresh = await run(dir, yaml, ['--fresh']);
    expectAllCompleted(fresh);
    expect(fresh.result.stderr).toMatch(/^campaign: started afresh: .*5 outputs and the attempts moved to /m);
    expect(fresh.result.stderr).toMatch(/nothing was deleted/);

    const asideRoot = join(workdir, '.campaign', 'aside', 'defs');
    const stamps = await readdir(asideRoot);
    expect(stamps).toHaveLength(1);
    const aside = join(asideRoot, stamps[0]!);
    for (const [p, bytes] of before) expect(await readFile(join(aside, 'outputs', p)), p).toEqual(bytes);
    for (const id of [...TRAIN, ...OTHER]) {
      expect(await exists(join(aside, 'executor', 'attempts', id, '1', 'definition')), id).toBe(true);
    }
    // Every task ran again, as attempt 1 of a new generation, and wrote its output anew.
    expect(attemptsOf(fresh.state)).toEqual(Object.fromEntries([...TRAIN, ...OTHER].map((id) => [id, [1]])));
    expect(await starts(gpus)).toEqual(Object.fromEntries([...TRAIN, ...OTHER].map((id) => [id, 2])));
    for (const [i, id] of TRAIN.entries()) {
      const output = `out/train-${i + 1}.txt`;
      expect(await readFile(join(workdir, output), 'utf8')).toMatch(new RegExp(`^v1 ${i + 1} GPU-`));
      const p = await sidecar(workdir, output);
      expect(p.handle).toBe(lastOf(fresh.state, id).handle);
      expect(p.submitted).toBe(lastOf(fresh.state, id).submittedAt);
      expect(p.submitted).not.toBe(lastOf(first.state, id).submittedAt);
    }
    expect((await readFile(join(workdir, '.campaign/claims/out/train-1.txt'), 'utf8')).trim()).toBe('defs train/seed1');
  }, 120_000);
});
