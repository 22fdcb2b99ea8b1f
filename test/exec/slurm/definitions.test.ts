/**
 * A task is its definition (DESIGN rule 11), on the real test cluster over SSH: a changed
 * command is said before anything is submitted and runs exactly the changed tasks again (or
 * keeps them by `--keep-changed`, recorded with the result); a campaign never takes another
 * campaign's outputs, nor a job of another definition when its state is rebuilt; `--fresh`
 * starts over with the earlier outputs moved aside.
 */
import { spawn } from 'node:child_process';
import { closeSync, openSync } from 'node:fs';
import { mkdir, readFile, readdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { provenanceSchema } from '../../../src/state/provenance.js';
import type { CampaignState } from '../../../src/state/state.js';
import { BIN, REPO, planTasks, readState, runCli, useBuiltCliAndTemp, writeManifest } from '../../helpers/cli.js';
import { clusterIsUp, jobsNamed, slurmManifestHead } from '../../helpers/slurm-cluster.js';
import { sshdUp, type Sshd } from '../transport/sshd.js';

const clusterUp = clusterIsUp('Slurm definition tests');
const tempRoot = useBuiltCliAndTemp('slurm-definitions');
/** Campaign names unique to this run: sacct remembers earlier runs' jobs. */
const RUN = Date.now().toString(36);
const LONG = 300_000;
let sshd: Sshd | undefined;

beforeAll(async () => {
  if (clusterUp) sshd = await sshdUp();
}, 300_000);

// Skipped loudly without a cluster (clusterIsUp says so); under CI a skipped test fails the run
// (test/helpers/skipped-fail-ci.ts).

interface Setup {
  name: string;
  dir: string;
  workdir: string;
  stateDir: string;
}

async function setup(label: string): Promise<Setup> {
  const dir = join(tempRoot(), label);
  const workdir = join(dir, 'work');
  await mkdir(workdir, { recursive: true });
  return { name: `${label}-${RUN}`, dir, workdir, stateDir: join(dir, 'state') };
}

/** A phase of tiny tasks whose outputs say which version of the command wrote them. */
const phase = (name: string, values: number[], version: string, outDir = name): string =>
  `  - name: ${name}
    grid: { k: [${values.join(', ')}] }
    command: printf '%s\\n' "${name} ${version} \${k}" > \${output}
    output: ${outDir}/o_\${k}.txt
    walltime: 1m
`;

/** Writes (or rewrites) the campaign's manifest for the test cluster over SSH. */
function manifestOf(s: Setup, phases: string, file = 'campaign.yml', name = s.name): Promise<string> {
  return writeManifest(s.dir, `${slurmManifestHead(sshd!, name, s.workdir, '', 4)}phases:\n${phases}`, file);
}

const sshEnv = (): NodeJS.ProcessEnv => ({ ...process.env, CAMPAIGN_SSH_KEY_FILE: sshd!.keyFile });

const run = (manifest: string, stateDir: string, ...extra: string[]) =>
  runCli(['run', manifest, '--state-dir', stateDir, '--poll', '1', ...extra], { timeoutMs: LONG, env: sshEnv() });

/**
 * `campaign run` with stdout and stderr into one file, so that the lines stand in the order the
 * command wrote them: what it says of a change against its progress lines (the first is written
 * after the first pass, which submits).
 */
async function runMerged(
  manifest: string,
  stateDir: string,
  log: string,
): Promise<{ code: number | null; text: string }> {
  const fd = openSync(log, 'w');
  try {
    const child = spawn(process.execPath, [BIN, 'run', manifest, '--state-dir', stateDir, '--poll', '1'], {
      cwd: REPO,
      env: sshEnv(),
      stdio: ['ignore', fd, fd],
    });
    const timer = setTimeout(() => child.kill('SIGKILL'), LONG);
    const code = await new Promise<number | null>((res, rej) => {
      child.once('error', rej);
      child.once('close', (c) => res(c));
    });
    clearTimeout(timer);
    return { code, text: await readFile(log, 'utf8') };
  } finally {
    closeSync(fd);
  }
}

/** Task id → output path, from the plan. */
async function outputsOf(manifest: string): Promise<Map<string, string>> {
  return new Map((await planTasks(manifest)).map((t) => [t.id, t.output!]));
}

const attemptCounts = (state: CampaignState): Record<string, number> =>
  Object.fromEntries(Object.entries(state.tasks).map(([id, t]) => [id, t.attempts.length]));

const read = (workdir: string, output: string): Promise<string> => readFile(join(workdir, output), 'utf8');

/** The sidecar beside an output, checked against the provenance schema. */
async function sidecar(workdir: string, output: string) {
  const slash = output.lastIndexOf('/');
  const path = join(workdir, output.slice(0, slash + 1), `.${output.slice(slash + 1)}.provenance.json`);
  return provenanceSchema.parse(JSON.parse(await readFile(path, 'utf8')));
}

describe.runIf(clusterUp)('task definitions on the test cluster, over SSH', () => {
  it(
    'a changed command is said first, runs exactly the changed tasks again, and then nothing more',
    async (ctx) => {
      if (!sshd) return ctx.skip();
      const s = await setup('defchg');
      let manifest = await manifestOf(s, phase('train', [1, 2, 3], 'v1') + phase('eval', [1, 2], 'v1'));
      const outputs = await outputsOf(manifest);
      const train = [...outputs.keys()].filter((id) => id.startsWith('train/'));
      const evals = [...outputs.keys()].filter((id) => id.startsWith('eval/'));
      expect(train).toHaveLength(3);
      expect(evals).toHaveLength(2);

      const first = await run(manifest, s.stateDir);
      expect(first.code, first.stdout + first.stderr).toBe(0);
      expect(first.stderr).not.toMatch(/changed/);
      const before = await readState(s.stateDir);
      for (const t of Object.values(before.tasks)) expect(t.attempts).toHaveLength(1);
      const jobsBefore = jobsNamed(`${s.name}~`);
      expect(jobsBefore.length).toBeGreaterThan(0);

      // Only train's command changes.
      manifest = await manifestOf(s, phase('train', [1, 2, 3], 'v2') + phase('eval', [1, 2], 'v1'));
      const second = await runMerged(manifest, s.stateDir, join(s.dir, 'second.log'));
      expect(second.code, second.text).toBe(0);
      const lines = second.text.split('\n');
      const said = lines.findIndex((l) => l === 'campaign: phase train: command changed: 3 tasks will run again');
      expect(said, second.text).toBeGreaterThanOrEqual(0);
      const firstProgress = lines.findIndex((l) => /^\[campaign \S+\] /.test(l));
      expect(firstProgress, second.text).toBeGreaterThan(said);
      expect(second.text).not.toMatch(/phase eval: .*changed/);

      const after = await readState(s.stateDir);
      for (const id of train) {
        const [was, now] = after.tasks[id]!.attempts;
        expect(after.tasks[id]!.attempts, id).toHaveLength(2);
        expect(after.tasks[id]!.status).toBe('completed');
        expect(now!.definition).toBeDefined();
        expect(now!.definition).not.toBe(was!.definition);
        expect(was!.definition).toBe(before.tasks[id]!.attempts[0]!.definition);
      }
      for (const id of evals) expect(after.tasks[id]!.attempts, id).toEqual(before.tasks[id]!.attempts);
      for (const id of train) {
        const k = id.match(/k(\d+)$/)?.[1] ?? '';
        expect(await read(s.workdir, outputs.get(id)!), id).toBe(`train v2 ${k}\n`);
        expect((await sidecar(s.workdir, outputs.get(id)!)).attempt).toBe(2);
      }
      for (const id of evals) {
        const k = id.match(/k(\d+)$/)?.[1] ?? '';
        expect(await read(s.workdir, outputs.get(id)!), id).toBe(`eval v1 ${k}\n`);
      }
      const jobsAfter = jobsNamed(`${s.name}~`);
      expect(jobsAfter.length).toBeGreaterThan(jobsBefore.length);

      // Nothing changed since: nothing is submitted.
      const third = await run(manifest, s.stateDir);
      expect(third.code, third.stdout + third.stderr).toBe(0);
      expect(third.stderr).not.toMatch(/changed/);
      expect(attemptCounts(await readState(s.stateDir))).toEqual(attemptCounts(after));
      expect(jobsNamed(`${s.name}~`)).toEqual(jobsAfter);
    },
    LONG,
  );

  it(
    '--keep-changed keeps the results, records the choice in the state and the provenance',
    async (ctx) => {
      if (!sshd) return ctx.skip();
      const s = await setup('defkeep');
      let manifest = await manifestOf(s, phase('p', [1, 2], 'v1'));
      const outputs = await outputsOf(manifest);
      const first = await run(manifest, s.stateDir);
      expect(first.code, first.stdout + first.stderr).toBe(0);
      const jobs = jobsNamed(`${s.name}~`);

      manifest = await manifestOf(s, phase('p', [1, 2], 'v2'));
      const kept = await run(manifest, s.stateDir, '--keep-changed');
      expect(kept.code, kept.stdout + kept.stderr).toBe(0);
      expect(kept.stderr).toContain(
        'campaign: phase p: command changed: 2 completed tasks kept as they are, by --keep-changed',
      );
      const state = await readState(s.stateDir);
      for (const [id, output] of outputs) {
        const t = state.tasks[id]!;
        expect(t.attempts, id).toHaveLength(1);
        expect(t.status).toBe('completed');
        const last = t.attempts.at(-1)!;
        expect(last.kept, id).toHaveLength(1);
        expect(last.kept![0]!.changed).toContain('command');
        expect(last.kept![0]!.definition).not.toBe(last.definition);
        const k = id.match(/k(\d+)$/)?.[1] ?? '';
        expect(await read(s.workdir, output)).toBe(`p v1 ${k}\n`);
        const record = await sidecar(s.workdir, output);
        expect(record.campaign).toBe(s.name);
        expect(record.definition).toBe(last.definition);
        expect(record.kept).toHaveLength(1);
        expect(record.kept[0]!.definition).toBe(last.kept![0]!.definition);
        expect(record.kept[0]!.changed).toContain('command');
      }
      expect(jobsNamed(`${s.name}~`)).toEqual(jobs);

      const [oneId, oneOutput] = [...outputs][0]!;
      const shown = await runCli(['provenance', manifest, oneOutput, '--state-dir', s.stateDir], { env: sshEnv() });
      expect(shown.code, shown.stdout + shown.stderr).toBe(0);
      expect(shown.stdout).toContain(`task ${oneId}`);
      expect(shown.stdout).toMatch(/kept by choice at .* \(command changed\)/);
      expect(shown.stdout).toContain("the campaign's current result for this task");

      // The choice holds: a plain run afterwards sends nothing again.
      const again = await run(manifest, s.stateDir);
      expect(again.code, again.stdout + again.stderr).toBe(0);
      expect(again.stderr).not.toMatch(/changed/);
      expect(attemptCounts(await readState(s.stateDir))).toEqual(attemptCounts(state));
      expect(jobsNamed(`${s.name}~`)).toEqual(jobs);
    },
    LONG,
  );

  it(
    "a second campaign in the same workdir fails its output gate on the first one's paths and leaves them be",
    async (ctx) => {
      if (!sshd) return ctx.skip();
      const s = await setup('defshare');
      const other = `defshare2-${RUN}`;
      const a = await manifestOf(s, phase('p', [1, 2], 'first'), 'a.yml');
      const b = await manifestOf(s, phase('p', [1, 2], 'second'), 'b.yml', other);
      const stateA = join(s.dir, 'state-a');
      const stateB = join(s.dir, 'state-b');
      const outputs = await outputsOf(a);

      const first = await run(a, stateA);
      expect(first.code, first.stdout + first.stderr).toBe(0);
      const bytes = new Map<string, Buffer>();
      for (const output of outputs.values()) {
        bytes.set(output, await readFile(join(s.workdir, output)));
        const slash = output.lastIndexOf('/');
        const side = join(output.slice(0, slash + 1), `.${output.slice(slash + 1)}.provenance.json`);
        bytes.set(side, await readFile(join(s.workdir, side)));
      }

      const second = await run(b, stateB);
      expect(second.code, second.stdout + second.stderr).toBe(1);
      const state = await readState(stateB);
      for (const id of outputs.keys()) {
        const t = state.tasks[id]!;
        expect(t.status, id).toBe('failed');
        expect(t.reason, id).toContain(`belongs to task ${id} of campaign ${s.name}`);
        expect(t.attempts.at(-1)!.class).toBe('gate');
      }
      expect(second.stdout + second.stderr).toContain(`of campaign ${s.name}`);
      for (const [path, was] of bytes) expect((await readFile(join(s.workdir, path))).equals(was), path).toBe(true);
      for (const output of outputs.values())
        expect(await readFile(join(s.workdir, '.campaign', 'claims', output), 'utf8')).toMatch(
          new RegExp(`^${s.name} `),
        );
    },
    LONG,
  );

  it(
    'a state lost before the command changed: the rebuilt state adopts no old job, and the outputs are the new ones',
    async (ctx) => {
      if (!sshd) return ctx.skip();
      const s = await setup('deflost');
      let manifest = await manifestOf(s, phase('p', [1, 2, 3], 'v1'));
      const outputs = await outputsOf(manifest);
      const first = await run(manifest, s.stateDir);
      expect(first.code, first.stdout + first.stderr).toBe(0);
      const jobs = jobsNamed(`${s.name}~`);
      const old = await readState(s.stateDir);
      const oldHandles = new Set(Object.values(old.tasks).flatMap((t) => t.attempts.map((x) => x.handle)));

      await rm(s.stateDir, { recursive: true });
      manifest = await manifestOf(s, phase('p', [1, 2, 3], 'v2'));
      const second = await run(manifest, s.stateDir);
      expect(second.code, second.stdout + second.stderr).toBe(0);
      for (const [id, output] of outputs) {
        const k = id.match(/k(\d+)$/)?.[1] ?? '';
        expect(await read(s.workdir, output), id).toBe(`p v2 ${k}\n`);
      }
      const state = await readState(s.stateDir);
      for (const [id, t] of Object.entries(state.tasks)) {
        const last = t.attempts.at(-1)!;
        expect(t.status, id).toBe('completed');
        expect(oldHandles.has(last.handle), `${id} completed as ${last.handle}, a job of the old command`).toBe(false);
        expect(last.definition).not.toBe(old.tasks[id]!.attempts.at(-1)!.definition);
      }
      expect(jobsNamed(`${s.name}~`).length).toBeGreaterThan(jobs.length);
    },
    LONG,
  );

  it(
    '--fresh moves the earlier outputs aside and runs every task again in a new state',
    async (ctx) => {
      if (!sshd) return ctx.skip();
      const s = await setup('deffresh');
      const manifest = await manifestOf(s, phase('p', [1, 2], 'v1'));
      const outputs = await outputsOf(manifest);
      const first = await run(manifest, s.stateDir);
      expect(first.code, first.stdout + first.stderr).toBe(0);
      const old = await readState(s.stateDir);
      const jobs = jobsNamed(`${s.name}~`);

      const fresh = await run(manifest, s.stateDir, '--fresh');
      expect(fresh.code, fresh.stdout + fresh.stderr).toBe(0);
      expect(fresh.stderr).toContain('started afresh');
      const asideRoot = join(s.workdir, '.campaign', 'aside', s.name);
      const stamps = await readdir(asideRoot);
      expect(stamps).toHaveLength(1);
      const aside = join(asideRoot, stamps[0]!);
      for (const [id, output] of outputs) {
        const k = id.match(/k(\d+)$/)?.[1] ?? '';
        expect(await readFile(join(aside, 'outputs', output), 'utf8'), id).toBe(`p v1 ${k}\n`);
        expect(await read(s.workdir, output), id).toBe(`p v1 ${k}\n`);
        const record = await sidecar(s.workdir, output);
        expect(record.attempt).toBe(1);
        expect(record.handle).not.toBe(old.tasks[id]!.attempts[0]!.handle);
      }
      const state = await readState(s.stateDir);
      expect(state.created).not.toBe(old.created);
      expect(Object.keys(state.tasks).sort()).toEqual([...outputs.keys()].sort());
      for (const [id, t] of Object.entries(state.tasks)) {
        expect(t.status, id).toBe('completed');
        expect(t.attempts.map((x) => x.n)).toEqual([1]);
        expect(t.attempts[0]!.handle).not.toBe(old.tasks[id]!.attempts[0]!.handle);
      }
      expect(jobsNamed(`${s.name}~`).length).toBeGreaterThan(jobs.length);
    },
    LONG,
  );
});
