/** `campaign init FILE`: a commented starter manifest that lints clean and runs on this machine. */
import { readFile, stat, writeFile } from 'node:fs/promises';
import { basename, dirname, extname, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

/** A campaign name from the file's name: letters, digits, "_", "." and "-". */
export function campaignName(file: string): string {
  const name = basename(file, extname(file)).replace(/[^A-Za-z0-9_.-]/g, '-');
  return name === '' ? 'campaign' : name;
}

/** Where a starter's tasks run, relative to its file: one folder per campaign, so starters side by side never share an output. */
export function starterWorkdir(name: string): string {
  return `runs/${name}`;
}

/**
 * The starter manifest. `forWorkflow`: its workdir is in the home of the machine it runs on, not
 * beside the file, since a workflow's checkout is cleaned before each job and the outputs must
 * outlive them (a self-hosted runner's home does). `schema`: what its first line points the
 * editor at (see schemaReference).
 */
export function starterManifest(name: string, forWorkflow: boolean, schema: string): string {
  const workdir = forWorkflow
    ? `~/campaign-runs/${name}   # in the runner's home: outputs outlive the workflow's jobs`
    : `${starterWorkdir(name)}${' '.repeat(Math.max(1, 18 - starterWorkdir(name).length))}# relative to this file; every output stays under it`;
  return `# yaml-language-server: $schema=${schema}
# A starter campaign: one phase of a small grid, a smoke stage whose checklist must pass before
# the rest is released. It runs on this machine as it is: \`campaign run ${name}.yml\`, then
# \`campaign results ${name}.yml\`. Then point it at your cluster (executor: slurm or ssh-gpu),
# your command and your grid, and measure the cost model with \`campaign calibrate\`.
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
      awk -v step="$i" -v seed=\${seed} -v lr=\${lr} 'BEGIN { printf "{\\"step\\": %d, \\"seed\\": %d, \\"lr\\": %s, \\"loss\\": %.4f}\\n",
      step, seed, lr, 1 / (1 + step * lr) + seed / 1000 }'; sleep 0.1; done > \${output}
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
          fields: [step, seed, lr, loss]
    results:               # what \`campaign results\` gathers: the last record of each output
      metrics: [loss]
      replicates: seed     # averaged over the seeds, per learning rate
`;
}

/** The schema this code was built with, in the installed package (schema/ is in its files). */
const INSTALLED_SCHEMA = fileURLToPath(new URL('../../schema/campaign.schema.json', import.meta.url));

/**
 * What a manifest at `file` points its editor at: the installed package's schema, relative to
 * the file, where the package is installed in the project (its node_modules travel with it);
 * otherwise the schema of this very version, pinned, so that an upgrade never changes what an
 * old manifest is checked against.
 */
export function schemaReference(file: string, installed: string | undefined, version: string): string {
  if (installed !== undefined) {
    const path = relative(dirname(resolve(file)), installed)
      .split(sep)
      .join('/');
    if (/^(\.\.\/)*node_modules\//.test(path)) return path;
  }
  return `https://unpkg.com/@campaign-tools/campaign@${version}/schema/campaign.schema.json`;
}

/** The lines a project's .gitignore needs for a campaign beside it: its state, and its workdir when that is beside it too. */
export function gitignoreLines(name: string, forWorkflow: boolean): string[] {
  return ['/.campaign/', ...(forWorkflow ? [] : [`/${starterWorkdir(name)}/`])];
}

/** Whether `dir` is inside a git work tree (a `.git` in it or above it). */
async function inGitWorkTree(dir: string): Promise<boolean> {
  for (let at = resolve(dir); ; at = dirname(at)) {
    if (await stat(join(at, '.git')).catch(() => undefined)) return true;
    if (dirname(at) === at) return false;
  }
}

/**
 * The starter at `file` (never over an existing one: `wx`), and in a git work tree the
 * .gitignore lines beside it that it lacks; the lines said to the user, as each is done.
 */
export async function writeStarter(file: string, forWorkflow: boolean, version: string): Promise<string[]> {
  const name = campaignName(file);
  const installed = (await stat(INSTALLED_SCHEMA).catch(() => undefined)) ? INSTALLED_SCHEMA : undefined;
  await writeFile(file, starterManifest(name, forWorkflow, schemaReference(file, installed, version)), {
    flag: 'wx',
  });
  const said = [`wrote ${file}: run it with \`campaign run ${file}\`, then \`campaign results ${file}\``];
  const wanted = gitignoreLines(name, forWorkflow);
  const ignore = join(dirname(file), '.gitignore');
  if (!(await inGitWorkTree(dirname(file)))) {
    said.push(`not in a git repository: once it is, its .gitignore wants ${wanted.join(' and ')}`);
    return said;
  }
  const had = await readFile(ignore, 'utf8').catch(() => '');
  const present = new Set(had.split('\n').map((l) => l.trim()));
  const missing = wanted.filter((l) => !present.has(l));
  if (missing.length > 0) {
    await writeFile(ignore, `${had}${had === '' || had.endsWith('\n') ? '' : '\n'}${missing.join('\n')}\n`);
    said.push(`added ${missing.join(' and ')} to ${ignore} (the state and the outputs are not for git)`);
  }
  return said;
}
