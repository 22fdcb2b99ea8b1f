/** The `campaign` command. */
import { mkdir, readFile, stat, writeFile } from 'node:fs/promises';
import { dirname, join, relative, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { UserError } from '../errors.js';
import { formatFinding } from '../lint/lint.js';
import { manifestJsonSchema } from '../manifest/schema.js';
import { closest } from '../manifest/suggest.js';
import type { CampaignState } from '../state/state.js';
import { allCompleted, progressLine } from '../report/summary.js';
import type { PhaseCounts } from '../state/phase-counts.js';
import { systemClock } from '../app/drive.js';
import { classify } from '../app/errors.js';
import { lintManifests, manifestFiles } from '../app/lint-files.js';
import { loadCampaign, type Campaign } from '../app/load.js';
import { renderPlanJson, renderPlanText } from '../app/plan-table.js';
import { defaultOptions, workflowTarget } from '../app/workflow-file.js';
import { renderWorkflows } from '../workflow/render.js';
import { writeStarter } from './init.js';
import { manifestCommit } from './git.js';
import { changedDefinitionLines, storedState } from '../app/stored-state.js';
import { guardTerminal } from '../app/terminal.js';

// What only some commands need is imported by them when they run (`await import`): the
// controller, the executors and their transports, the summaries with their pictures, results,
// calibration and the batch scripts. `lint`, `plan` and `init` then load only what reads and
// plans a manifest, which is most of their start-up (test/app/lazy-loading.test.ts).

const FROM_GITHUB_HELP = `--from-github (read the state the newest trusted workflow run saved on GitHub; token from
GITHUB_TOKEN, GH_TOKEN or \`gh auth token\`; for the Enterprise Server GITHUB_API_URL names, GH_ENTERPRISE_TOKEN,
GITHUB_ENTERPRISE_TOKEN or \`gh auth token --hostname HOST\`)   --repo OWNER/REPO (else the origin remote)   --branch NAME`;

/** An option: a flag, or one that takes a value, named in help by its placeholder or its choices. */
export interface CommandOption {
  type: 'string' | 'boolean';
  /** The value's placeholder (DIR, SECONDS); a completion offers files for FILE and DIR. */
  value?: string;
  /** The values it accepts, where they are few. */
  choices?: readonly string[];
}

const flag: CommandOption = { type: 'boolean' };
const valued = (value: string): CommandOption => ({ type: 'string', value });
const oneOf = (...choices: string[]): CommandOption => ({ type: 'string', choices });

const STATE_DIR = { 'state-dir': valued('DIR') };
const TEXT_OR_JSON = { format: oneOf('text', 'json') };

/** The options of a command that can read its state from GitHub. */
const FROM_GITHUB = {
  'from-github': flag,
  repo: valued('OWNER/REPO'),
  branch: valued('NAME'),
};

/** What a command is given: its options' values and its operands (FILE first, where it takes one). */
export interface Given {
  values: Record<string, string | boolean | undefined>;
  files: string[];
}

/**
 * A command: its synopsis (the command, then its operands: FILE a manifest, TASK, PATH, SHELL;
 * "..." for one or more), what it does (for `campaign help` and `--help`), its options,
 * examples, and how it runs. Completion and the man page are made from this table.
 */
export interface Command {
  synopsis: string;
  help: string;
  options: Readonly<Record<string, CommandOption>>;
  examples: readonly string[];
  run(given: Given): Promise<number>;
}

export const COMMANDS: Record<string, Command> = {
  init: {
    synopsis: 'init FILE',
    help: `write a commented starter manifest to FILE (it runs on this machine as it is)
--workflow (and its GitHub Actions workflow, as campaign workflow writes it)`,
    options: { workflow: flag },
    examples: ['campaign init campaigns/sweep.yml', 'campaign init campaigns/sweep.yml --workflow'],
    run: init,
  },
  lint: {
    synopsis: 'lint FILE|DIR...',
    help: `check manifests (and the .yml files of each directory): file:line:col: severity rule: message
--format text|json   --strict (warnings fail too)`,
    options: { ...TEXT_OR_JSON, strict: flag },
    examples: ['campaign lint campaigns/', 'campaign lint campaigns/sweep.yml --strict --format json'],
    run: lint,
  },
  plan: {
    synopsis: 'plan FILE',
    help: `show phases, strata, arrays, walltimes with their arithmetic, and which tasks a changed
definition runs again   --state-dir DIR   --format text|json
--scripts DIR (write every batch script and task table as the first submission would send them)`,
    options: { ...TEXT_OR_JSON, ...STATE_DIR, scripts: valued('DIR') },
    examples: ['campaign plan campaigns/sweep.yml', 'campaign plan campaigns/sweep.yml --scripts /tmp/sweep-scripts'],
    run: plan,
  },
  check: {
    synopsis: 'check FILE',
    help: `the pre-flight, submitting nothing: the login (through its bastions), the workdir and its
disk, the environment on the login node, the first phases' preconditions, the partitions and
caps, and (Slurm) sbatch --test-only of each array; exits 1 when anything blocks
--format text|json (json: one object per item, with its status and what it blocks)`,
    options: TEXT_OR_JSON,
    examples: ['campaign check campaigns/sweep.yml', 'campaign check campaigns/sweep.yml --format json'],
    run: check,
  },
  run: {
    synopsis: 'run FILE',
    help: `drive the campaign to its end (resumes where it stopped; a task whose definition changed
runs again, and the run says so first); progress and notes go to stderr, and at the end the
markdown summary to stdout (on a terminal, its short form)
--state-dir DIR   --poll SECONDS (longest wait between passes)
--retry-failed (run failed tasks and failed smoke stages again)
--keep-changed (keep the results of tasks whose definition changed, recording that choice in
their provenance)
--fresh (start over: the earlier state, attempts and outputs are moved aside, never deleted,
never adopted)
--format json (one JSON event per line on stdout: start, task, phase, end)`,
    options: {
      ...STATE_DIR,
      poll: valued('SECONDS'),
      'retry-failed': flag,
      'keep-changed': flag,
      fresh: flag,
      format: oneOf('text', 'json'),
    },
    examples: [
      'campaign run campaigns/sweep.yml',
      'campaign run campaigns/sweep.yml --retry-failed',
      'campaign run campaigns/sweep.yml --format json | jq -c \'select(.event == "task")\'',
    ],
    run,
  },
  status: {
    synopsis: 'status FILE',
    help: `the stored state per phase, and the tasks that stopped   --state-dir DIR   --format text|json
${FROM_GITHUB_HELP}`,
    options: { ...STATE_DIR, ...TEXT_OR_JSON, ...FROM_GITHUB },
    examples: ['campaign status campaigns/sweep.yml', 'campaign status campaigns/sweep.yml --from-github'],
    run: status,
  },
  cancel: {
    synopsis: 'cancel FILE',
    help: `stop the campaign's running tasks (each one's whole process group) and record them
cancelled; for when no \`run\` drives it   --state-dir DIR`,
    options: STATE_DIR,
    examples: ['campaign cancel campaigns/sweep.yml'],
    run: cancel,
  },
  logs: {
    synopsis: 'logs FILE TASK',
    help: `a task's log, from wherever it ran (its last attempt, or --attempt N)
--follow (print what it writes until the attempt ends, while a run drives the campaign)
--state-dir DIR`,
    options: { ...STATE_DIR, attempt: valued('N'), follow: flag },
    examples: [
      'campaign logs campaigns/sweep.yml train/seed1_lr0.1',
      'campaign logs campaigns/sweep.yml train/seed1_lr0.1 --attempt 1',
    ],
    run: logs,
  },
  shell: {
    synopsis: 'shell FILE TASK',
    help: `a shell in a task's place, to debug it by hand (never on a login node): Slurm, an allocation of the
task's resources (salloc, then srun --pty onto the node); ssh-gpu, the server, with free GPUs in
CUDA_VISIBLE_DEVICES, held from the campaign's tasks while it lasts; local, a bash here. The gates
run first and say how each went; a failing one is reported and the shell opens anyway. Then the
shell has the task's CAMPAIGN_* variables, environment, setup and working directory (its code
snapshot, shipped first)   --command CMD (run CMD there instead; its exit status is the command's)
--time DURATION (Slurm: the allocation's walltime; default the phase's smoke walltime)
--state-dir DIR`,
    options: { ...STATE_DIR, command: valued('CMD'), time: valued('DURATION') },
    examples: [
      'campaign shell campaigns/sweep.yml train/seed1_lr0.1',
      'campaign shell campaigns/sweep.yml train/seed1_lr0.1 --command \'nvidia-smi; python -c "import torch"\'',
      'campaign shell campaigns/sweep.yml train/smoke/seed1_lr0.1 --time 2h',
    ],
    run: shell,
  },
  summary: {
    synopsis: 'summary FILE',
    help: `markdown summary   --state-dir DIR   --out FILE (and the pictures and provenance.jsonl beside it)
--format markdown|json (json: per phase its counts, each stopped task with its log's tail)
${FROM_GITHUB_HELP}`,
    options: { ...STATE_DIR, out: valued('FILE'), format: oneOf('markdown', 'json'), ...FROM_GITHUB },
    examples: [
      'campaign summary campaigns/sweep.yml --out report/summary.md',
      'campaign summary campaigns/sweep.yml --format json',
    ],
    run: summary,
  },
  results: {
    synopsis: 'results FILE',
    help: `the phase's results, read from the outputs of its completed tasks: one row per cell of the
grid without the replicate axis (n of planned, each metric's mean, std, sem, min, max, and which
replicates are missing); exits 1 when a cell lacks one   --state-dir DIR   --phase NAME
--tasks (one row per task)   --format csv|jsonl|markdown (default: markdown on a terminal, else csv)
--out FILE
${FROM_GITHUB_HELP}`,
    options: {
      ...STATE_DIR,
      phase: valued('NAME'),
      tasks: flag,
      format: oneOf('csv', 'jsonl', 'markdown'),
      out: valued('FILE'),
      ...FROM_GITHUB,
    },
    examples: [
      'campaign results campaigns/sweep.yml',
      'campaign results campaigns/sweep.yml --phase train --tasks --format jsonl',
    ],
    run: results,
  },
  provenance: {
    synopsis: 'provenance FILE PATH...',
    help: `what made each output: the record beside it (campaign, task, values, definition, attempt,
job, node, GPUs, times, commit)   --state-dir DIR   --format text|json`,
    options: { ...STATE_DIR, ...TEXT_OR_JSON },
    examples: ['campaign provenance campaigns/sweep.yml runs/results/seed1_lr0.1.jsonl'],
    run: provenance,
  },
  gc: {
    synopsis: 'gc FILE',
    help: `remove the code snapshots of the workdir that no task's last attempt ran or runs (a
running task keeps its own), and say which   --state-dir DIR`,
    options: STATE_DIR,
    examples: ['campaign gc campaigns/sweep.yml'],
    run: gc,
  },
  calibrate: {
    synopsis: 'calibrate FILE',
    help: `measured seconds per unit per stratum against the declared rates, headroom, the walltime
the planner would now choose; writes the cost sections' patch to calibrate.patch in the state dir
--state-dir DIR   --write (apply it to FILE)   --format text|json`,
    options: { ...STATE_DIR, write: flag, ...TEXT_OR_JSON },
    examples: ['campaign calibrate campaigns/sweep.yml', 'campaign calibrate campaigns/sweep.yml --write'],
    run: calibrateCommand,
  },
  workflow: {
    synopsis: 'workflow FILE',
    help: `write the GitHub Actions workflows for a manifest: .github/workflows/campaign-NAME.yml, and
campaign-NAME-resume.yml beside it, the scheduled resume of what parked (on only while something is)
--uses OWNER/REPO@REF   --branch NAME   --budget DURATION   --environment NAME
--runs-on LABEL   --handover dispatch|none   --stdout`,
    options: {
      uses: valued('OWNER/REPO@REF'),
      branch: valued('NAME'),
      budget: valued('DURATION'),
      environment: valued('NAME'),
      'runs-on': valued('LABEL'),
      handover: oneOf('dispatch', 'none'),
      stdout: flag,
    },
    examples: [
      'campaign workflow campaigns/sweep.yml',
      'campaign workflow campaigns/sweep.yml --budget 5h --environment approve --stdout',
    ],
    run: workflow,
  },
  schema: {
    synopsis: 'schema',
    help: "the manifest's JSON Schema",
    options: {},
    examples: ['campaign schema > campaign.schema.json'],
    run: async () => {
      process.stdout.write(JSON.stringify(jsonSchema(), null, 2) + '\n');
      return EXIT.ok;
    },
  },
  completion: {
    synopsis: 'completion SHELL',
    help: `a completion script for bash, zsh or fish: commands, options, their values, and the task ids
of a manifest's stored state for logs   --state-dir of the command line is followed`,
    options: {},
    examples: [
      'source <(campaign completion bash)        # in ~/.bashrc',
      'campaign completion zsh > "${fpath[1]}/_campaign"',
      'campaign completion fish > ~/.config/fish/completions/campaign.fish',
    ],
    run: completionCommand,
  },
};

const EXIT_STATUS = `Exit status: 0 success (run: every task completed), 1 lint errors or an incomplete
campaign, 2 a usage or input error, 3 a bug in campaign, 130 stopped by Ctrl-C, 141 its output
was a pipe the reader closed (as \`| head\` does).`;

const indent = (text: string, by: number): string =>
  text
    .split('\n')
    .map((l) => ' '.repeat(by) + l)
    .join('\n');

function usage(): string {
  const lines = Object.values(COMMANDS).map((c) => `  ${c.synopsis}\n${indent(c.help, 6)}`);
  return `usage: campaign <command> [options]   (campaign <command> --help, campaign --version)\n\n${lines.join('\n')}\n\n${EXIT_STATUS}`;
}

function commandHelp(c: Command): string {
  const examples = c.examples.map((e) => `  ${e}`).join('\n');
  return `usage: campaign ${c.synopsis} [options]\n\n${c.help}\n\nExamples:\n${examples}\n\n${EXIT_STATUS}`;
}

/** The version in the package.json beside the built code; "unknown" where there is none. */
async function version(): Promise<string> {
  try {
    const pkg = JSON.parse(await readFile(new URL('../../package.json', import.meta.url), 'utf8')) as {
      version?: string;
    };
    return pkg.version ?? 'unknown';
  } catch {
    return 'unknown';
  }
}

/**
 * Exit statuses; `interrupted` is a shell's for a command ended by SIGINT, `closedPipe` for
 * one ended by SIGPIPE (128 + 13), which is how `cmd | head` ends a command that writes on.
 */
const EXIT = { ok: 0, incomplete: 1, user: 2, bug: 3, interrupted: 130, closedPipe: 141 } as const;

const STOPPED = 'stopped; running tasks go on. Run the same command again to reattach.';

/**
 * Aborted when stdout or stderr turns out to be a pipe whose reader has gone. Node reports it
 * as an EPIPE error on the stream, which unhandled prints a stack trace: instead the command
 * ends quietly with status 141, `run` after its pass (its lock released), `logs --follow` at
 * its next read, the others as they return.
 */
const closedPipe = new AbortController();
let watchingPipes = false;

function watchPipes(): void {
  if (watchingPipes) return;
  watchingPipes = true;
  for (const stream of [process.stdout, process.stderr])
    stream.on('error', (e: NodeJS.ErrnoException) => {
      if (e.code !== 'EPIPE') throw e;
      process.exitCode = EXIT.closedPipe;
      closedPipe.abort();
    });
}

export async function main(argv: string[]): Promise<number> {
  watchPipes();
  // Reasons, server messages and logs quote tasks: no escape sequence of theirs reaches a terminal.
  guardTerminal(process.stdout);
  guardTerminal(process.stderr);
  const code = await command(argv);
  return closedPipe.signal.aborted ? EXIT.closedPipe : code;
}

async function command(argv: string[]): Promise<number> {
  const [name, ...rest] = argv;
  try {
    if (name === undefined || name === '-h' || name === '--help' || name === 'help') {
      const about = name === 'help' && rest[0] !== undefined ? COMMANDS[rest[0]] : undefined;
      process.stdout.write((about ? commandHelp(about) : usage()) + '\n');
      return name === undefined ? EXIT.user : EXIT.ok;
    }
    if (name === '--version' || name === '-V' || name === 'version') {
      process.stdout.write(`campaign ${await version()}\n`);
      return EXIT.ok;
    }
    if (name === TASKS_COMMAND) return await storedTaskIds(rest);
    const command = Object.hasOwn(COMMANDS, name) ? COMMANDS[name] : undefined;
    if (!command) {
      const near = closest(name, Object.keys(COMMANDS));
      throw new UserError({
        message: `unknown command "${name}"${near ? `; did you mean "${near}"?` : ''}`,
        fix: near ? `campaign ${near} ${rest.join(' ')}`.trim() : 'run `campaign help` for the commands',
      });
    }
    if (rest.includes('--help') || rest.includes('-h')) {
      process.stdout.write(commandHelp(command) + '\n');
      return EXIT.ok;
    }
    return await command.run(await parse(name, command, rest));
  } catch (e) {
    const failure = classify(e);
    process.stderr.write(`campaign: ${failure.kind === 'user' ? failure.error.message : failure.message}\n`);
    return failure.kind === 'bug' ? EXIT.bug : EXIT.user;
  }
}

export function jsonSchema(): unknown {
  return manifestJsonSchema();
}

/** What an operand of a synopsis is, in a message that says one is missing. */
const OPERANDS: Record<string, string> = {
  FILE: 'manifest',
  'FILE|DIR': 'manifest or folder',
  TASK: 'task id (as `campaign status` shows it: phase/tag)',
  PATH: 'output path',
  SHELL: 'shell (bash, zsh or fish)',
};

/** The operands of a synopsis: their names, and whether the last takes one or more. */
export function operandsOf(c: Command): { names: string[]; many: boolean } {
  const words = c.synopsis.split(' ').slice(1);
  return { names: words.map((w) => w.replace(/\.\.\.$/, '')), many: words.at(-1)?.endsWith('...') ?? false };
}

/**
 * The options and operands of a command, checked against its entry in the table: an unknown
 * option gets a suggestion, a value outside an option's choices the choices, a missing operand
 * its name, and a manifest that is not there says so before anything reads it.
 */
async function parse(name: string, c: Command, argv: string[]): Promise<Given> {
  const options = Object.fromEntries(Object.entries(c.options).map(([k, o]) => [k, { type: o.type }]));
  let parsed;
  try {
    parsed = parseArgs({ args: argv, options, allowPositionals: true, strict: true });
  } catch (e) {
    throw optionError(name, c, argv, e as Error & { code?: string });
  }
  const values = parsed.values as Record<string, string | boolean | undefined>;
  for (const [option, value] of Object.entries(values)) {
    const choices = c.options[option]?.choices;
    if (typeof value === 'string' && choices && !choices.includes(value))
      throw new UserError({
        message: `--${option} ${value} is not known`,
        fix: `use ${choices
          .map((v) => `--${option} ${v}`)
          .join(', ')
          .replace(/, ([^,]*)$/, ' or $1')}`,
      });
  }
  const given = parsed.positionals;
  const operands = operandsOf(c);
  if (given.length < operands.names.length) {
    const missing = operands.names[given.length]!;
    throw new UserError({
      message:
        given.length === 0 && missing === 'FILE' ? 'no manifest given' : `no ${OPERANDS[missing] ?? missing} given`,
      fix: `campaign ${c.synopsis}`,
    });
  }
  if (!operands.many && given.length > operands.names.length)
    throw new UserError({
      message:
        operands.names.length === 1 && operands.names[0] === 'FILE'
          ? `this command takes one manifest; also given: ${given.slice(1).join(' ')}`
          : `campaign ${c.synopsis} takes ${operands.names.length}; also given: ${given.slice(operands.names.length).join(' ')}`,
      fix: operands.names[0] === 'FILE' ? 'run it once per manifest' : `campaign ${c.synopsis}`,
    });
  // init writes its FILE; every other command reads it.
  if (operands.names[0] === 'FILE' && name !== 'init') await mustExist(given[0]!);
  return { values, files: given };
}

async function mustExist(file: string): Promise<void> {
  const found = await stat(file).catch(() => undefined);
  if (found?.isFile()) return;
  throw new UserError({
    message: found ? `${file} is not a file` : `${file} does not exist`,
    fix: found
      ? 'give the manifest, a .yml file'
      : `check the path (from ${process.cwd()}), or write a starter there with \`campaign init ${file}\``,
  });
}

/** parseArgs's refusal, said in the command's terms: the option it does not know, with the nearest it does. */
function optionError(name: string, c: Command, argv: string[], e: Error & { code?: string }): UserError {
  const help = `run \`campaign ${name} --help\` for its options`;
  const known = Object.keys(c.options).map((o) => `--${o}`);
  if (e.code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION') {
    const end = argv.indexOf('--');
    const unknown = (end < 0 ? argv : argv.slice(0, end))
      .filter((a) => a.startsWith('-') && a !== '-')
      .map((a) => a.split('=')[0]!)
      .find((a) => !known.includes(a));
    const shown = unknown ?? 'an option';
    const near = unknown === undefined ? undefined : closest(unknown.replace(/^-+/, '--'), known);
    return new UserError({
      message: `campaign ${name} has no option ${shown}${near ? `; did you mean ${near}?` : ''}`,
      fix: near
        ? `campaign ${name} ${argv.map((a) => (a.split('=')[0] === unknown ? a.replace(unknown!, near) : a)).join(' ')}`
        : help,
    });
  }
  const option = /'(?:-\w, )?(--[\w-]+)/.exec(e.message)?.[1];
  const spec = option === undefined ? undefined : c.options[option.slice(2)];
  if (e.code === 'ERR_PARSE_ARGS_INVALID_OPTION_VALUE' && option !== undefined && spec !== undefined)
    return new UserError({
      message:
        spec.type === 'boolean'
          ? `${option} takes no value`
          : `${option} needs a value${spec.choices ? ` (${spec.choices.join('|')})` : spec.value ? ` (${spec.value})` : ''}`,
      fix:
        spec.type === 'boolean'
          ? `write ${option} alone`
          : `${option} VALUE, or ${option}=VALUE for a value that starts with "-"`,
    });
  return new UserError({ message: e.message, fix: help });
}

function format(v: string | boolean | undefined): 'text' | 'json' {
  return v === 'json' ? 'json' : 'text';
}

async function lint({ values, files }: Given): Promise<number> {
  const fmt = format(values.format);
  const all = await lintManifests(await manifestFiles(files, 'lint'), true);
  if (fmt === 'json') process.stdout.write(JSON.stringify(all, null, 2) + '\n');
  else for (const f of all) process.stdout.write(formatFinding(f) + '\n');
  const failing = all.some((f) => f.severity === 'error' || (values.strict === true && f.severity === 'warning'));
  return failing ? EXIT.incomplete : EXIT.ok;
}

function printWarnings(c: Campaign): void {
  for (const w of c.warnings) process.stderr.write(formatFinding(w) + '\n');
}

async function plan({ values, files }: Given): Promise<number> {
  const c = await loadCampaign(files[0]!, values['state-dir'] as string | undefined);
  if (typeof values.scripts === 'string') {
    const { shownWorkdir, writeSubmissionScripts } = await import('../app/scripts.js');
    const written = await writeSubmissionScripts(c, values.scripts);
    const arrays = new Set(written.map((w) => w.array)).size;
    process.stdout.write(
      `wrote ${written.length} files for ${arrays} arrays to ${values.scripts} (workdir ${shownWorkdir(c)})\n`,
    );
    return EXIT.ok;
  }
  if (format(values.format) === 'json') process.stdout.write(renderPlanJson(c.plan) + '\n');
  else {
    printWarnings(c);
    process.stdout.write(renderPlanText(c.plan));
    // Against the stored state, where there is one: which tasks a run would send again, and why.
    const changes = await changedDefinitionLines(c);
    if (changes !== undefined) {
      process.stdout.write(`\nAgainst the stored state (${c.stateDir}):\n`);
      if (changes.length === 0) process.stdout.write('  no definition changed: a run sends no completed task again\n');
      for (const line of changes) process.stdout.write(`  ${line}\n`);
    }
  }
  return EXIT.ok;
}

const warn = (m: string): void => {
  process.stderr.write(`campaign: warning: ${m}\n`);
};

/** The campaign's executor, with the SSH key and passphrase the environment gives. */
async function openFor(c: Campaign, since: () => string, checkCluster: boolean) {
  const [{ openExecutor }, { sshSecretsFrom }] = await Promise.all([
    import('../app/executors.js'),
    import('../app/transport-for.js'),
  ]);
  return openExecutor(c, { ssh: sshSecretsFrom(process.env), since, warn, checkCluster });
}

async function check({ values, files }: Given): Promise<number> {
  const c = await loadCampaign(files[0]!);
  printWarnings(c);
  const { checkCampaign } = await import('./check.js');
  return (await checkCampaign(c, warn, format(values.format))) ? EXIT.ok : EXIT.incomplete;
}

async function run({ values, files }: Given): Promise<number> {
  if (values.fresh === true && values['keep-changed'] === true)
    throw new UserError({
      message: '--fresh and --keep-changed contradict each other',
      fix: 'a fresh start keeps no earlier result: give one of them',
    });
  const c = await loadCampaign(files[0]!, values['state-dir'] as string | undefined);
  const maxPoll = values.poll === undefined ? undefined : Number(values.poll);
  if (maxPoll !== undefined && !(maxPoll > 0))
    throw new UserError({ message: `--poll ${String(values.poll)} is not a positive number of seconds` });
  const json = values.format === 'json';
  printWarnings(c);
  const commit = await manifestCommit(c.file);
  const [{ runCampaign }, { sshSecretsFrom }, { Progress }, { campaignSummary, summaryRecord }, { RunEvents }] =
    await Promise.all([
      import('../app/run.js'),
      import('../app/transport-for.js'),
      import('./progress.js'),
      import('../app/summary.js'),
      import('../report/run-events.js'),
    ]);
  // The first Ctrl-C (or SIGTERM) stops after the pass under way, so that what it submitted is
  // saved; a second one leaves at once. Running tasks go on either way.
  const stopping = new AbortController();
  let lock: { release(): Promise<void> } | undefined;
  const stop = (): void => {
    if (!stopping.signal.aborted) {
      process.stderr.write('\ncampaign: stopping after this pass (again to stop at once); running tasks go on\n');
      stopping.abort();
      return;
    }
    process.stderr.write(`\ncampaign: ${STOPPED}\n`);
    void (lock?.release() ?? Promise.resolve()).finally(() => process.exit(EXIT.interrupted));
  };
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
  // A reader gone (`run … | head`) stops it as a first Ctrl-C does, quietly.
  const readerGone = (): void => stopping.abort();
  closedPipe.signal.addEventListener('abort', readerGone);
  // Progress goes to stderr, so that stdout carries only data: the summary, or the events.
  let shown: { update(state: CampaignState): void } | undefined;
  try {
    return await runCampaign(
      c,
      {
        holder: `campaign run ${files[0]!}`,
        ssh: sshSecretsFrom(process.env),
        clock: systemClock,
        signal: stopping.signal,
        ...(maxPoll === undefined ? {} : { maxPoll }),
        ...(commit === undefined ? {} : { commit }),
        retryFailed: values['retry-failed'] === true,
        keepChanged: values['keep-changed'] === true,
        fresh: values.fresh === true,
        retryFix: 'run again with --retry-failed',
        note,
        warn,
        onLock: (held) => (lock = held),
        onStart: (plan, state) => {
          if (!json) shown = new Progress(process.stderr, plan);
          else {
            const events = new RunEvents(plan, (e) => process.stdout.write(JSON.stringify(e) + '\n'));
            events.start(state);
            shown = events;
          }
        },
        onPass: (state) => shown?.update(state),
      },
      async ({ plan, state, executor, diskFull }) => {
        // Its reader gone, the run says nothing more.
        if (closedPipe.signal.aborted) return EXIT.closedPipe;
        if (stopping.signal.aborted) {
          process.stderr.write(`campaign: ${STOPPED}\n`);
          return EXIT.interrupted;
        }
        const text = await campaignSummary({ campaign: c, plan, state, executor, beside: c.stateDir, warn });
        const summaryFile = join(c.stateDir, 'summary.md');
        await writeFile(summaryFile, text);
        const record = await summaryRecord(plan, state, undefined);
        // The markdown is data for a file or a pipe; a person at a terminal reads its short form.
        if (shown instanceof RunEvents) shown.end(record, summaryFile);
        else if (process.stdout.isTTY) process.stdout.write('\n' + statusText(record));
        else process.stdout.write('\n' + text);
        note(
          `the summary is in ${join(relative(process.cwd(), c.stateDir) || '.', 'summary.md')}, its pictures beside it; a task's log: campaign logs ${files[0]!} TASK`,
        );
        if (diskFull.length > 0) {
          warn(
            `paused: ${diskFull.length} task${diskFull.length === 1 ? '' : 's'} found the disk full (${state.tasks[diskFull[0]!]!.attempts.at(-1)!.reason}); ` +
              'nothing more was submitted. Free space, then run the same command again: they run again, their retries intact',
          );
        }
        return allCompleted(plan, state) ? EXIT.ok : EXIT.incomplete;
      },
    );
  } finally {
    process.off('SIGINT', stop);
    process.off('SIGTERM', stop);
    closedPipe.signal.removeEventListener('abort', readerGone);
  }
}

/**
 * The campaign of a command that reads its state: with --from-github, the state the newest
 * trusted workflow run saved, fetched into --state-dir or a temporary directory.
 */
async function campaignOf(file: string, values: Record<string, string | boolean | undefined>): Promise<Campaign> {
  const stateDir = values['state-dir'] as string | undefined;
  if (values['from-github'] !== true) {
    if (values.repo !== undefined || values.branch !== undefined)
      throw new UserError({
        message: '--repo and --branch say where on GitHub to read the state from',
        fix: 'add --from-github',
      });
    return loadCampaign(file, stateDir);
  }
  const c = await loadCampaign(file);
  const { campaignFromGitHub } = await import('./from-github.js');
  const repo = values.repo as string | undefined;
  const branch = values.branch as string | undefined;
  const where = { ...(repo ? { repo } : {}), ...(branch ? { branch } : {}), ...(stateDir ? { stateDir } : {}) };
  return campaignFromGitHub(c, where, process.env, note);
}

async function cancel({ values, files }: Given): Promise<number> {
  const c = await loadCampaign(files[0]!, values['state-dir'] as string | undefined);
  const [{ cancelCampaign }, { sshSecretsFrom }] = await Promise.all([
    import('../app/locked-commands.js'),
    import('../app/transport-for.js'),
  ]);
  // Refused while a `run` holds the lock: it would start the next tasks as these end.
  const r = await cancelCampaign(c, { holder: `campaign cancel ${files[0]!}`, ssh: sshSecretsFrom(process.env), warn });
  for (const id of r.cancelled) process.stdout.write(`cancelled ${id}\n`);
  for (const id of r.running) process.stderr.write(`campaign: ${id} is still running after 60 s\n`);
  return r.running.length === 0 ? EXIT.ok : EXIT.incomplete;
}

async function status({ values, files }: Given): Promise<number> {
  const fmt = format(values.format);
  const c = await campaignOf(files[0]!, values);
  const state = await storedState(c);
  const { summaryRecord } = await import('../app/summary.js');
  const record = await summaryRecord(c.plan, state, undefined);
  if (fmt === 'json') process.stdout.write(JSON.stringify(record, null, 2) + '\n');
  else process.stdout.write(statusText(record));
  return record.complete ? EXIT.ok : EXIT.incomplete;
}

/** The phases' lines and the tasks that stopped (the first 20), as `status` and a run's end show them. */
function statusText(record: {
  phases: PhaseCounts[];
  stopped: { id: string; status: string; reason?: string }[];
}): string {
  const lines = record.phases.map(progressLine);
  for (const t of record.stopped.slice(0, 20)) lines.push(`  ${t.id}: ${t.reason ?? t.status}`);
  if (record.stopped.length > 20)
    lines.push(`  … and ${record.stopped.length - 20} more (campaign summary lists them)`);
  return lines.join('\n') + '\n';
}

const note = (m: string): void => {
  process.stderr.write(`campaign: ${m}\n`);
};

async function summary({ values, files }: Given): Promise<number> {
  const json = values.format === 'json';
  const c = await campaignOf(files[0]!, values);
  const state = await storedState(c);
  const { campaignSummary, summaryRecord } = await import('../app/summary.js');
  const { executor } = await openFor(c, () => state.created, false);
  try {
    // The pictures go next to a summary written to a file, where its links find them.
    const out = typeof values.out === 'string' ? values.out : undefined;
    const beside = out === undefined ? undefined : dirname(resolve(out));
    const text = json
      ? JSON.stringify(await summaryRecord(c.plan, state, executor), null, 2) + '\n'
      : await campaignSummary({ campaign: c, plan: c.plan, state, executor, beside, warn });
    if (out !== undefined) await writeFile(out, text);
    else process.stdout.write(text);
  } finally {
    await executor.close();
  }
  return allCompleted(c.plan, state) ? EXIT.ok : EXIT.incomplete;
}

/** `campaign logs FILE TASK`: the task's log, read where its executor put it. */
async function logs({ values, files }: Given): Promise<number> {
  const c = await loadCampaign(files[0]!, values['state-dir'] as string | undefined);
  const id = files[1]!;
  const tasks = c.plan.phases.flatMap((p) => [...p.smoke, ...p.tasks]);
  const task = tasks.find((t) => t.id === id);
  if (!task) {
    // A tag alone (seed1_lr0.1) is the task of that tag in whichever phase has one.
    const ids = tasks.map((t) => t.id);
    const near = ids.find((t) => t.endsWith(`/${id}`)) ?? closest(id, ids);
    throw new UserError({
      message: `${c.manifest.campaign} has no task ${id}${near ? `; did you mean ${near}?` : ''}`,
      fix: near
        ? `campaign logs ${files[0]!} ${near}`
        : 'give a task id as `campaign status` and the summary show them (phase/tag)',
    });
  }
  let state = await storedState(c);
  const attempts = state.tasks[id]?.attempts ?? [];
  const n = values.attempt === undefined ? attempts.length : Number(values.attempt);
  if (!attempts.some((a) => a.n === n))
    throw new UserError({
      message:
        attempts.length === 0
          ? `${id} has not run yet`
          : `${id} has no attempt ${String(values.attempt)}; it has ${attempts.map((a) => a.n).join(', ')}`,
      fix: attempts.length === 0 ? 'run the campaign first' : 'give one of those to --attempt',
    });
  const { executor } = await openFor(c, () => state.created, false);
  try {
    let shown = 0;
    for (;;) {
      const attempt = state.tasks[id]!.attempts.find((a) => a.n === n)!;
      const text = await executor.readLog(task, attempt);
      // A log only grows; one read shorter than what was shown was rewritten, so it is shown again.
      process.stdout.write(text.length >= shown ? text.slice(shown) : text);
      shown = text.length;
      if (values.follow !== true || attempt.class !== undefined || closedPipe.signal.aborted) break;
      await systemClock.sleep(FOLLOW_MS);
      state = await storedState(c);
    }
  } finally {
    await executor.close();
  }
  return EXIT.ok;
}

/** `campaign shell FILE TASK`: a shell in the task's place (app/shell.ts). */
async function shell({ values, files }: Given): Promise<number> {
  const c = await loadCampaign(files[0]!, values['state-dir'] as string | undefined);
  const [{ openShell }, { sshSecretsFrom }] = await Promise.all([
    import('../app/shell.js'),
    import('../app/transport-for.js'),
  ]);
  return openShell(c, {
    taskId: files[1]!,
    ...(typeof values.time === 'string' ? { time: values.time } : {}),
    ...(typeof values.command === 'string' ? { command: values.command } : {}),
    state: await storedState(c),
    ssh: sshSecretsFrom(process.env),
    note,
  });
}

/** How often `logs --follow` reads the log again. */
const FOLLOW_MS = 1000;

/** `campaign provenance FILE PATH...`: what made each output, from the record beside it. */
async function provenance({ values, files }: Given): Promise<number> {
  const fmt = format(values.format);
  const c = await loadCampaign(files[0]!, values['state-dir'] as string | undefined);
  const state = await storedState(c);
  const { readProvenance, renderProvenance, workdirPath } = await import('../app/provenance.js');
  const { executor } = await openFor(c, () => state.created, false);
  let missing = 0;
  try {
    for (const asked of files.slice(1)) {
      const path = workdirPath(c, asked);
      const found = await readProvenance(executor, path);
      if ('error' in found) {
        missing++;
        process.stderr.write(`campaign: ${asked}: ${found.error}\n`);
        continue;
      }
      if (fmt === 'json') process.stdout.write(JSON.stringify(found.record) + '\n');
      else process.stdout.write(renderProvenance(found.record, state) + '\n');
    }
  } finally {
    await executor.close();
  }
  return missing === 0 ? EXIT.ok : EXIT.incomplete;
}

/**
 * `campaign gc`: under the campaign's lock, so that no run of this state ships or sends while
 * snapshots go; the snapshot the manifest's code makes now is kept too (a run would ship it).
 */
async function gc({ values, files }: Given): Promise<number> {
  const c = await loadCampaign(files[0]!, values['state-dir'] as string | undefined);
  const [{ removeUnusedCode }, { sshSecretsFrom }] = await Promise.all([
    import('../app/locked-commands.js'),
    import('../app/transport-for.js'),
  ]);
  const { removed, kept } = await removeUnusedCode(c, {
    holder: `campaign gc ${files[0]!}`,
    ssh: sshSecretsFrom(process.env),
    warn,
  });
  for (const id of removed) process.stdout.write(`removed code snapshot ${id}\n`);
  process.stderr.write(
    `campaign: ${removed.length} code snapshot${removed.length === 1 ? '' : 's'} removed, ${kept.length} kept (${kept.join(', ') || 'none'})\n`,
  );
  return EXIT.ok;
}

async function results({ values, files }: Given): Promise<number> {
  const out = values.out as string | undefined;
  const { campaignResults, resultsFormat } = await import('./results.js');
  const fmt = resultsFormat(values.format as string | undefined, out === undefined && process.stdout.isTTY);
  const c = await campaignOf(files[0]!, values);
  const state = await storedState(c);
  const { executor } = await openFor(c, () => state.created, false);
  try {
    const phase = values.phase as string | undefined;
    const r = await campaignResults(c, state, executor, {
      ...(phase === undefined ? {} : { phase }),
      tasks: values.tasks === true,
      format: fmt,
    });
    if (out !== undefined) await writeFile(out, r.text);
    else process.stdout.write(r.text);
    return r.complete ? EXIT.ok : EXIT.incomplete;
  } finally {
    await executor.close();
  }
}

/** `campaign init FILE`: a starter manifest, never over an existing file; with --workflow, its workflow too. */
async function init({ values, files }: Given): Promise<number> {
  const file = files[0]!;
  await mkdir(dirname(resolve(file)), { recursive: true });
  try {
    for (const line of await writeStarter(file, values.workflow === true, await version())) {
      process.stdout.write(`${line}\n`);
    }
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
    throw new UserError({
      message: `${file} exists; init writes only a new file`,
      fix: 'give another path, or edit that one',
    });
  }
  if (values.workflow !== true) return EXIT.ok;
  // The starter runs where campaign runs: under the workflow, on a runner of the user's own.
  process.stdout.write(
    `its workflow runs on a self-hosted runner, as the starter runs on the machine itself; once it points at a cluster (executor: slurm), \`campaign workflow ${file} --runs-on ubuntu-latest\` moves it to GitHub's runners\n`,
  );
  return workflow({ values: { 'runs-on': 'self-hosted' }, files: [file] });
}

/**
 * What `--uses` may name: the action in a repository at a ref (a commit may carry its tag as a
 * comment: `OWNER/REPO@SHA # v1`), or at a path in the workflow's own repository.
 */
const USES = /^(?:\.\/\S*|[A-Za-z0-9][A-Za-z0-9-]*\/[A-Za-z0-9._-]+@[^\s@]+(?:\s+#\s*\S+)?)$/;

async function workflow({ values, files }: Given): Promise<number> {
  const c = await loadCampaign(files[0]!);
  const target = await workflowTarget(c.file, c.manifest.campaign);
  // Flags over the options the workflow was last written with, over the defaults.
  const was = target.existing?.options ?? (await defaultOptions(c.file));
  const flag = (name: string): string | undefined => values[name] as string | undefined;
  const uses = flag('uses');
  if (uses !== undefined && !USES.test(uses))
    throw new UserError({
      message: `--uses ${uses} is not OWNER/REPO@REF (nor a path in this repository, ./…)`,
      fix: "name the action as a workflow's uses: does, e.g. --uses campaign-tools/campaign@v0",
    });
  const environment = flag('environment') ?? target.existing?.options?.environment;
  const handover = flag('handover') ?? was.handover;
  if (handover !== undefined && handover !== 'dispatch' && handover !== 'none')
    throw new UserError({
      message: `--handover ${handover} is not dispatch or none`,
      fix: 'dispatch: a job whose budget runs out starts the workflow again; none: a schedule or a person does',
    });
  const written = renderWorkflows(c.plan, {
    ...(handover ? { handover } : {}),
    manifest: target.manifest,
    uses: uses ?? was.uses,
    branch: flag('branch') ?? was.branch,
    budget: flag('budget') ?? was.budget,
    runsOn: flag('runs-on') ?? was.runsOn,
    ...(environment ? { environment } : {}),
  });
  // On stdout, one YAML stream: each file a document, its path in a comment above it.
  if (values.stdout === true) {
    process.stdout.write(written.map(({ path, text }) => `# ${path}\n${text}`).join('---\n'));
    return EXIT.ok;
  }
  for (const { path, text } of written) {
    const at = join(target.root, path);
    await mkdir(dirname(at), { recursive: true });
    await writeFile(at, text);
    process.stdout.write(`wrote ${relative(process.cwd(), at) || at}\n`);
  }
  return EXIT.ok;
}

async function calibrateCommand({ values, files }: Given): Promise<number> {
  const fmt = format(values.format);
  const c = await loadCampaign(files[0]!, values['state-dir'] as string | undefined);
  const state = await storedState(c);
  const { runCalibrate } = await import('./calibrate.js');
  const { executor } = await openFor(c, () => state.created, false);
  try {
    const r = await runCalibrate(c, executor, state, { write: values.write === true });
    if (fmt === 'json') process.stdout.write(JSON.stringify({ ...r.calibration, diff: r.diff }, null, 2) + '\n');
    else {
      process.stdout.write(r.report);
      if (r.patchFile) {
        const applied =
          values.write === true ? `applied to ${c.file}` : 'apply it with `git apply` or rerun with --write';
        process.stdout.write(`\nThe cost sections, as measured (${r.patchFile}; ${applied}):\n\n${r.diff}`);
      } else if (r.calibration.phases.some((p) => p.strata.length > 0))
        process.stdout.write('\nThe manifest already holds the measured rates.\n');
    }
    return r.differs ? EXIT.incomplete : EXIT.ok;
  } finally {
    await executor.close();
  }
}

/** `campaign completion SHELL`: the script that completes campaign's command line in that shell. */
async function completionCommand({ files }: Given): Promise<number> {
  const { completionScript } = await import('./completion.js');
  process.stdout.write(completionScript(files[0]!, COMMANDS));
  return EXIT.ok;
}

/** The hidden command completion scripts call for the task ids of a manifest's stored state. */
export const TASKS_COMMAND = '__tasks';

/** `campaign __tasks FILE [--state-dir DIR]`: the stored state's task ids, one a line; nothing when there is none. */
async function storedTaskIds(argv: string[]): Promise<number> {
  const { values, positionals } = parseArgs({
    args: argv,
    options: { 'state-dir': { type: 'string' } },
    allowPositionals: true,
    strict: false,
  });
  const file = positionals[0];
  if (file === undefined) return EXIT.user;
  const stateDir = typeof values['state-dir'] === 'string' ? values['state-dir'] : undefined;
  const state = await storedState(await loadCampaign(file, stateDir));
  for (const id of Object.keys(state.tasks).sort()) process.stdout.write(`${id}\n`);
  return EXIT.ok;
}

/** campaign(1), made from the command table (`npm run man` writes it to man/campaign.1). */
export async function manual(): Promise<string> {
  const { manPage } = await import('./man.js');
  return manPage(COMMANDS, EXIT_STATUS);
}
