// Expands, lints and plans a 100,000-task grid; prints the time and the peak memory.
// Run with `bench/plan` (builds first). Goal: under 2 s and 400 MB on a 2-core machine.
import { performance } from 'node:perf_hooks';
import { lintText } from '../lib/lint/lint.js';

const seeds = Array.from({ length: 50 }, (_, i) => i);
const lrs = Array.from({ length: 40 }, (_, i) => (i + 1) / 1000);
const text = `campaign: bench
cluster:
  executor: slurm
  name: cluster-a
  partitions:
    - { name: short, max_time: 3h }
    - { name: long, max_time: 24h }
  max_array_size: 1000
workdir: ~/bench
phases:
  - name: sweep
    grid:
      size: [s, m, l, xl, xxl]
      seed: [${seeds.join(', ')}]
      lr: [${lrs.join(', ')}]
      variant: [a, b, c, d, e, f, g, h, i, j]
    command: python train.py --size \${size} --seed \${seed} --lr \${lr} --variant \${variant} --steps \${units} --out \${output}
    output: results/\${size}/\${variant}/lr\${lr}_seed\${seed}.jsonl
    flush: per_step
    cost:
      unit: step
      units: 1000
      per_unit: { size=s: 1s, size=m: 2s, size=l: 4s, size=xl: 8s, size=xxl: 16s }
      measured_on: cluster-a
      margin: 1.3
    smoke:
      tasks: 2
      overrides: { units: 3 }
      trigger:
        - check: all_completed
        - check: distinct_outputs
`;

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
