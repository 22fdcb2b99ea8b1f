// Expands, lints and plans a 100,000-task grid; prints the time and the peak memory, then times
// the whole `campaign plan` command on the same manifest (process start to exit, the plan table
// written to a file), as a user runs it. Run with `bench/plan` (builds first). Goal: under 1 s
// and 400 MB on a 2-core machine.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, openSync, closeSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { lintText } from '../lib/lint/lint.js';
import { sweepManifest } from './sweep-manifest.mjs';

// `node bench/plan.mjs 1000000` plans ten times as many (500 seeds instead of 50).
const seeds = Number(process.argv[2] ?? 100_000) / 2000;
const text = sweepManifest(seeds, 40);
/** Runs of the command, after one to warm the disk cache. */
const RUNS = 5;

const c0 = process.cpuUsage();
const t0 = performance.now();
const result = lintText('bench.yml', text);
const plan = result.context?.plan;
const t1 = performance.now();
const cpu = process.cpuUsage(c0);
if (!plan) {
  console.error(result.findings);
  process.exit(1);
}
const tasks = plan.phases.reduce((n, p) => n + p.tasks.length, 0);
const arrays = plan.phases.reduce((n, p) => n + p.arrays.length, 0);
const rssMiB = process.resourceUsage().maxRSS / 1024;
console.log(`tasks                ${tasks}`);
console.log(`arrays               ${arrays}`);
console.log(`findings             ${result.findings.length}`);
console.log(
  `expand+lint+plan     ${((t1 - t0) / 1000).toFixed(2)} s (CPU ${((cpu.user + cpu.system) / 1e6).toFixed(2)} s)`,
);
console.log(`peak memory (RSS)    ${rssMiB.toFixed(0)} MiB`);

const dir = mkdtempSync(join(tmpdir(), 'campaign-bench-plan-'));
try {
  const manifest = join(dir, 'bench.yml');
  writeFileSync(manifest, text);
  const walls = [];
  for (let i = 0; i <= RUNS; i++) {
    const out = openSync(join(dir, 'plan.txt'), 'w');
    const s0 = performance.now();
    const run = spawnSync(process.execPath, ['bin/campaign.js', 'plan', manifest], { stdio: ['ignore', out, 'pipe'] });
    const wall = performance.now() - s0;
    closeSync(out);
    if (run.status !== 0) {
      console.error(run.stderr.toString());
      process.exit(1);
    }
    if (i > 0) walls.push(wall);
  }
  walls.sort((a, b) => a - b);
  const s = (ms) => `${(ms / 1000).toFixed(2)} s`;
  console.log(
    `campaign plan        ${s(walls[Math.floor(RUNS / 2)])} median of ${RUNS} [${s(walls[0])}–${s(walls.at(-1))}]`,
  );
} finally {
  rmSync(dir, { recursive: true, force: true });
}
console.log(`node                 ${process.version}`);
