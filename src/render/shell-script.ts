/**
 * The bash `campaign shell` runs in a task's place, and the salloc line that runs it inside a
 * Slurm allocation. The script sets the task's CAMPAIGN_* variables, runs the gates as the task
 * runs them (the task's own script with no command, in a bash of its own: a failing gate is
 * reported, and the shell still opens, since looking into it is what a shell is for), then, in
 * the shell itself, enters the task's working directory, activates its environment, runs its
 * setup, and runs the user's command or an interactive bash. Manifest values reach bash as
 * quoted words (exportLines, environmentLines), or as the setup the manifest declares as shell,
 * never as other code (DESIGN rule 12).
 */
import type { TaskSpec } from '../manifest/expand.js';
import type { Manifest } from '../manifest/schema.js';
import { toShell } from '../manifest/template.js';
import { manifestTaskEnv } from './task-env.js';
import { environmentFor } from '../manifest/environment.js';
import { environmentLines } from './environment.js';
import { slurmOptionText, type SlurmOption } from './sbatch.js';
import { exportLines, shellQuote } from './shell.js';
import { ALIVE_LINES } from './ssh-gpu.js';
import { codeLines, phaseOf, renderTaskScript, scriptInputFor } from './task-script.js';

/** The exit status of a shell whose GPUs another shell took between the choice and the hold. */
export const GPUS_TAKEN_EXIT = 75;

export interface ShellScriptInput {
  manifest: Manifest;
  task: TaskSpec;
  /** CAMPAIGN_ATTEMPT: the task's last attempt, or 1 before its first. */
  attempt: number;
  /** The workdir where the shell runs, absolute. */
  workdir: string;
  /** The GPUs the devices gate expects; undefined where campaign allocates none (local). */
  gpus?: number;
  /**
   * The GPUs campaign chose (ssh-gpu, by UUID), exported as CUDA_VISIBLE_DEVICES and marked
   * held in `holds` for as long as the shell lives (see {@link shellHoldLines}).
   */
  devices?: { uuids: readonly string[]; holds: string };
  /** The code snapshot the task runs in, where the manifest declares code. */
  code?: string;
  /** Check that the shell runs on one node (a Slurm allocation could span several). */
  oneNode?: boolean;
  /** Run this (the user's own command line) instead of an interactive bash; its status is the shell's. */
  command?: string;
}

/**
 * The hold of ssh-gpu GPUs: a file per GPU UUID in `holds`, made exclusively, naming this
 * script's pid and path, so that a look at the server (render/ssh-gpu.ts: renderQuery) counts
 * the GPU held for as long as that process lives, and removed as the script ends. A hold whose
 * process is gone (a shell killed outright) is taken over.
 */
function shellHoldLines(uuids: readonly string[], holds: string): string[] {
  for (const u of uuids) if (!/^[A-Za-z0-9][A-Za-z0-9-]*$/.test(u)) throw new Error(`not a GPU UUID: ${u}`);
  return [
    ...ALIVE_LINES,
    `campaign_holds=${shellQuote(holds)}`,
    'mkdir -p -- "$campaign_holds" || exit 1',
    'campaign_held=()',
    'campaign_release() { rm -f -- "${campaign_held[@]}"; }',
    'trap campaign_release EXIT',
    `campaign_gpus=(${uuids.join(' ')})`,
    'for campaign_gpu in "${campaign_gpus[@]}"; do',
    '  campaign_hold=$campaign_holds/$campaign_gpu',
    '  if ! ( set -C; printf \'%s %s\\n\' "$$" "$0" > "$campaign_hold" ) 2>/dev/null; then',
    '    read -r campaign_pid campaign_by < "$campaign_hold"',
    '    if campaign_alive "$campaign_pid" "$campaign_by"; then',
    `      printf 'campaign: GPU %s was taken by another shell meanwhile: run campaign shell again\\n' "$campaign_gpu" >&2`,
    `      exit ${GPUS_TAKEN_EXIT}`,
    '    fi',
    '    printf \'%s %s\\n\' "$$" "$0" > "$campaign_hold"',
    '  fi',
    '  campaign_held+=("$campaign_hold")',
    'done',
  ];
}

/**
 * What the shell itself runs before the user's command or prompt: the task's working directory
 * (its code snapshot, with the output and inputs made absolute), its environment and its setup.
 * The gates have said already how each went, so a failure here is quiet: the shell opens as the
 * task would stand at that point.
 */
