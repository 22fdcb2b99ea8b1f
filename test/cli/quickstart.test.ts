/**
 * The quickstart a new user runs first: `campaign run examples/quickstart.yml` on this machine,
 * then `campaign status`, then `run` again, which must find nothing left to do.
 */
import { copyFile, mkdir, readFile, rm } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  attemptDir,
  attemptDirs,
  ensureBuilt,
  makeTemp,
  planTasks,
  readState,
  REPO,
  runCli,
  type CliResult,
  type PlannedTask,
} from '../helpers/cli.js';

let root: string;
let manifest: string;
let stateDir: string;
let workdir: string;
let tasks: PlannedTask[];
let first: CliResult;

beforeAll(async () => {
  await ensureBuilt();
  root = await makeTemp('quickstart');
  // The manifest's workdir is ../.campaign-demo relative to itself: a copy one level down puts
  // it in the temp directory.
  await mkdir(join(root, 'examples'));
  manifest = join(root, 'examples', 'quickstart.yml');
  await copyFile(join(REPO, 'examples', 'quickstart.yml'), manifest);
  stateDir = join(root, 'state');
  workdir = join(root, '.campaign-demo');
  tasks = await planTasks(manifest);
  first = await runCli(['run', manifest, '--state-dir', stateDir, '--poll', '0.3'], { timeoutMs: 90_000 });
}, 180_000);

afterAll(async () => {
  if (root) await rm(root, { recursive: true, force: true });
});

describe('campaign run examples/quickstart.yml', () => {
  it('exits 0 and prints the summary: both phases completed, both checklists passed', () => {
    expect(first.stderr).not.toMatch(/internal error/);
    expect(first.code).toBe(0);
    expect(first.stdout).toContain('# Campaign quickstart');
    expect(first.stdout).toContain('**Every task completed.**');
    expect(first.stdout).toMatch(/^\| train \| completed \| 6 \| 6 \| 0 \| 0 \|/m);
    expect(first.stdout).toMatch(/^\| evaluate \| completed \| 6 \| 6 \| 0 \| 0 \|/m);
    expect(first.stdout).toContain('## train: smoke stage (2 tasks)');
    expect(first.stdout).toContain('## evaluate: smoke stage (1 task)');
    for (const check of ['all_completed', 'log_contains', 'distinct_outputs', 'records']) {
      expect(first.stdout).toMatch(new RegExp(`^\\| ${check} \\| pass \\|`, 'm'));
    }
    expect(first.stdout).not.toContain('**FAIL**');
    // Live progress went to stderr, leaving stdout to the summary.
    expect(first.stderr).toMatch(/\[campaign \S+\] train \[completed\] 6\/6 done/);
    expect(first.stdout).not.toMatch(/\[campaign \S+\]/);
  });

  it('writes the same summary to summary.md in the state directory', async () => {
    const md = await readFile(join(stateDir, 'summary.md'), 'utf8');
    expect(first.stdout).toContain(md);
  });

  it('writes every output of the plan, with the records the checklists ask for', async () => {
    expect(tasks.filter((t) => t.stage === 'full')).toHaveLength(12);
    expect(tasks.filter((t) => t.stage === 'smoke')).toHaveLength(3);
    for (const t of tasks) {
      const text = await readFile(join(workdir, t.output!), 'utf8');
      const records = text
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l) as Record<string, unknown>);
      if (t.id.startsWith('train/')) {
        // Five steps in full, two in the smoke stage (overrides: units 2).
        expect(records).toHaveLength(t.stage === 'smoke' ? 2 : 5);
        for (const r of records) expect(Object.keys(r).sort()).toEqual(['loss', 'seed', 'step']);
      } else {
        expect(records).toHaveLength(1);
        expect(Object.keys(records[0]!).sort()).toEqual(['final_loss', 'seed', 'width']);
      }
    }
    // Smoke outputs live apart from the real results.
    for (const t of tasks.filter((x) => x.stage === 'smoke')) expect(t.output).toMatch(/^_smoke\//);
  });

  it('records each task completed on its first attempt, with sane times', async () => {
    const state = await readState(stateDir);
    expect(Object.keys(state.tasks).sort()).toEqual(tasks.map((t) => t.id).sort());
    for (const t of tasks) {
      const s = state.tasks[t.id]!;
      expect(s.status).toBe('completed');
      expect(s.attempts).toHaveLength(1);
      const a = s.attempts[0]!;
      expect(a.class).toBe('completed');
      expect(a.exitCode).toBe(0);
      // The end comes after the start, and the start after the submission.
      expect(Date.parse(a.startedAt!)).toBeGreaterThanOrEqual(Date.parse(a.submittedAt) - 1000);
      expect(Date.parse(a.endedAt!)).toBeGreaterThanOrEqual(Date.parse(a.startedAt!));
    }
    expect(state.phases.train!.status).toBe('completed');
    expect(state.phases.evaluate!.status).toBe('completed');
    expect(state.phases.train!.gate?.passed).toBe(true);
    expect(state.phases.evaluate!.gate?.passed).toBe(true);
  });
});

