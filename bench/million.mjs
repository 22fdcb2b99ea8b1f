// A campaign of a million tasks from its manifest to its summary, on a stand-in cluster: the
// grid planned (expand, lint, plan), driven by the real CampaignController and FileStateStore to
// its end, and summarised as `campaign summary` does (every picture, the provenance index, the
// failed tasks' log tails, the results tables and their picture), with the job summary and the
// status record beside it. Prints each stage's wall and CPU time and peak resident set, and what
// each file weighs. Run with `bench/million` (builds first); `node bench/million.mjs 100000`
// runs a tenth of it.
//
// The cluster is a stand-in on a simulated clock, ten minutes a pass: room for 40% of the tasks
// at once; each pass 70% of the queued attempts start and 60% of the running ones end. A task
// in 5,000 loses its first attempt to a failed node (retried), one in 100,000 fails on every
// attempt (a log tail in the summary); every output holds one record with a loss, which the
// phase's results average over the seeds.
import { mkdtempSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { betweenPasses } from '../lib/app/drive.js';
import { gatherSummary, summaryRecord } from '../lib/app/write-summary.js';
import { startRun } from '../lib/decide/start.js';
import { CampaignController } from '../lib/exec/controller.js';
import { FileStateStore } from '../lib/exec/store/file-store.js';
import { lintText } from '../lib/lint/lint.js';
import { jobSummary } from '../lib/report/job-summary.js';
import { renderSummary } from '../lib/report/summary.js';
import { emptyState } from '../lib/state/state.js';
import { StandInExecutor, StandInWorkdir } from './stand-in-executor.mjs';
import { sweepManifest } from './sweep-manifest.mjs';

const TASKS = Number(process.argv[2] ?? 1_000_000);
const ROOM = 0.4;
const START = 0.7;
const END = 0.6;
const PASS_MINUTES = 10;
/** A campaign still moving after this many passes is a bug of the bench or of the controller. */
const MAX_PASSES = 100;

/** A small deterministic generator, so that every run of the bench sees the same passes. */
function random(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** FNV-1a of a task id: its fate, and its output's loss, whichever pass it ends in. */
function hash(text) {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 0x01000193);
  return h >>> 0;
}

/** The simulated clock the controller and the cluster share. */
class Clock {
  ms = Date.parse('2026-12-01T00:00:00.000Z');
  iso = () => new Date(this.ms).toISOString();
  tick() {
    this.ms += PASS_MINUTES * 60_000;
  }
}

/** Every task's results file there, at one stamp. */
class ResultsWorkdir extends StandInWorkdir {
  async gather(paths, known, endsSuffice, take) {
    for (const path of paths) {
      if (known.get(path) === 'v1') take(path, { stamp: 'v1' });
      else take(path, { stamp: 'v1', text: `{"step": 1000, "loss": ${(hash(path) % 1000) / 1000}}\n` });
    }
  }
}

class Cluster extends StandInExecutor {
  workdir = new ResultsWorkdir();
  job = 1000;
  rand = random(42);
  constructor(room, clock) {
    super();
    this.room = room;
    this.clock = clock;
  }
  capacity(active) {
    return Math.max(0, this.room - active);
  }
  async submit(submissions) {
    const at = this.clock.iso();
    const jobs = new Map();
    return submissions.map((s) => {
      let job = jobs.get(s.array.id);
      if (job === undefined) jobs.set(s.array.id, (job = this.job++));
      const handle = `${job}_${s.index}`;
      return { type: 'submitted', task: s.task.id, attempt: s.attempt, at, handle, log: `logs/${handle}.out` };
    });
  }
  async observe(active) {
    const at = this.clock.iso();
    const out = [];
    for (const { task, attempt } of active) {
      const r = this.rand();
      if (attempt.startedAt === undefined) {
        if (task.stage === 'smoke' || r < START)
          out.push({ type: 'started', task: task.id, attempt: attempt.n, at, node: `node${hash(task.id) % 64}` });
      } else if (task.stage === 'smoke' || r < END) {
        const h = hash(task.id);
        const failed = task.stage === 'full' && h % 100_000 === 1;
        const nodeFail = task.stage === 'full' && attempt.n === 1 && h % 5_000 === 0;
        out.push({
          type: 'finished',
          task: task.id,
          attempt: attempt.n,
          at,
          class: nodeFail ? 'node_fail' : failed ? 'failed' : 'completed',
          exitCode: nodeFail || failed ? 1 : 0,
          ...(nodeFail ? { reason: 'NODE_FAIL' } : {}),
          node: attempt.node,
        });
      }
    }
    return out;
  }
  async readLog() {
    return 'step 1 loss 2.0\nTraceback (most recent call last):\nRuntimeError: the stand-in fails this task\n';
  }
}

/** Starts the peak resident set afresh (Linux), so that each stage's peak is its own. */
function resetPeak() {
  try {
    writeFileSync('/proc/self/clear_refs', '5');
    return true;
  } catch {
    return false;
  }
}

/** The peak resident set since resetPeak (the whole process's where it could not reset it). */
function peakRss() {
  const hwm = /^VmHWM:\s*(\d+) kB/m.exec(readFileSync('/proc/self/status', 'utf8'));
  return hwm ? Number(hwm[1]) * 1024 : process.resourceUsage().maxRSS * 1024;
}

const stages = [];
/** Runs a stage, noting its wall and CPU time and its peak resident set. */
async function stage(name, run) {
  const own = resetPeak();
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  const result = await run();
  const cpu = process.cpuUsage(cpu0);
  stages.push({
    name,
    wall: performance.now() - t0,
    cpu: (cpu.user + cpu.system) / 1000,
    peak: peakRss(),
    own,
    heap: process.memoryUsage().heapUsed,
  });
  return result;
}

const seconds = (ms) => `${(ms / 1000).toFixed(1)} s`;
const mib = (b) => `${(b / 2 ** 20).toFixed(0)} MiB`;
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

const dir = mkdtempSync(join(tmpdir(), 'campaign-bench-million-'));
try {
  const lint = await stage('plan (expand, lint, plan)', () =>
    lintText('bench.yml', sweepManifest(TASKS / 2000, 40, { results: true })),
  );
  const ctx = lint.context;
  if (!ctx?.plan) {
    console.error(lint.findings);
    process.exit(1);
  }
  const { manifest, plan } = ctx;
  const planned = plan.phases.reduce((n, p) => n + p.tasks.length + p.smoke.length, 0);

  const clock = new Clock();
  const executor = new Cluster(Math.floor(TASKS * ROOM), clock);
  const store = new FileStateStore(join(dir, 'state'));
  const controller = new CampaignController({ manifest, plan, executor, store, now: clock.iso });
  const passes = [];
  const state = await stage('drive to the end (passes and their waits)', async () => {
    let s = startRun(emptyState(manifest.campaign, clock.iso()), plan, { retryFailed: false });
    for (;;) {
      const t0 = performance.now();
      const r = await controller.pass(s);
      const t1 = performance.now();
      await betweenPasses(store);
      passes.push({ pass: t1 - t0, wait: performance.now() - t1 });
      s = r.state;
      if (r.atRest) return s;
      if (passes.length >= MAX_PASSES) throw new Error(`not at rest after ${MAX_PASSES} passes`);
      clock.tick();
    }
  });

  const beside = join(dir, 'summary');
  const campaign = { file: 'bench.yml', manifest, plan, warnings: [], stateDir: store.dir };
  const texts = await stage('summary (pictures, provenance, log tails, results)', async () => {
    const input = await gatherSummary({ campaign, plan, state, executor, beside, warn: console.warn });
    const summary = renderSummary(input);
    const job = jobSummary({ heading: '# bench', summary: input, now: state.updated });
    const record = JSON.stringify(await summaryRecord(plan, state, executor));
    return { summary, job, record };
  });
  writeFileSync(join(beside, 'summary.md'), texts.summary);

  const counts = {};
  let attempts = 0;
  for (const t of Object.values(state.tasks)) {
    counts[t.status] = (counts[t.status] ?? 0) + 1;
    attempts += t.attempts.length;
  }
  const maxRss = process.resourceUsage().maxRSS * 1024;
  console.log(
    `tasks                ${planned} (${Object.entries(counts)
      .map(([s, n]) => `${s} ${n}`)
      .join(', ')}), ${attempts} attempts`,
  );
  console.log(`arrays               ${plan.phases.reduce((n, p) => n + p.arrays.length, 0)}`);
  for (const s of stages)
    console.log(
      `${s.name.padEnd(52)} ${seconds(s.wall).padStart(8)} wall, ${seconds(s.cpu).padStart(8)} CPU, peak ${mib(s.peak)}${s.own ? '' : ' (whole process)'}, heap after ${mib(s.heap)}`,
    );
  console.log(
    `passes               ${passes.length}: median ${seconds(median(passes.map((p) => p.pass)))}, longest ${seconds(Math.max(...passes.map((p) => p.pass)))}; their waits (compaction, collection) median ${seconds(median(passes.map((p) => p.wait)))}, longest ${seconds(Math.max(...passes.map((p) => p.wait)))}`,
  );
  const files = readdirSync(store.dir, { recursive: true })
    .filter((f) => statSync(join(store.dir, f)).isFile())
    .map((f) => `${f} ${mib(statSync(join(store.dir, f)).size)}`);
  console.log(`state directory      ${files.join(', ')}`);
  const summaryFiles = readdirSync(beside).map((f) => `${f} ${(statSync(join(beside, f)).size / 1024).toFixed(0)} KiB`);
  console.log(`summary directory    ${summaryFiles.join(', ')}`);
  console.log(
    `summary text         ${(texts.summary.length / 1024).toFixed(0)} KiB; job summary ${(texts.job.length / 1024).toFixed(0)} KiB; status record ${(texts.record.length / 1024).toFixed(0)} KiB`,
  );
  console.log(`whole process        peak ${mib(maxRss)}`);
  console.log(`node                 ${process.version}`);
} finally {
  rmSync(dir, { recursive: true, force: true });
}
