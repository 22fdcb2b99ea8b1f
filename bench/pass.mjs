// The cost of one controller pass (observe + decide + save) with 1,000, 10,000 and 100,000
// tasks in the state. Run with `bench/pass` (builds first); `node --expose-gc bench/pass.mjs
// 100000` runs one size. Each size runs in a child process of its own, so its memory figures are
// its own. Memory is read as a user's process holds it: its peak resident set during the timed
// passes (and what the run loop does between them: a compaction where due, a garbage collection
// where worth it), what it holds right after them, and what it holds after a wait as the run
// loop makes before the next pass. Only then does the bench force a full collection of its own,
// to tell how much of the heap is live. The goal, under 300 MB resident at 100,000 tasks, is
// judged on the peak: it is what the process needs.
//
// The executor is a stand-in (it measures the controller, not the cluster): Slurm-like handles,
// room for 90% of the tasks at a time, and on each pass 20% of the queued attempts start and 1% of
// the running ones end (1 in 50 of those on a failed node, which is retried). The store is a real
// FileStateStore in a temporary directory. After each pass the bench does what the run loop does
// at the start of its wait (betweenPasses), timed apart from the pass. Goal: a pass at 100,000
// tasks under 1 s on a 2-core machine.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { betweenPasses } from '../lib/app/drive.js';
import { CampaignController } from '../lib/exec/controller.js';
import { FileStateStore } from '../lib/exec/store/file-store.js';
import { lintText } from '../lib/lint/lint.js';
import { startRun } from '../lib/decide/start.js';
import { emptyState } from '../lib/state/state.js';
import { sweepManifest } from './sweep-manifest.mjs';
import { StandInExecutor } from './stand-in-executor.mjs';

const SIZES = [1_000, 10_000, 100_000];
const TIMED = 5;
/**
 * When the bench reads the memory the process keeps after the passes: within the waits of the run
 * loops (Slurm's are 2 to 30 s). V8 gives back what it lets grow on its own only once the process
 * has been idle a while (about 20 s on this machine), so both ends are read.
 */
const WAITS_MS = [10_000, 30_000];
/** The goal: a process under 300 MB (decimal) resident while it passes at 100,000 tasks. */
const GOAL_BYTES = 300e6;
const GOAL_TASKS = 100_000;

/** A grid of n tasks: size (5) × variant (10) × seed × lr (1,000,000 too, run alone: `node --expose-gc bench/pass.mjs 1000000`). */
function manifest(n) {
  const [seeds, lrs] = { 1000: [20, 1], 10000: [50, 4], 100000: [50, 40], 1000000: [500, 40] }[n];
  return sweepManifest(seeds, lrs);
}

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

/** Stands in for the Slurm executor: reports a plausible pass, and times itself. */
class StandIn extends StandInExecutor {
  spent = 0;
  job = 1000;
  rand = random(42);
  constructor(limit) {
    super();
    this.limit = limit;
  }
  capacity(active) {
    return Math.max(0, this.limit - active);
  }
  async submit(submissions) {
    const t0 = performance.now();
    const at = new Date().toISOString();
    const jobs = new Map();
    const out = submissions.map((s) => {
      let job = jobs.get(s.array.id);
      if (job === undefined) jobs.set(s.array.id, (job = this.job++));
      return {
        type: 'submitted',
        task: s.task.id,
        attempt: s.attempt,
        at,
        handle: `${job}_${s.index}`,
        log: `logs/${s.array.id}/${job}_${s.index}.out`,
      };
    });
    this.spent += performance.now() - t0;
    return out;
  }
  async observe(active) {
    const t0 = performance.now();
    const at = new Date().toISOString();
    const out = [];
    for (const a of active) {
      const { task, attempt } = a;
      const r = this.rand();
      if (attempt.startedAt === undefined) {
        // Smoke tasks run at once; 20% of the queued full-stage attempts start per pass.
        if (task.stage === 'smoke' || r < 0.2)
          out.push({ type: 'started', task: task.id, attempt: attempt.n, at, node: `node${Math.floor(r * 1e6) % 64}` });
        else if (r > 0.99) out.push({ type: 'queued', task: task.id, attempt: attempt.n, at, waiting: 'Priority' });
      } else if (task.stage === 'smoke' || r < 0.01) {
        const failed = r < 0.0002;
        out.push({
          type: 'finished',
          task: task.id,
          attempt: attempt.n,
          at,
          class: failed ? 'node_fail' : 'completed',
          exitCode: failed ? 1 : 0,
          ...(failed ? { reason: 'NODE_FAIL' } : {}),
          node: attempt.node,
        });
      }
    }
    this.spent += performance.now() - t0;
    return out;
  }
}

