/**
 * How the local executor and the controller classify and report what goes wrong, seen the way
 * a user sees it: the exit status of `campaign run`, state.json and summary.md. The walltime is
 * checked at the executor level, since the planner never budgets less than a minute.
 */
import { mkdir, readFile, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadCampaign, localWorkdir, type Campaign } from '../../../src/app/load.js';
import type { ActiveAttempt } from '../../../src/exec/executor.js';
import { LocalExecutor } from '../../../src/exec/local/local-executor.js';
import type { Submission, TaskEvent } from '../../../src/state/events.js';
import { retryPolicy } from '../../../src/decide/policy.js';
import { emptyState, type CampaignState } from '../../../src/state/state.js';
import { applyEvents } from '../../../src/decide/apply.js';
import { step } from '../../../src/decide/step.js';
import {
  alive,
  attemptDirs,
  readState,
  runCli,
  startCli,
  waitUntil,
  writeManifest,
  type CliResult,
  useBuiltCliAndTemp,
} from '../../helpers/cli.js';

const tempRoot = useBuiltCliAndTemp('failures');

interface Ran {
  result: CliResult;
  state: CampaignState;
  summary: string;
  workdir: string;
  stateDir: string;
  manifest: string;
}

/** Writes the manifest into its own directory (workdir `work` beside it) and runs it once. */
async function runCampaign(name: string, yaml: string, prepare?: (workdir: string) => Promise<void>): Promise<Ran> {
  const dir = join(tempRoot(), name);
  const workdir = join(dir, 'work');
  await mkdir(workdir, { recursive: true });
  await prepare?.(workdir);
  const manifest = await writeManifest(dir, yaml);
  const stateDir = join(dir, 'state');
  const result = await runCli(['run', manifest, '--state-dir', stateDir, '--poll', '0.2'], { timeoutMs: 60_000 });
  if (/internal error/.test(result.stderr)) throw new Error(result.stderr);
  return {
    result,
    state: await readState(stateDir),
    summary: await readFile(join(stateDir, 'summary.md'), 'utf8'),
    workdir,
    stateDir,
    manifest,
  };
}

const exists = async (path: string): Promise<boolean> => (await stat(path).catch(() => undefined)) !== undefined;

