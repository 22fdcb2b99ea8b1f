// Runner minutes of a 24-hour campaign under the generated workflow, with jobs that park and a
// scheduled resume, against jobs that drive until their budget runs out (the workflow before
// parking). Simulated: the campaign's time is a clock this script moves (stand-in time), the
// cluster a stand-in whose tasks end when their time on that clock is up, and the workflow's
// runs follow the generated one's jobs (lint, smoke, gate, full, summary; the resume job alone
// in a scheduled run). What a job does is the action's own code from lib/: startScopedRun, the
// controller's passes, driveCampaign with the pacer and the park rule, parkedAfter. GitHub
// bills a job by the minute, rounded up; a job's time is its passes' plus OVERHEAD_S for the
// checkout, restore, save and summary. Run with `bench/runner-minutes` (builds first).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { driveCampaign } from '../lib/app/drive.js';
import { CampaignController, loadState } from '../lib/exec/controller.js';
import { FileStateStore } from '../lib/exec/store/file-store.js';
import { lintText } from '../lib/lint/lint.js';
import { parkedAfter } from '../lib/decide/park.js';
import { expectedSeconds, PollPacer, pollLimits } from '../lib/decide/poll.js';
import { scopeAtRest, startScopedRun } from '../lib/decide/scope.js';
import { StandInExecutor } from './stand-in-executor.mjs';

/** 48 tasks of 2 hours, 4 at a time: 12 waves, 24 hours; a smoke stage of one 10-minute task. */
const MANIFEST = `campaign: day
cluster:
  executor: slurm
  name: cluster-a
  max_parallel: 4
  partitions:
    - { name: long, max_time: 24h }
workdir: ~/day
phases:
  - name: train
    grid: { seed: [1, 2, 3, 4, 5, 6, 7, 8], lr: [0.1, 0.2, 0.3, 0.4, 0.5, 0.6] }
    command: python train.py --seed \${seed} --lr \${lr} --steps \${units} --out \${output}
    output: results/lr\${lr}_seed\${seed}.jsonl
    flush: per_step
    cost: { unit: step, units: 120, per_unit: 1m, measured_on: cluster-a, margin: 1.3 }
    smoke:
      tasks: 1
      overrides: { units: 10 }
      trigger:
        - check: all_completed
`;
const BUDGET_S = 5 * 3600;
const PARK_S = 5 * 60;
const RESUME_EVERY_S = 15 * 60;
/** Checkout, restore, save and summary: what a job spends besides its passes. */
const OVERHEAD_S = 30;
/** A job that only reads (lint, gate, summary, a resume with nothing parked). */
const SHORT_JOB_S = 20;

/** The campaign's clock: passes wait on it, tasks end by it. */
class Clock {
  ms = Date.parse('2026-01-01T00:00:00Z');
  now() {
    return this.ms;
  }
  async sleep(ms) {
    this.ms += ms;
  }
  iso() {
    return new Date(this.ms).toISOString();
  }
}

/** A cluster whose tasks start at once and end after their expected time (90–100% of it). */
class StandIn extends StandInExecutor {
  constructor(clock, plan, limit) {
    super();
    this.clock = clock;
    this.limit = limit;
    this.ends = new Map();
    this.expected = expectedSeconds(plan);
    this.job = 1000;
    let r = 7;
    this.random = () => (r = (r * 16807) % 2147483647) / 2147483647;
  }
  capacity(active) {
    return Math.max(0, this.limit - active);
  }
  async submit(submissions) {
    const at = this.clock.iso();
    return submissions.map((s) => {
      const seconds = (this.expected.get(s.task.id) ?? 600) * (0.9 + 0.1 * this.random());
      this.ends.set(`${s.task.id}#${s.attempt}`, this.clock.now() + seconds * 1000);
      const handle = `${this.job++}_${s.index}`;
      return { type: 'submitted', task: s.task.id, attempt: s.attempt, at, handle, log: `logs/${handle}.out` };
    });
  }
  async observe(active) {
    const out = [];
    for (const { task, attempt } of active) {
      const end = this.ends.get(`${task.id}#${attempt.n}`);
      if (attempt.startedAt === undefined)
        out.push({ type: 'started', task: task.id, attempt: attempt.n, at: attempt.submittedAt, node: 'n1' });
      if (end !== undefined && end <= this.clock.now())
        out.push({
          type: 'finished',
          task: task.id,
          attempt: attempt.n,
          at: new Date(end).toISOString(),
          class: 'completed',
          exitCode: 0,
          node: 'n1',
        });
    }
    return out;
  }
}