/** A real FileStateStore that times its saves, appends and compactions. */
class TimedStore extends FileStateStore {
  saving = 0;
  appending = 0;
  /** The time of the last call's compaction, 0 where none was due. */
  lastCompaction = 0;
  async compactIfDue() {
    const t0 = performance.now();
    const compacted = await super.compactIfDue();
    this.lastCompaction = compacted ? performance.now() - t0 : 0;
    return compacted;
  }
  async save(state) {
    const t0 = performance.now();
    try {
      return await super.save(state);
    } finally {
      this.saving += performance.now() - t0;
    }
  }
  async append(events) {
    const t0 = performance.now();
    try {
      return await super.append(events);
    } finally {
      this.appending += performance.now() - t0;
    }
  }
}

/** Bytes this process has written so far (Linux). */
function written() {
  try {
    return Number(/^wchar:\s*(\d+)/m.exec(readFileSync('/proc/self/io', 'utf8'))[1]);
  } catch {
    return NaN;
  }
}

/**
 * Starts the peak resident set afresh (Linux: writing 5 to /proc/self/clear_refs resets VmHWM), so
 * that the preparing passes, which submit most of the grid at once, are not in it. Says whether
 * it could; where not, the peak is the whole process's.
 */
function resetPeak() {
  try {
    writeFileSync('/proc/self/clear_refs', '5');
    return 'timed';
  } catch {
    return 'process';
  }
}

/** The peak resident set since resetPeak, or of the whole process where it could not be reset. */
function peakRss(since) {
  const hwm = since === 'timed' ? /^VmHWM:\s*(\d+) kB/m.exec(readFileSync('/proc/self/status', 'utf8')) : null;
  return hwm
    ? { bytes: Number(hwm[1]) * 1024, since }
    : { bytes: process.resourceUsage().maxRSS * 1024, since: 'process' };
}

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const mib = (b) => `${(b / 1024 / 1024).toFixed(1)} MiB`;