function placeLines(input: ShellScriptInput): string[] {
  const phase = phaseOf(input.manifest, input.task)!;
  const environment = environmentFor(input.manifest, phase);
  const inputs = phase.preconditions?.length ?? 0;
  return [
    'campaign_fail() { :; }',
    'campaign_ok() { :; }',
    'cd -- "$CAMPAIGN_WORKDIR" || printf \'campaign: cannot enter %s\\n\' "$CAMPAIGN_WORKDIR" >&2',
    ...(input.code === undefined ? [] : codeLines(input.code, inputs)),
    // Quiet as a whole: after a failure, its later steps would say more of the same.
    ...(environment ? ['{', ...environmentLines(environment), '} 2>/dev/null'] : []),
    ...[input.manifest.setup, phase.setup].filter((s): s is string => s !== undefined).map(toShell),
    'unset -f campaign_fail campaign_ok',
  ];
}

export function renderShellScript(input: ShellScriptInput): string {
  const { manifest, task } = input;
  const env = {
    ...manifestTaskEnv(manifest, task, input.attempt, input.workdir),
    ...(input.devices ? { CUDA_VISIBLE_DEVICES: input.devices.uuids.join(',') } : {}),
  };
  const gates = renderTaskScript({
    ...scriptInputFor(manifest, task, 0, input.gpus, input.code),
    index: 'shell',
    command: ':',
    claimOutput: false,
    ...(input.oneNode ? { oneNode: true } : {}),
  });
  const place = placeLines(input).join('\n');
  const shell =
    input.command === undefined
      ? [
          // The user's own rc first (their prompt, aliases), then the task's place over it.
          '[ -r ~/.bashrc ] && . ~/.bashrc',
          place,
          'printf \'campaign: a shell in the place of %s (exit to leave)\\n\' "$CAMPAIGN_TASK" >&2',
          // Expanded as the prompt is shown: the task id is a value, never prompt code.
          'PS1="(\\${CAMPAIGN_TASK}) $PS1"',
        ].join('\n')
      : `${place}\n${input.command}`;
  return [
    '#!/usr/bin/env bash',
    `# campaign ${manifest.campaign}: a shell in the place of one task (campaign shell). Generated.`,
    exportLines(env),
    ...(input.devices && input.devices.uuids.length > 0
      ? shellHoldLines(input.devices.uuids, input.devices.holds)
      : []),
    '# The gates, as the task runs them: its own script, with no command.',
    `bash -c ${shellQuote(gates)} campaign-gates < /dev/null >&2`,
    'campaign_gates=$?',
    'if [ "$campaign_gates" -eq 0 ]; then',
    "  printf 'campaign: the gates passed\\n' >&2",
    'else',
    '  printf \'campaign: the task would stop at the gate above (exit %s); the shell opens anyway, to look into it\\n\' "$campaign_gates" >&2',
    'fi',
    input.command === undefined
      ? `bash --rcfile <(printf '%s\\n' ${shellQuote(shell)}) -i`
      : `bash --norc -c ${shellQuote(shell)} campaign-shell`,
    'exit $?',
    '',
  ].join('\n');
}

/** The name of a shell's allocation: never the campaign's own job name, so that no pass takes it for a task. */
export const shellJobName = (campaign: string): string => `campaign-shell.${campaign}`;

/**
 * The command line, for bash on the login node, that allocates the task's resources and runs
 * `script` (a path the compute node sees) on the node through srun: with a terminal for an
 * interactive shell (`--pty`), without one for a command. The step is one task with the
 * allocation's CPUs (srun of Slurm 22.05 takes no --cpus-per-task from salloc's environment);
 * salloc releases the allocation as the step ends, and exits with its status.
 */
export function sallocLine(
  options: readonly SlurmOption[],
  jobName: string,
  script: string,
  terminal: boolean,
): string {
  const allocation = [{ option: 'job-name', value: jobName }, ...options].map(slurmOptionText);
  const step = options.filter((o) => o.option === 'ntasks' || o.option === 'cpus-per-task').map(slurmOptionText);
  return ['salloc', ...allocation, 'srun', ...step, ...(terminal ? ['--pty'] : []), 'bash', script]
    .map(shellQuote)
    .join(' ');
}