async function simulate(parking) {
  const lint = lintText('day.yml', MANIFEST);
  const { manifest, plan } = lint.context ?? {};
  if (!plan) throw new Error(JSON.stringify(lint.findings));
  const clock = new Clock();
  const executor = new StandIn(clock, plan, 4);
  const dir = mkdtempSync(join(tmpdir(), 'campaign-bench-minutes-'));
  const store = new FileStateStore(dir);
  const start = clock.now();
  const jobs = [];
  // The scheduled resume is a workflow of its own, enabled when committed; a job that parks
  // switches it on, a resume that leaves nothing parked switches it off (src/action/state-commands.ts).
  let scheduleOn = true;
  const bill = (name, seconds) => {
    jobs.push({ name, seconds });
    clock.ms += seconds * 1000;
  };

  /** One `advance` job, as src/action/main.ts runs it; what it left (parked, at rest, handed over). */
  async function advance(name, scope, resume) {
    const t0 = clock.now();
    let state = await loadState(store, manifest.campaign, clock.iso());
    const scopes = resume ? (state.parked?.scopes ?? []) : [scope];
    if (scopes.length === 0) {
      bill(`${name} (nothing parked)`, SHORT_JOB_S);
      scheduleOn = false;
      return { continues: false, complete: false };
    }
    const controller = new CampaignController({
      manifest,
      plan,
      executor,
      store,
      scope: scopes,
      now: () => clock.iso(),
    });
    state = startScopedRun(state, plan, scopes, { retryFailed: false, keepChanged: false, now: clock.iso() });
    const pacer = new PollPacer(plan, pollLimits('slurm'));
    const driven = await driveCampaign(state, {
      controller,
      store,
      pacer,
      clock,
      deadline: t0 + BUDGET_S * 1000,
      ...(parking
        ? {
            park: {
              seconds: PARK_S,
              since: resume && state.parked ? Date.parse(state.parked.since) : t0,
              quiet: (st, now) => pacer.quietSeconds(st, now),
              out: (st) => !scopeAtRest(plan, st, [], scopes),
            },
          }
        : {}),
    });
    const parked = parkedAfter(plan, driven, scopes, resume);
    await store.save(parked.state);
    if (parked.state.parked && !resume) scheduleOn = true;
    else if (!parked.state.parked && resume) scheduleOn = false;
    const seconds = (clock.now() - t0) / 1000 + OVERHEAD_S;
    clock.ms = t0;
    bill(name, seconds);
    const complete = plan.phases.every((p) => parked.state.phases[p.name]?.status === 'completed');
    return {
      continues: parked.continues,
      handOver: !driven.atRest && driven.parked === undefined,
      parked: driven.parked !== undefined && !parked.continues,
      complete,
    };
  }

  /** One run of the generated workflow's graph (push or dispatch); whether it must run again at once. */
  async function graphRun() {
    bill('lint', SHORT_JOB_S);
    const smoke = await advance('train-smoke', { phase: 'train', stage: 'smoke' }, false);
    if (smoke.parked || smoke.handOver) {
      bill('summary', SHORT_JOB_S);
      return { again: smoke.handOver };
    }
    bill('train-gate', SHORT_JOB_S);
    const full = await advance('train-full', { phase: 'train', stage: 'full' }, false);
    bill('summary', SHORT_JOB_S);
    return { again: full.handOver, complete: full.complete };
  }

  let r = await graphRun();
  let nextTick = Math.ceil((clock.now() - start) / (RESUME_EVERY_S * 1000)) * RESUME_EVERY_S * 1000 + start;
  for (let guard = 0; guard < 10_000; guard++) {
    const state = await loadState(store, manifest.campaign, clock.iso());
    if (plan.phases.every((p) => state.phases[p.name]?.status === 'completed')) break;
    if (r.again) {
      r = await graphRun();
      continue;
    }
    if (!parking) throw new Error('without parking, a run ends only at rest or with a handover');
    if (!scheduleOn) throw new Error('the schedule is off with a stage parked: nothing would resume it');
    // The schedule: a run queued behind a running one starts when it ends.
    clock.ms = Math.max(clock.ms, nextTick);
    nextTick = clock.ms + RESUME_EVERY_S * 1000 - ((clock.ms - start) % (RESUME_EVERY_S * 1000));
    const resumed = await advance('resume', undefined, true);
    r = { again: resumed.continues || resumed.handOver };
  }
  const hours = (clock.now() - start) / 3.6e6;
  const billed = (list) => list.reduce((n, j) => n + Math.max(1, Math.ceil(j.seconds / 60)), 0);
  const minutes = billed(jobs);
  const during = jobs.length;
  // The day after: the campaign is complete and nothing is parked. The schedule fires only if
  // it is still on; each run of it starts a runner and is billed.
  if (parking) {
    const dayAfter = clock.now() + 24 * 3600 * 1000;
    while (nextTick <= dayAfter) {
      clock.ms = nextTick;
      nextTick += RESUME_EVERY_S * 1000;
      if (scheduleOn) await advance('resume (day after)', undefined, true);
    }
  }
  rmSync(dir, { recursive: true, force: true });
  const after = jobs.slice(during);
  return {
    hours,
    minutes,
    jobs: during,
    resumes: jobs.slice(0, during).filter((j) => j.name.startsWith('resume')).length,
    dayAfter: { runs: after.length, minutes: billed(after) },
  };
}

for (const [label, parking] of [
  ['jobs drive until the budget runs out (before parking)', false],
  ['jobs park, a resume every 15 min', true],
]) {
  const r = await simulate(parking);
  console.log(
    `${label}: campaign ${r.hours.toFixed(1)} h, ${r.jobs} jobs (${r.resumes} resumes), ${r.minutes} runner minutes billed, ${(r.minutes / r.hours).toFixed(1)} per campaign hour${parking ? `; the day after, nothing parked: ${r.dayAfter.runs} scheduled resume jobs, ${r.dayAfter.minutes} runner minutes` : ''}`,
  );
}