async function one(n) {
  const lint = lintText('bench.yml', manifest(n));
  const ctx = lint.context;
  if (!ctx?.plan) {
    console.error(lint.findings);
    process.exit(1);
  }
  const tasks = ctx.plan.phases.reduce((k, p) => k + p.tasks.length + p.smoke.length, 0);
  const dir = mkdtempSync(join(tmpdir(), 'campaign-bench-pass-'));
  try {
    const executor = new StandIn(Math.floor(n * 0.9));
    const store = new TimedStore(dir);
    const controller = new CampaignController({ manifest: ctx.manifest, plan: ctx.plan, executor, store });
    let state = startRun(emptyState(ctx.manifest.campaign, new Date().toISOString()), ctx.plan, {
      retryFailed: false,
    });
    // Smoke submitted, smoke ended, gate passed and the full stage submitted up to the room, then
    // a few ordinary passes: most tasks are now submitted or running.
    const prep = performance.now();
    for (let i = 0; i < 6; i++) {
      state = (await controller.pass(state)).state;
      await betweenPasses(store);
    }
    const prepared = performance.now() - prep;
    const counts = {};
    for (const t of Object.values(state.tasks)) counts[t.status] = (counts[t.status] ?? 0) + 1;

    const passes = [];
    const peakFrom = resetPeak();
    for (let i = 0; i < TIMED; i++) {
      const eventsBefore = statSync(store.eventsPath).size;
      const w0 = written();
      executor.spent = 0;
      store.saving = 0;
      store.appending = 0;
      const cpu0 = process.cpuUsage();
      const t0 = performance.now();
      state = (await controller.pass(state)).state;
      const ms = performance.now() - t0;
      const cpu = process.cpuUsage(cpu0);
      passes.push({
        ms,
        cpu: (cpu.user + cpu.system) / 1000,
        executor: executor.spent,
        save: store.saving,
        append: store.appending,
        written: written() - w0,
        events: statSync(store.eventsPath).size - eventsBefore,
      });
      // Between passes, as the run loop does (compaction, garbage collection): timed apart, its
      // writes not counted in the pass's.
      const b0 = performance.now();
      await betweenPasses(store);
      const between = performance.now() - b0;
      passes.at(-1).compact = store.lastCompaction;
      passes.at(-1).collect = between - store.lastCompaction;
    }
    // Memory as the last pass left it, garbage included; then what the process holds after the
    // wait the run loops make before the next pass, as V8 left it (it may collect, and give pages
    // back, on its own while the process waits); then, a full collection forced, what is live.
    const mem = process.memoryUsage();
    const t0 = performance.now();
    const waited = [];
    for (const ms of WAITS_MS) {
      await new Promise((r) => setTimeout(r, ms - (performance.now() - t0)));
      waited.push(process.memoryUsage());
    }
    const peak = peakRss(peakFrom);
    globalThis.gc?.();
    const collected = process.memoryUsage();
    const pick = (k) => median(passes.map((p) => p[k]));
    return {
      n: tasks,
      counts,
      prepared,
      passMs: pick('ms'),
      all: passes.map((p) => p.ms),
      compactMs: passes.map((p) => p.compact),
      collectMs: passes.map((p) => p.collect),
      cpuMs: pick('cpu'),
      executorMs: pick('executor'),
      saveMs: pick('save'),
      appendMs: pick('append'),
      written: pick('written'),
      events: pick('events'),
      stateBytes: statSync(store.statePath).size,
      journalBytes: existsSync(store.journalPath) ? statSync(store.journalPath).size : 0,
      rss: mem.rss,
      peakRss: peak.bytes,
      peakSince: peak.since,
      heap: mem.heapUsed,
      rssCollected: collected.rss,
      heapCollected: collected.heapUsed,
      waited: waited.map((m) => ({ rss: m.rss, heap: m.heapUsed })),
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const arg = process.argv[2];
if (arg !== undefined) {
  process.stdout.write(JSON.stringify(await one(Number(arg))));
} else {
  const self = fileURLToPath(import.meta.url);
  for (const n of SIZES) {
    const r = JSON.parse(
      execFileSync(process.execPath, ['--expose-gc', self, String(n)], { encoding: 'utf8', maxBuffer: 1 << 20 }),
    );
    const states = Object.entries(r.counts)
      .map(([s, k]) => `${s} ${k}`)
      .join(', ');
    console.log(`— ${r.n} tasks (${states}; prepared in ${(r.prepared / 1000).toFixed(1)} s)`);
    console.log(
      `pass (median of ${TIMED})     ${r.passMs.toFixed(0)} ms  [${r.all.map((x) => x.toFixed(0)).join(', ')}]`,
    );
    console.log(`  CPU time (user+sys)   ${r.cpuMs.toFixed(0)} ms`);
    console.log(`  stand-in executor     ${r.executorMs.toFixed(0)} ms`);
    console.log(`  save state            ${r.saveMs.toFixed(0)} ms`);
    console.log(`  append events.jsonl   ${r.appendMs.toFixed(0)} ms`);
    console.log(`  decide (the rest)     ${(r.passMs - r.executorMs - r.saveMs - r.appendMs).toFixed(0)} ms`);
    const compactions = r.compactMs.filter((ms) => ms > 0).map((ms) => ms.toFixed(0));
    console.log(
      `compaction between passes  ${compactions.length === 0 ? 'none' : `${compactions.join(', ')} ms`} (${compactions.length} of ${TIMED} passes)`,
    );
    console.log(
      `rest of the wait between passes (garbage collection)  ${r.collectMs.map((ms) => ms.toFixed(0)).join(', ')} ms`,
    );
    console.log(`state.json             ${mib(r.stateBytes)} (state.journal.jsonl ${mib(r.journalBytes)} at the end)`);
    console.log(`written per pass       ${mib(r.written)} (events.jsonl +${(r.events / 1024).toFixed(0)} KiB)`);
    const during = r.peakSince === 'timed' ? `during the ${TIMED} passes` : 'of the whole process';
    console.log(`memory (resident set)  peak ${mib(r.peakRss)} ${during}`);
    console.log(`  after the last pass   RSS ${mib(r.rss)}, heap used ${mib(r.heap)}`);
    WAITS_MS.forEach((ms, i) =>
      console.log(
        `  ${`${ms / 1000} s later`.padEnd(20)} RSS ${mib(r.waited[i].rss)}, heap used ${mib(r.waited[i].heap)} (between passes, no GC forced)`,
      ),
    );
    console.log(
      `  live heap             ${mib(r.heapCollected)} (after a forced full GC; RSS then ${mib(r.rssCollected)})`,
    );
    if (n === GOAL_TASKS) {
      const met = r.peakRss < GOAL_BYTES ? 'met' : 'not met';
      console.log(
        `goal: resident under 300 MB (${mib(GOAL_BYTES)}) at ${GOAL_TASKS} tasks, judged on the peak: ${met}`,
      );
    }
  }
  console.log(`node                   ${process.version}`);
}
