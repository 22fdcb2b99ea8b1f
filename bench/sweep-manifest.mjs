// The large grid the CPU benches plan and drive: size (5) × variant (10) × seeds × lrs tasks,
// with a cost model per size and a smoke stage, on a cluster described but never reached. With
// `results`, the phase declares a metric averaged over the seeds (bench/million summarises them).
export function sweepManifest(seeds, lrs, { results = false } = {}) {
  const seed = Array.from({ length: seeds }, (_, i) => i);
  const lr = Array.from({ length: lrs }, (_, i) => (i + 1) / 1000);
  return `campaign: bench
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
      seed: [${seed.join(', ')}]
      lr: [${lr.join(', ')}]
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
${results ? '    results: { metrics: [loss], replicates: seed }\n' : ''}`;
}
