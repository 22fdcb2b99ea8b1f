/**
 * A result names the code that made it (DESIGN rule 11), on the local executor through the real
 * CLI, in a real git repository: the declared code is shipped once as a read-only snapshot the
 * tasks run in, an edit to one phase's file runs exactly that phase again (and says so first),
 * an unchanged rerun ships and sends nothing, and a task sent before an edit keeps its snapshot.
 */
import { execFileSync } from 'node:child_process';
import { mkdir, readdir, readFile, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { CampaignState } from '../../src/state/state.js';
import { readState, runCli, startCli, useBuiltCliAndTemp, waitUntil } from '../helpers/cli.js';

const tempRoot = useBuiltCliAndTemp('code');

/** Training code as users write it: reads its arguments, writes its result where it is told. */
const TRAIN = (version: string, seconds = 0) => `import json, os, sys, time
time.sleep(${seconds})
seed, out = int(sys.argv[1]), sys.argv[2]
with open(out, "w") as f:
    json.dump({"seed": seed, "train": "${version}", "cwd": os.getcwd()}, f)
`;
/** Evaluation reads the trained model through its precondition, absolute under the workdir. */
const EVALUATE = (version: string) => `import json, os, sys
with open(os.environ["CAMPAIGN_INPUT_0"]) as f:
    model = json.load(f)
model["evaluate"] = "${version}"
with open(sys.argv[1], "w") as f:
    json.dump(model, f)
`;

const MANIFEST = `campaign: coded
cluster: { executor: local, name: here, max_parallel: 4 }
workdir: ../work
code: { paths: [train.py, evaluation/] }
defaults: { walltime: 1m }
phases:
  - name: train
    code: { paths: [train.py] }
    grid: { seed: [1, 2] }
    command: python3 train.py \${seed} \${output}
    output: models/seed\${seed}.json
  - name: evaluate
    depends_on: train
    code: { paths: [evaluation/] }
    grid: { seed: [1, 2] }
    preconditions: [{ exists: "models/seed\${seed}.json" }]
    command: python3 evaluation/run.py \${output}
    output: scores/seed\${seed}.json
`;

const git = (cwd: string, ...args: string[]): string =>
  execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@example.org', ...args], { cwd, encoding: 'utf8' });

async function repository(name: string, trainSeconds = 0) {
  const dir = join(tempRoot(), name);
  await mkdir(join(dir, 'campaigns'), { recursive: true });
  await mkdir(join(dir, 'evaluation'));
  await writeFile(join(dir, 'train.py'), TRAIN('t1', trainSeconds));
  await writeFile(join(dir, 'evaluation', 'run.py'), EVALUATE('e1'));
  // Not shipped: untracked, and ignored.
  await writeFile(join(dir, '.gitignore'), 'campaigns/.campaign/\n');
  await writeFile(join(dir, 'campaigns', 'coded.yml'), MANIFEST);
  git(dir, 'init', '-q');
  git(dir, 'add', '-A');
  git(dir, 'commit', '-qm', 'first');
  return {
    dir,
    file: join(dir, 'campaigns', 'coded.yml'),
    stateDir: join(dir, 'state'),
    workdir: join(dir, 'work'),
    commit: (message: string) => {
      git(dir, 'commit', '-qam', message);
      return git(dir, 'rev-parse', 'HEAD').trim();
    },
  };
}

type Repository = Awaited<ReturnType<typeof repository>>;

const run = (r: Repository, ...extra: string[]) =>
  runCli(['run', r.file, '--state-dir', r.stateDir, '--poll', '0.2', ...extra], { timeoutMs: 90_000 });

const attempts = (s: CampaignState): Record<string, number> =>
  Object.fromEntries(Object.entries(s.tasks).map(([id, t]) => [id, t.attempts.length]));

const json = async (path: string): Promise<Record<string, unknown>> => JSON.parse(await readFile(path, 'utf8'));
const snapshots = (r: Repository) => readdir(join(r.workdir, '.campaign', 'code')).then((l) => l.sort());
const provenance = (r: Repository, output: string) => {
  const [dir, name] = output.split('/');
  return json(join(r.workdir, dir!, `.${name}.provenance.json`));
};

describe('the code a task runs', () => {
  it('runs in a read-only snapshot of the declared code, with its output under the workdir', async () => {
    const r = await repository('ships');
    await writeFile(join(r.dir, 'notes.txt'), 'untracked: never shipped\n');
    const first = await run(r);
    expect(first.code, first.stderr).toBe(0);
    const [id] = await snapshots(r);
    expect(id).toMatch(/^[0-9a-f]{16}$/);
    const snapshot = join(r.workdir, '.campaign', 'code', id!);
    expect((await readdir(snapshot)).sort()).toEqual(['evaluation', 'train.py']);
    expect((await stat(join(snapshot, 'train.py'))).mode & 0o222).toBe(0);
    const model = await json(join(r.workdir, 'models', 'seed1.json'));
    expect(model).toMatchObject({ seed: 1, train: 't1', cwd: snapshot });
    expect(await json(join(r.workdir, 'scores', 'seed2.json'))).toMatchObject({ seed: 2, evaluate: 'e1' });
    const record = await provenance(r, 'scores/seed1.json');
    expect(record.code).toEqual({
      snapshot: id,
      digest: expect.stringMatching(/^[0-9a-f]{16}$/),
      commit: git(r.dir, 'rev-parse', 'HEAD').trim(),
      dirty: [],
    });
    const shown = await runCli([
      'provenance',
      r.file,
      join(r.workdir, 'scores', 'seed1.json'),
      '--state-dir',
      r.stateDir,
    ]);
    expect(shown.stdout).toContain(`code snapshot ${id}`);
  });

  it("an edit to one phase's file runs exactly that phase again, says so first, and an unchanged rerun ships and sends nothing", async () => {
    const r = await repository('edits');
    expect((await run(r)).code).toBe(0);
    const before = attempts(await readState(r.stateDir));
    const shipped = await snapshots(r);

    const same = await run(r);
    expect(same.code).toBe(0);
    expect(same.stderr).not.toMatch(/will run again/);
    expect(attempts(await readState(r.stateDir))).toEqual(before);
    expect(await snapshots(r)).toEqual(shipped);

    // An edit, not yet committed: the working tree is what ships, and the record says so.
    await writeFile(join(r.dir, 'evaluation', 'run.py'), EVALUATE('e2'));
    const plan = await runCli(['plan', r.file, '--state-dir', r.stateDir]);
    expect(plan.stdout).toMatch(/phase evaluate: code changed \(evaluation\/run\.py\): 2 tasks will run again/);
    expect(plan.stdout).not.toMatch(/phase train: .*changed/);
    const edited = await run(r);
    expect(edited.code, edited.stderr).toBe(0);
    expect(edited.stderr).toMatch(/phase evaluate: code changed \(evaluation\/run\.py\): 2 tasks will run again/);
    expect(attempts(await readState(r.stateDir))).toEqual({
      ...before,
      'evaluate/seed1': before['evaluate/seed1']! + 1,
      'evaluate/seed2': before['evaluate/seed2']! + 1,
    });
    expect(await json(join(r.workdir, 'scores', 'seed1.json'))).toMatchObject({ evaluate: 'e2', train: 't1' });
    const record = await provenance(r, 'scores/seed1.json');
    expect(record.code).toMatchObject({ dirty: ['evaluation/run.py'] });
    expect(await snapshots(r)).toHaveLength(2);

    // Editing the training code runs training again, and what depends on it.
    await writeFile(join(r.dir, 'train.py'), TRAIN('t2'));
    r.commit('train v2');
    const retrained = await run(r);
    expect(retrained.code, retrained.stderr).toBe(0);
    expect(retrained.stderr).toMatch(/phase train: code changed \(train\.py\): 2 tasks will run again/);
    expect(await json(join(r.workdir, 'scores', 'seed2.json'))).toMatchObject({ evaluate: 'e2', train: 't2' });
  });

  it('a task sent before an edit runs the snapshot it was sent with', async () => {
    const r = await repository('queued', 4);
    const running = startCli(['run', r.file, '--state-dir', r.stateDir, '--poll', '0.2']);
    // The training tasks are running: the controller goes, and they carry on.
    await waitUntil('the training tasks to start', async () => {
      const s = await readState(r.stateDir);
      const started = (id: string) => s.tasks[id]?.attempts[0]?.startedAt !== undefined;
      return started('train/seed1') && started('train/seed2') ? true : undefined;
    });
    running.child.kill('SIGKILL');
    await running.done;
    const [firstId] = await snapshots(r);
    await writeFile(join(r.dir, 'evaluation', 'run.py'), EVALUATE('e2'));
    r.commit('evaluate v2');
    const resumed = await run(r);
    expect(resumed.code, resumed.stderr).toBe(0);
    const ids = await snapshots(r);
    const secondId = ids.find((id) => id !== firstId!)!;
    expect(ids).toHaveLength(2);
    // Training was sent with the first snapshot and ran it to its end.
    const state = await readState(r.stateDir);
    expect(state.tasks['train/seed1']!.attempts).toHaveLength(1);
    expect(await json(join(r.workdir, 'models', 'seed1.json'))).toMatchObject({
      cwd: join(r.workdir, '.campaign', 'code', firstId!),
    });
    expect((await provenance(r, 'models/seed1.json')).code).toMatchObject({ snapshot: firstId });
    // Evaluation was sent after the edit, with the new one.
    expect((await provenance(r, 'scores/seed1.json')).code).toMatchObject({ snapshot: secondId });
    expect(await json(join(r.workdir, 'scores', 'seed1.json'))).toMatchObject({ evaluate: 'e2' });
  });

  it('refuses a code path that matches nothing, at its line, with the fix', async () => {
    const r = await repository('nothing');
    await writeFile(
      r.file,
      MANIFEST.replace('paths: [train.py, evaluation/]', 'paths: [train.py, evaluation/, missing.py]'),
    );
    const linted = await runCli(['lint', r.file]);
    expect(linted.code).not.toBe(0);
    expect(linted.stdout + linted.stderr).toMatch(
      /coded\.yml:4:\d+: error code: code path missing\.py matches no file the repository tracks/,
    );
    const ran = await run(r);
    expect(ran.code).not.toBe(0);
    expect(ran.stderr).toMatch(/missing\.py matches no file/);
  });
});
