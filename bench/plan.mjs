// Expands, lints and plans a 100,000-task grid; prints the time and the peak memory.
// Run with `bench/plan` (builds first). Goal: under 1 s and 400 MB on a 2-core machine.
import { performance } from 'node:perf_hooks';
import { lintText } from '../lib/lint/lint.js';
import { sweepManifest } from './sweep-manifest.mjs';

// `node bench/plan.mjs 1000000` plans ten times as many (500 seeds instead of 50).
const seeds = Number(process.argv[2] ?? 100_000) / 2000;
const text = sweepManifest(seeds, 40);

const t0 = performance.now();
const result = lintText('bench.yml', text);
const plan = result.context?.plan;
const t1 = performance.now();
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
console.log(`expand+lint+plan     ${((t1 - t0) / 1000).toFixed(2)} s`);
console.log(`peak memory (RSS)    ${rssMiB.toFixed(0)} MiB`);
console.log(`node                 ${process.version}`);
