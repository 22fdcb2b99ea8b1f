/** `campaign init FILE`: a commented starter manifest that lints clean and runs on this machine. */
import { basename, extname } from 'node:path';

/** A campaign name from the file's name: letters, digits, "_", "." and "-". */
export function campaignName(file: string): string {
  const name = basename(file, extname(file)).replace(/[^A-Za-z0-9_.-]/g, '-');
  return name === '' ? 'campaign' : name;
}

/**
 * The starter manifest. `forWorkflow`: its workdir is in the home of the machine it runs on, not
 * beside the file, since a workflow's checkout is cleaned before each job and the outputs must
 * outlive them (a self-hosted runner's home does).
 */
export function starterManifest(name: string, forWorkflow = false): string {
  const workdir = forWorkflow
    ? `~/campaign-runs/${name}   # in the runner's home: outputs outlive the workflow's jobs`
    : 'runs              # relative to this file; every output stays under it';
  return `# yaml-language-server: $schema=https://raw.githubusercontent.com/campaign-tools/campaign/main/schema/campaign.schema.json
# A starter campaign: one phase of a small grid, a smoke stage whose checklist must pass before
# the rest is released. It runs on this machine as it is: \`campaign run ${name}.yml\`.
# Then point it at your cluster (executor: slurm or ssh-gpu), your command and your grid, and
# measure the cost model with \`campaign calibrate\`.
campaign: ${name}

cluster:
  executor: local          # slurm: a Slurm login node; ssh-gpu: a GPU server over SSH
  name: this-machine       # the name cost models are measured on
  max_parallel: 2

workdir: ${workdir}

phases:
  - name: train
    grid:                  # every combination is one task
      seed: [1, 2]
      lr: [0.1, 0.01]
    # Values reach the command as quoted environment variables, never as shell code.
    command: >
      for ((i = 1; i <= \${units}; i++)); do
      printf '{"step": %d, "seed": %s, "lr": %s}\\n' "$i" \${seed} \${lr}; sleep 0.1; done > \${output}
    output: results/\${tag}.jsonl
    flush: per_step        # one record per step: a task cut short keeps what it wrote
    cost:                  # the walltime is budgeted from this, with a margin
      unit: step
      units: 5
      per_unit: 0.1s
      measured_on: this-machine
      margin: 3
    smoke:
      tasks: 2             # two tasks that differ on every axis they can
      overrides: { units: 2 }
      trigger:
        - check: all_completed
        - check: distinct_outputs
          otherwise: "a value is not reaching the program: the full stage would write identical files"
        - check: records
          count: 2
          fields: [step, seed, lr]
`;
}
