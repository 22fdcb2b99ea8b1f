/**
 * A result names the code that made it (DESIGN rule 11), through the real CLI in a real git
 * repository, on whichever executor a test file gives: the declared code is shipped once as a
 * read-only snapshot the tasks run in, an edit to one phase's file runs exactly that phase again
 * (and says so first), an unchanged rerun ships and sends nothing, and a task sent before an edit
 * keeps its snapshot.
 */
import { execFileSync } from 'node:child_process';
import { mkdir, readdir, readFile, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { CampaignState } from '../../src/state/state.js';
import { readState, runCli, startCli, waitUntil } from './cli.js';

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

/** The campaign's code and phases, after the executor's own head (campaign, cluster, workdir). */
const BODY = `code: { paths: [train.py, evaluation/] }
phases:
  - name: train
    code: { paths: [train.py] }
    grid: { seed: [1, 2] }
    command: python3 train.py \${seed} \${output}
    output: models/seed\${seed}.json
    walltime: 1m
  - name: evaluate
    depends_on: train
    code: { paths: [evaluation/] }
    grid: { seed: [1, 2] }
    preconditions: [{ exists: "models/seed\${seed}.json" }]
    command: python3 evaluation/run.py \${output}
    output: scores/seed\${seed}.json
    walltime: 1m
`;

/** Where and how the scenarios run: one executor. */
export interface CodeScenarioSetting {
  /** The temp directory the test file owns. */
  root: () => string;
  /** The manifest's first lines for a campaign of this name and absolute workdir. */
  head: (campaign: string, workdir: string) => string;
  /** A campaign name unique to this run (a scheduler remembers earlier runs' jobs). */
  campaign: (label: string) => string;
  env?: () => NodeJS.ProcessEnv;
  poll: string;
  timeoutMs: number;
  /** False where the executor's server is missing: the block is skipped, visibly. */
  enabled?: boolean;
  /** How many jobs or processes of the campaign were sent so far, where the executor can count them. */
  sent?: (campaign: string) => number;
  /** Whether `campaign gc` can remove anything there (an automation node runs no shell to). */
  gc: 'removes' | 'refused';
}

const git = (cwd: string, ...args: string[]): string =>
  execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@example.org', ...args], { cwd, encoding: 'utf8' });

/** The scenarios, as one describe block of the calling test file. */
export function codeScenarios(title: string, setting: CodeScenarioSetting): void {
  async function repository(label: string, trainSeconds = 0) {
    const dir = join(setting.root(), label);
    const campaign = setting.campaign(label);
    const workdir = join(dir, 'work');
    await mkdir(join(dir, 'campaigns'), { recursive: true });
    await mkdir(join(dir, 'evaluation'));
    await writeFile(join(dir, 'train.py'), TRAIN('t1', trainSeconds));
    await writeFile(join(dir, 'evaluation', 'run.py'), EVALUATE('e1'));
    // Not shipped: untracked, and ignored.
    await writeFile(join(dir, '.gitignore'), 'campaigns/.campaign/\n');
    await writeFile(join(dir, 'campaigns', 'coded.yml'), setting.head(campaign, workdir) + BODY);
    git(dir, 'init', '-q');
    git(dir, 'add', '-A');
    git(dir, 'commit', '-qm', 'first');
    return {
      dir,
      campaign,
      file: join(dir, 'campaigns', 'coded.yml'),
      stateDir: join(dir, 'state'),
      workdir,
      commit: (message: string) => {
        git(dir, 'commit', '-qam', message);
        return git(dir, 'rev-parse', 'HEAD').trim();
      },
    };
  }

  type Repository = Awaited<ReturnType<typeof repository>>;

  const run = (r: Repository, ...extra: string[]) =>
    runCli(['run', r.file, '--state-dir', r.stateDir, '--poll', setting.poll, ...extra], {
      timeoutMs: setting.timeoutMs,
      ...(setting.env ? { env: setting.env() } : {}),
    });
  const cli = (args: string[]) => runCli(args, { ...(setting.env ? { env: setting.env() } : {}) });

  const attempts = (s: CampaignState): Record<string, number> =>
    Object.fromEntries(Object.entries(s.tasks).map(([id, t]) => [id, t.attempts.length]));

  const json = async (path: string): Promise<Record<string, unknown>> => JSON.parse(await readFile(path, 'utf8'));
  const snapshots = (r: Repository) => readdir(join(r.workdir, '.campaign', 'code')).then((l) => l.sort());
  const provenance = (r: Repository, output: string) => {
    const [dir, name] = output.split('/');
    return json(join(r.workdir, dir!, `.${name}.provenance.json`));
  };

  describe.runIf(setting.enabled ?? true)(title, () => {
    it(
      'runs in a read-only snapshot of the declared code, with its output under the workdir',
      async () => {
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
        const shown = await cli(['provenance', r.file, 'scores/seed1.json', '--state-dir', r.stateDir]);
        expect(shown.stdout, shown.stderr).toContain(`code snapshot ${id}`);
        // The summary says which commit's code each phase ran.
        const summary = await readFile(join(r.stateDir, 'summary.md'), 'utf8');
        const commit = git(r.dir, 'rev-parse', 'HEAD').trim().slice(0, 12);
        expect(summary).toContain(`- phase train: 2 results ran code snapshot \`${id}\` (commit \`${commit}\`)`);
      },
      setting.timeoutMs * 3,
    );

    it(
      "an edit to one phase's file runs exactly that phase again, says so first, and an unchanged rerun ships and sends nothing",
      async () => {
        const r = await repository('edits');
        expect((await run(r)).code).toBe(0);
        const before = attempts(await readState(r.stateDir));
        const shipped = await snapshots(r);

        const sentBefore = setting.sent?.(r.campaign);
        const same = await run(r);
        expect(same.code).toBe(0);
        if (sentBefore !== undefined) expect(setting.sent!(r.campaign)).toBe(sentBefore);
        expect(same.stderr).not.toMatch(/will run again/);
        expect(attempts(await readState(r.stateDir))).toEqual(before);
        expect(await snapshots(r)).toEqual(shipped);

        // An edit, not yet committed: the working tree is what ships, and the record says so.
        await writeFile(join(r.dir, 'evaluation', 'run.py'), EVALUATE('e2'));
        const plan = await cli(['plan', r.file, '--state-dir', r.stateDir]);
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
      },
      setting.timeoutMs * 3,
    );

    it(
      'a task sent before an edit runs the snapshot it was sent with',
      async () => {
        const r = await repository('queued', 4);
        const running = startCli(['run', r.file, '--state-dir', r.stateDir, '--poll', setting.poll], {
          ...(setting.env ? { env: setting.env() } : {}),
        });
        // The training tasks are running: the controller goes, and they carry on. On a cluster
        // that other work fills, they may wait in the queue a while first.
        await waitUntil(
          'the training tasks to start',
          async () => {
            const s = await readState(r.stateDir);
            const started = (id: string) => s.tasks[id]?.attempts[0]?.startedAt !== undefined;
            return started('train/seed1') && started('train/seed2') ? true : undefined;
          },
          setting.timeoutMs / 2,
        );
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
      },
      setting.timeoutMs * 3,
    );

    it(
      'campaign gc removes the snapshots no last attempt runs, and keeps the one a running task uses',
      async () => {
        const r = await repository('gc');
        expect((await run(r)).code).toBe(0);
        const [first] = await snapshots(r);
        await writeFile(join(r.dir, 'evaluation', 'run.py'), EVALUATE('e2'));
        expect((await run(r)).code).toBe(0);
        const second = (await snapshots(r)).find((id) => id !== first)!;
        // Training edited again, slow now: its tasks are still running when the controller goes.
        await writeFile(join(r.dir, 'train.py'), TRAIN('t3', 8));
        const running = startCli(['run', r.file, '--state-dir', r.stateDir, '--poll', setting.poll], {
          ...(setting.env ? { env: setting.env() } : {}),
        });
        await waitUntil(
          'the new training tasks to start',
          async () => {
            const s = await readState(r.stateDir);
            const started = (id: string) =>
              s.tasks[id]?.attempts.at(-1)?.code !== first && s.tasks[id]?.attempts.at(-1)?.startedAt !== undefined;
            return started('train/seed1') && started('train/seed2') ? true : undefined;
          },
          setting.timeoutMs,
        );
        running.child.kill('SIGKILL');
        await running.done;
        const third = (await snapshots(r)).find((id) => id !== first && id !== second)!;

        const collected = await cli(['gc', r.file, '--state-dir', r.stateDir]);
        if (setting.gc === 'refused') {
          expect(collected.code).not.toBe(0);
          expect(collected.stderr).toMatch(/campaign gc.*needs a shell on the login node/);
          expect(await snapshots(r)).toHaveLength(3);
          return;
        }
        expect(collected.code, collected.stderr).toBe(0);
        expect(collected.stdout).toBe(`removed code snapshot ${first}\n`);
        expect(await snapshots(r)).toEqual([second, third].sort());
        // The training that was running ends in its own snapshot, and the campaign completes.
        const resumed = await run(r);
        expect(resumed.code, resumed.stderr).toBe(0);
        expect(await json(join(r.workdir, 'models', 'seed1.json'))).toMatchObject({
          train: 't3',
          cwd: join(r.workdir, '.campaign', 'code', third),
        });
        expect(await json(join(r.workdir, 'scores', 'seed1.json'))).toMatchObject({ train: 't3', evaluate: 'e2' });
      },
      setting.timeoutMs * 3,
    );

    it(
      'refuses a code path that matches nothing, at its line, with the fix',
      async () => {
        const r = await repository('nothing');
        await writeFile(
          r.file,
          (await readFile(r.file, 'utf8')).replace(
            'paths: [train.py, evaluation/]',
            'paths: [train.py, evaluation/, missing.py]',
          ),
        );
        const linted = await cli(['lint', r.file]);
        expect(linted.code).not.toBe(0);
        expect(linted.stdout + linted.stderr).toMatch(
          /coded\.yml:\d+:\d+: error code: code path missing\.py matches no file the repository tracks/,
        );
        const ran = await run(r);
        expect(ran.code).not.toBe(0);
        expect(ran.stderr).toMatch(/missing\.py matches no file/);
      },
      setting.timeoutMs * 3,
    );
  });
}