describe('provenance', () => {
  it("every completed output has a record beside it naming the attempt that wrote it, as that attempt's own log says", async () => {
    const state = await readState(stateDir);
    for (const t of tasks) {
      const [dir, name] = [dirname(t.output!), basename(t.output!)];
      const record = JSON.parse(await readFile(join(workdir, dir, `.${name}.provenance.json`), 'utf8'));
      const attempt = state.tasks[t.id]!.attempts.at(-1)!;
      expect(record).toMatchObject({
        campaign: 'quickstart',
        task: t.id,
        stage: t.stage,
        output: t.output,
        attempt: attempt.n,
        definition: attempt.definition,
        handle: attempt.handle,
        exit_status: 0,
      });
      expect(record.definition).toBe(t.definition);
      expect(record.values).toEqual(t.values);
      // The log it names is that attempt's own, and says it ran this task.
      expect(record.log).toBe(join(attemptDir(workdir, t.id, attempt.n), 'log'));
      const log = await readFile(record.log, 'utf8');
      expect(log).toMatch(new RegExp(`^\\[campaign\\] task \\d+ -> ${t.id.replace(/[/.]/g, '\\$&')}$`, 'm'));
      expect(log).toMatch(/^\[campaign\] gate output: ok$/m);
    }
  });

  it('the summary links the index, one line per result, and `campaign provenance` answers for a file', async () => {
    expect(first.stdout).toContain('[provenance.jsonl](provenance.jsonl)');
    const index = (await readFile(join(stateDir, 'provenance.jsonl'), 'utf8')).trim().split('\n');
    expect(index.map((l) => JSON.parse(l).task).sort()).toEqual(tasks.map((t) => t.id).sort());
    const out = tasks.find((t) => t.id === 'train/seed2_width16')!.output!;
    const r = await runCli(['provenance', manifest, '--state-dir', stateDir, join(workdir, out)]);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/campaign quickstart, phase train, task train\/seed2_width16 \(full\): seed=2 width=16/);
    expect(r.stdout).toMatch(/the campaign's current result for this task/);
    const none = await runCli(['provenance', manifest, '--state-dir', stateDir, 'eval/nothing.json']);
    expect(none.code).toBe(1);
    expect(none.stderr).toMatch(/no such output, and no provenance record/);
  });
});

describe('after the run', () => {
  it('campaign status exits 0 and shows both phases completed', async () => {
    const r = await runCli(['status', manifest, '--state-dir', stateDir]);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('train [completed] 6/6 done, 0 running, 0 pending, 0 failed');
    expect(r.stdout).toContain('evaluate [completed] 6/6 done, 0 running, 0 pending, 0 failed');
  });

  it('a second run is a no-op: exits 0, submits nothing, leaves every attempt as it was', async () => {
    const before = await readState(stateDir);
    const dirsBefore = await attemptDirs(workdir);
    const eventsBefore = await readFile(join(stateDir, 'events.jsonl'), 'utf8');
    const r = await runCli(['run', manifest, '--state-dir', stateDir, '--poll', '0.3']);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('**Every task completed.**');
    const after = await readState(stateDir);
    for (const t of tasks) expect(after.tasks[t.id]!.attempts).toEqual(before.tasks[t.id]!.attempts);
    expect(await attemptDirs(workdir)).toEqual(dirsBefore);
    const eventsAfter = await readFile(join(stateDir, 'events.jsonl'), 'utf8');
    expect(eventsAfter.slice(eventsBefore.length)).not.toContain('"submitted"');
  });
});