describe('tasks that fail', () => {
  let ran: Ran;
  beforeAll(async () => {
    ran = await runCampaign(
      'failing',
      `campaign: failing
cluster: { executor: local, max_parallel: 2 }
workdir: work
phases:
  - name: flaky
    grid: { seed: [1] }
    walltime: 2m
    command: >
      echo "attempt \${attempt}: disk quota exceeded" >&2; exit 3
    retry:
      failed: { attempts: 2, delay: 1s }
  - name: quiet
    grid: { seed: [1] }
    walltime: 2m
    output: out/\${seed}.json
    command: echo "computed the result, forgot to write it"
  - name: gated
    grid: { seed: [1] }
    walltime: 2m
    setup: test -d venv-that-is-not-there
    command: touch ran-\${seed}
    retry:
      failed: { attempts: 2 }
  - name: report
    depends_on: flaky
    grid: { seed: [1] }
    walltime: 2m
    command: touch report-ran
  - name: publish
    depends_on: report
    grid: { seed: [1] }
    walltime: 2m
    command: touch publish-ran
`,
    );
  }, 90_000);

  it('the run ends with exit status 1 and says the campaign did not complete', () => {
    expect(ran.result.code).toBe(1);
    expect(ran.summary).toContain('**The campaign did not complete:**');
    expect(ran.result.stdout).toContain(ran.summary);
  });

  it('exit 3 is a failure, retried as retry.failed.attempts says, every attempt recorded', async () => {
    const t = ran.state.tasks['flaky/seed1']!;
    expect(t.status).toBe('failed');
    expect(t.reason).toMatch(/exit 3 \(after 2 retries\)/);
    expect(t.attempts.map((a) => [a.n, a.class, a.exitCode])).toEqual([
      [1, 'failed', 3],
      [2, 'failed', 3],
      [3, 'failed', 3],
    ]);
    expect((await attemptDirs(ran.workdir)).get('flaky/seed1')).toEqual([1, 2, 3]);
    expect(ran.state.phases.flaky).toMatchObject({ status: 'failed', reason: '1 of 1 tasks did not complete' });
  });

  it('waits retry.failed.delay after each failure before the next attempt', () => {
    const [a1, a2, a3] = ran.state.tasks['flaky/seed1']!.attempts;
    for (const a of [a1!, a2!, a3!]) {
      expect(Date.parse(a.endedAt!)).toBeGreaterThanOrEqual(Date.parse(a.startedAt!));
      expect(Date.parse(a.startedAt!)).toBeGreaterThanOrEqual(Date.parse(a.submittedAt) - 1000);
    }
    expect(Date.parse(a2!.submittedAt)).toBeGreaterThanOrEqual(Date.parse(a1!.endedAt!) + 1000);
    expect(Date.parse(a3!.submittedAt)).toBeGreaterThanOrEqual(Date.parse(a2!.endedAt!) + 1000);
  });

  it('the summary lists the failed task with its reason and the tail of its last log', () => {
    const section = ran.summary.slice(ran.summary.indexOf('### flaky/seed1'));
    expect(section).toMatch(/^### flaky\/seed1\n\n`failed: .*exit 3.*` \(3 attempts\)/);
    expect(section).toContain('attempt 3: disk quota exceeded');
    // tasks, completed, running, queued, failed, retries
    expect(ran.summary).toMatch(
      /^\| flaky \| failed: `1 of 1 tasks did not complete` \| 1 \| 0 \| 0 \| 0 \| 1 \| 2 \|/m,
    );
  });

  it('exit 0 without the declared output is unverified, not completed', () => {
    const t = ran.state.tasks['quiet/seed1']!;
    expect(t.status).toBe('failed');
    expect(t.attempts).toHaveLength(1);
    expect(t.attempts[0]).toMatchObject({ class: 'unverified', exitCode: 0 });
    expect(t.attempts[0]!.reason).toContain('out/1.json does not exist');
    expect(ran.summary).toContain('### quiet/seed1');
    expect(ran.summary).toContain('unverified: exit 0 but out/1.json does not exist');
  });

  it('a failing setup line is a gate failure naming setup; the command never runs and it is not retried', async () => {
    const t = ran.state.tasks['gated/seed1']!;
    expect(t.status).toBe('failed');
    expect(t.attempts).toHaveLength(1);
    expect(t.attempts[0]!.class).toBe('gate');
    expect(t.attempts[0]!.reason).toMatch(/setup/);
    expect(await exists(join(ran.workdir, 'ran-1'))).toBe(false);
    expect(ran.summary).toMatch(/### gated\/seed1\n\n`gate: .*setup/);
    expect(ran.summary).toContain('[campaign] gate setup: FAIL');
  });

  it('a failed phase blocks its dependents, and theirs, with the reason; none of their tasks start', async () => {
    expect(ran.state.phases.report).toMatchObject({ status: 'blocked' });
    expect(ran.state.phases.report!.reason).toMatch(/^dependency flaky failed/);
    expect(ran.state.phases.publish!.status).toBe('blocked');
    expect(ran.state.phases.publish!.reason).toMatch(/^dependency report blocked/);
    for (const id of ['report/seed1', 'publish/seed1']) {
      expect(ran.state.tasks[id]).toMatchObject({ status: 'blocked', attempts: [] });
    }
    const dirs = await attemptDirs(ran.workdir);
    expect(dirs.has('report/seed1') || dirs.has('publish/seed1')).toBe(false);
    expect(await exists(join(ran.workdir, 'report-ran'))).toBe(false);
    expect(ran.summary).toMatch(/^\| report \| blocked: `dependency flaky failed/m);
  });

  it('campaign status afterwards exits 1 and shows why', async () => {
    const r = await runCli(['status', ran.manifest, '--state-dir', ran.stateDir]);
    expect(r.code).toBe(1);
    expect(r.stdout).toContain('flaky [failed]');
    expect(r.stdout).toMatch(/report \[blocked\] .*\(dependency flaky failed/);
  });
});

describe('a smoke checklist that fails', () => {
  let ran: Ran;
  const otherwise = 'the program stops after its first step: the full runs would be cut short';
  beforeAll(async () => {
    ran = await runCampaign(
      'smoke-fails',
      `campaign: smoke-fails
cluster: { executor: local, max_parallel: 2 }
workdir: work
phases:
  - name: train
    grid: { seed: [1, 2, 3, 4] }
    walltime: 2m
    output: runs/\${seed}.jsonl
    command: >
      printf '{"step": 1, "seed": %s}\\n' \${seed} > \${output}
    smoke:
      tasks: 2
      trigger:
        - check: all_completed
        - check: records
          count: 3
          fields: [step, seed]
          otherwise: "${otherwise}"
  - name: evaluate
    depends_on: train
    grid: { seed: [1, 2, 3, 4] }
    walltime: 2m
    command: touch evaluated-\${seed}
`,
    );
  }, 90_000);

  it('ends the run with exit status 1', () => {
    expect(ran.result.code).toBe(1);
  });

  it('blocks the phase with the failed check and its otherwise text', () => {
    const phase = ran.state.phases.train!;
    expect(phase.status).toBe('blocked');
    expect(phase.reason).toContain('smoke checklist failed: records:');
    expect(phase.reason).toContain('1 records, expected 3');
    expect(phase.reason).toContain(`→ ${otherwise}`);
    expect(phase.gate?.passed).toBe(false);
    expect(phase.gate?.results.find((r) => r.check === 'all_completed')?.passed).toBe(true);
  });

  it('the summary shows the failed check, its detail and what it means', () => {
    expect(ran.summary).toContain('The checklist failed: the full arrays were not released.');
    const row = ran.summary.split('\n').find((l) => l.startsWith('| records |'));
    expect(row).toBeDefined();
    expect(row).toContain('**FAIL**');
    expect(row).toContain('1 records, expected 3');
    expect(row).toContain(otherwise);
    expect(ran.summary).toMatch(/^\| all_completed \| pass \|/m);
  });

  it('never starts a full task: only the smoke tasks have attempt directories', async () => {
    const dirs = [...(await attemptDirs(ran.workdir)).keys()].sort();
    expect(dirs).toHaveLength(2);
    for (const id of dirs) expect(id).toMatch(/^train\/smoke\//);
    for (const seed of [1, 2, 3, 4]) {
      expect(ran.state.tasks[`train/seed${seed}`]).toMatchObject({ status: 'blocked', attempts: [] });
      expect(await exists(join(ran.workdir, 'runs', `${seed}.jsonl`))).toBe(false);
    }
  });

  it('blocks the dependent phase, naming the blocked dependency', () => {
    expect(ran.state.phases.evaluate!.status).toBe('blocked');
    expect(ran.state.phases.evaluate!.reason).toMatch(/^dependency train blocked: smoke checklist failed/);
    for (const seed of [1, 2, 3, 4]) {
      expect(ran.state.tasks[`evaluate/seed${seed}`]).toMatchObject({ status: 'blocked', attempts: [] });
    }
  });
});

describe('preconditions that are missing', () => {
  let ran: Ran;
  beforeAll(async () => {
    ran = await runCampaign(
      'preconditions',
      `campaign: preconditions
cluster: { executor: local, max_parallel: 2 }
workdir: work
phases:
  - name: analyse
    grid: { dataset: [alpha, beta, gamma] }
    preconditions:
      - exists: data/\${dataset}.csv
    walltime: 2m
    command: wc -l data/\${dataset}.csv > counts-\${dataset}.txt
    smoke:
      tasks: 1
      trigger:
        - check: all_completed
  - name: plot
    depends_on: analyse
    grid: { dataset: [alpha] }
    walltime: 2m
    command: touch plotted
`,
      async (workdir) => {
        await mkdir(join(workdir, 'data'));
        await writeFile(join(workdir, 'data', 'alpha.csv'), 'x\n1\n');
      },
    );
  }, 90_000);

  it('blocks the phase "precondition missing: ..." naming the missing paths; the run ends with exit 1', () => {
    expect(ran.result.code).toBe(1);
    expect(ran.state.phases.analyse).toMatchObject({
      status: 'blocked',
      reason: 'precondition missing: data/beta.csv, data/gamma.csv',
    });
    expect(ran.state.phases.analyse!.preconditions?.missing).toEqual(['data/beta.csv', 'data/gamma.csv']);
    expect(ran.summary).toContain('| analyse | blocked: `precondition missing: data/beta.csv, data/gamma.csv` |');
    expect(ran.state.phases.plot!.reason).toMatch(/^dependency analyse blocked: precondition missing/);
  });

  it('starts no task of the phase, smoke tasks included', async () => {
    expect((await attemptDirs(ran.workdir)).size).toBe(0);
    for (const [id, t] of Object.entries(ran.state.tasks)) {
      expect(t.attempts, id).toEqual([]);
      expect(t.status, id).toBe('blocked');
    }
  });
});

describe('a second run while the first holds the lock', () => {
  it('exits 2 naming the pid of the holder, and leaves the first run to finish', async () => {
    const dir = join(tempRoot(), 'locked');
    await mkdir(join(dir, 'work'), { recursive: true });
    const manifest = await writeManifest(
      dir,
      `campaign: locked
cluster: { executor: local }
workdir: work
phases:
  - name: wait
    grid: { seed: [1] }
    walltime: 2m
    command: >
      for i in $(seq 600); do [ -e release ] && break; sleep 0.05; done
`,
    );
    const stateDir = join(dir, 'state');
    const first = startCli(['run', manifest, '--state-dir', stateDir, '--poll', '0.2']);
    try {
      await waitUntil('the first run to take the lock', async () =>
        (await readFile(join(stateDir, 'lock'), 'utf8')).includes(`"pid":${first.child.pid}`) ? true : undefined,
      );
      const second = await runCli(['run', manifest, '--state-dir', stateDir, '--poll', '0.2']);
      expect(second.code).toBe(2);
      expect(second.stderr).toContain(`locked by pid ${first.child.pid}`);
      expect(second.stdout).not.toContain('# Campaign');
    } finally {
      // The first run's task waits for this file, so it surely held the lock all along.
      await writeFile(join(dir, 'work', 'release'), '');
      const r = await first.done;
      expect(r.code).toBe(0);
    }
    expect((await attemptDirs(join(dir, 'work'))).get('wait/seed1')).toEqual([1]);
    expect(await exists(join(stateDir, 'lock'))).toBe(false);
  }, 60_000);
});

describe('a task that outlives its walltime (executor level, 2 s budget)', () => {
  let campaign: Campaign;
  let executor: LocalExecutor;
  const runs = new Map<string, { submitted: TaskEvent; finished: Promise<TaskEvent & { type: 'finished' }> }>();

  beforeAll(async () => {
    const dir = join(tempRoot(), 'walltime');
    await mkdir(join(dir, 'work'), { recursive: true });
    const manifest = await writeManifest(
      dir,
      `campaign: walltime
cluster: { executor: local, max_parallel: 2 }
workdir: work
phases:
  - name: slow
    grid: { seed: [1] }
    walltime: 2m
    command: >
      sleep 60 & echo $! > sleeper.pid; wait
    retry:
      timeout: { attempts: 0 }
      failed: { attempts: 3 }
  - name: stubborn
    grid: { seed: [1] }
    walltime: 2m
    command: >
      trap '' TERM; sleep 60
    retry:
      timeout: { attempts: 0 }
`,
    );
    campaign = await loadCampaign(manifest, join(dir, 'state'));
    executor = new LocalExecutor({ manifest: campaign.manifest, workdir: localWorkdir(campaign) });
    // Both start at once; each test waits for its own.
    for (const phase of campaign.plan.phases) {
      const task = phase.tasks[0]!;
      const array = phase.arrays.find((a) => a.stage === 'full')!;
      const sub: Submission = {
        task,
        attempt: 1,
        array: { ...array, budget: { ...array.budget, seconds: 2 } },
        index: 0,
      };
      const [submitted] = await executor.submit([sub]);
      if (submitted?.type !== 'submitted') throw new Error(`not submitted: ${JSON.stringify(submitted)}`);
      const active: ActiveAttempt = {
        task,
        attempt: { n: 1, submittedAt: submitted.at, handle: submitted.handle },
        walltimeSeconds: 2,
      };
      const finished = waitUntil(
        `${task.id} to finish`,
        async () => {
          const events = await executor.observe([active]);
          return events.find((e): e is TaskEvent & { type: 'finished' } => e.type === 'finished');
        },
        40_000,
        100,
      );
      finished.catch(() => {}); // awaited by its test
      runs.set(phase.name, { submitted, finished });
    }
  }, 60_000);

  afterAll(async () => {
    await Promise.allSettled([...runs.values()].map((r) => r.finished));
  }, 60_000);

  /** The campaign state after these events, as the controller would fold them. */
  function folded(events: TaskEvent[]): CampaignState {
    const now = new Date().toISOString();
    const start = step(emptyState(campaign.manifest.campaign, now), campaign.plan, now, 0).state;
    return applyEvents(start, events, retryPolicy(campaign.manifest));
  }

  it('is stopped at the walltime, with its children, and classed timeout', async () => {
    const { submitted, finished } = runs.get('slow')!;
    const end = await finished;
    // The task's own status: it ended on the SIGTERM sent at the walltime.
    expect(end).toMatchObject({ class: 'timeout', exitCode: 143 });
    expect(end.reason).toContain('walltime 2s');
    const sleeper = Number(await readFile(join(localWorkdir(campaign), 'sleeper.pid'), 'utf8'));
    expect(await alive(sleeper)).toBe(false);
    // Not retried: retry.timeout.attempts is 0 (retry.failed does not apply to a timeout).
    const state = folded([submitted, end]);
    expect(state.tasks['slow/seed1']).toMatchObject({ status: 'failed' });
    expect(state.tasks['slow/seed1']!.reason).toMatch(/^timeout/);
    const next = step(state, campaign.plan, new Date(Date.now() + 3_600_000).toISOString(), 10);
    const resubmitted = next.actions.flatMap((a) => (a.type === 'submit' ? a.submissions : []));
    expect(resubmitted.map((s) => s.task.id)).not.toContain('slow/seed1');
  }, 40_000);

  it('one that ignores SIGTERM is killed after the grace period and still classed timeout', async () => {
    const { submitted, finished } = runs.get('stubborn')!;
    const end = await finished;
    expect(end.exitCode).toBe(137);
    expect(end.class).toBe('timeout');
    expect(end.reason).toMatch(/ignoring SIGTERM/);
    expect(folded([submitted, end]).tasks['stubborn/seed1']!.status).toBe('failed');
  }, 40_000);
});
