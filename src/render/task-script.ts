/**
 * The bash body every executor runs for one task: echo the mapping, activate the environment
 * (render/environment.ts), run the gates (DESIGN rule 3) around the setup and before the
 * command, and write each gate's outcome to the log as a
 * `[campaign] gate NAME: ok|FAIL reason` line the observer classifies. Manifest values arrive
 * as environment variables (see manifest/template.ts), or as shell-quoted words (the names of
 * the environment), never as code. A Slurm batch script also records each task's start and end
 * in marker files (`markers`).
 */
import { renderPath, stageCommand, type TaskSpec } from '../manifest/expand.js';
import type { Environment, Manifest, Phase } from '../manifest/schema.js';
import { envName, templateNames, toShell } from '../manifest/template.js';
import { environmentFor } from '../manifest/environment.js';
import { environmentLines } from './environment.js';
import { NOW_MS_FUNCTION, shellQuote } from './shell.js';

/** Exit status of a task stopped by a gate; with the log line, it classifies as `gate`. */
export const GATE_EXIT = 97;
export const GATE_LINE = /^\[campaign\] gate (\S+): FAIL(.*)$/m;

export interface TaskScriptInput {
  campaign: string;
  /** Array index, echoed as `[campaign] task N -> id`: a number, or a shell word that expands to it. */
  index: number | string;
  /** Lines right after the shebang (a scheduler's directives). */
  header?: readonly string[];
  /**
   * Lines that set up the task's CAMPAIGN_* environment (a task-table lookup), run before
   * anything else and free to call `campaign_fail`.
   */
  prelude?: readonly string[];
  /** Check that the task runs on one node (a scheduler's job could span several). */
  oneNode?: boolean;
  /** The modules, conda or venv activated before the setup, checked as the gate `environment`. */
  environment?: Environment;
  setup: readonly string[];
  command: string;
  imports?: readonly string[];
  capability?: string;
  /**
   * How many paths must exist before the command runs: `CAMPAIGN_INPUT_0`… in the task's
   * environment (per task, so one script serves a whole array).
   */
  inputs: number;
  /** Claim the output path (`CAMPAIGN_OUTPUT`) for this task alone. */
  claimOutput?: boolean;
  /** Check that exactly this many devices are visible (executors that allocate GPUs). */
  gpus?: number;
  /**
   * Record the start and the end of the task as files in `dir` (absolute), for a controller
   * that cannot ask the scheduler about an ended job: see {@link markerLines}. The lines name
   * Slurm's variables, so only the Slurm batch script has them.
   */
  markers?: { dir: string; key: string };
  /**
   * The id of the code snapshot the task runs in (plan/code.ts), where the manifest declares
   * code: its working directory, with its output and inputs made absolute under the workdir.
   */
  code?: string;
  /**
   * The signal a checkpointing phase's command is warned with. Slurm sends it to the batch shell
   * alone (`--signal=B:…`), which records it (with markers) and passes it on to the command's
   * process group; the wrapper of the other executors sends it to the task's whole group. Either
   * way the task's own shell survives it and waits for the command, whose status it ends with.
   */
  checkpointSignal?: string;
}

/**
 * The marker lines of a Slurm array task, each in a file of its own in the marker directory,
 * `<index>.start` and `<index>.end`: `s <key> <index> <job> <epoch ms> <node> .` before anything
 * else, and `e <key> <index> <job> <epoch ms> <rc> <signal> <gate> .` from the EXIT trap, with
 * the status the scheduler sees, `TERM` when Slurm sent SIGTERM (time limit, scancel, preemption)
 * or `-`, and the gate that failed or `-`. Each is written in place: a newline, then the line and
 * its terminator ` .` in one write. A reader that comes while it is written finds an empty file or
 * a line without its terminator, which counts as not yet, and a torn file never joins the next
 * file's line in the controller's `cat <dir>/*`. (A rename into place, as earlier releases did,
 * cost two processes a task, a third of a packed task's cost.) A marker that cannot be written
 * (disk full, permissions) is left out, silently: the task runs and exits as it would without.
 */
function markerLines(markers: { dir: string; key: string }): {
  head: string[];
  end: (rc: string, gate: string) => string;
} {
  // The controller splits a marker line at blanks.
  if (!/^\S+$/.test(markers.key)) throw new Error(`a submission key with blanks: ${JSON.stringify(markers.key)}`);
  return {
    head: [
      `campaign_markers=${shellQuote(markers.dir)}`,
      'campaign_mark_index=${SLURM_ARRAY_TASK_ID:-none}',
      `campaign_mark_id=${shellQuote(markers.key)}" $campaign_mark_index \${SLURM_ARRAY_JOB_ID:-none}"`,
      'campaign_gate=-',
      'campaign_signal=-',
      'campaign_mark() {',
      '  { printf \'\\n%s .\\n\' "$2" > "$campaign_markers/$campaign_mark_index.$1"; } 2>/dev/null || :',
      '}',
      ...NOW_MS_FUNCTION,
    ],
    end: (rc, gate) =>
      `campaign_now; campaign_mark end "e $campaign_mark_id $campaign_ms ${rc} $campaign_signal ${gate}"`,
  };
}

/** The folder of a code snapshot, relative to the workdir: the same content is the same folder. */
export const codeDir = (id: string): string => `.campaign/code/${id}`;

/**
 * Into the task's code snapshot (DESIGN rule 11): `CAMPAIGN_CODE` names it, and the output and
 * inputs, workdir-relative in the task's environment, become absolute there, so that
 * `--out ${output}` still writes under the workdir. The workdir is made absolute first (`~`).
 */
export function codeLines(id: string, inputs: number): string[] {
  if (!/^[0-9a-f]+$/.test(id)) throw new Error(`not a code snapshot id: ${id}`);
  const absolute = (name: string): string => `case $${name} in ''|/*) ;; *) ${name}=$CAMPAIGN_WORKDIR/$${name} ;; esac`;
  return [
    'CAMPAIGN_WORKDIR=$PWD',
    `CAMPAIGN_CODE=$CAMPAIGN_WORKDIR/${codeDir(id)}`,
    'export CAMPAIGN_WORKDIR CAMPAIGN_CODE',
    absolute('CAMPAIGN_OUTPUT'),
    ...Array.from({ length: inputs }, (_, i) => absolute(`CAMPAIGN_INPUT_${i}`)),
    `cd -- "$CAMPAIGN_CODE" || campaign_fail code "the code snapshot ${id} is not in $CAMPAIGN_WORKDIR/.campaign/code (removed by hand?): run the campaign again, which ships it"`,
  ];
}

export function renderTaskScript(input: TaskScriptInput): string {
  const marks = input.markers ? markerLines(input.markers) : undefined;
  const warn = input.checkpointSignal;
  if (warn !== undefined && !/^[A-Z0-9]+$/.test(warn)) throw new Error(`not a signal name: ${warn}`);
  const lines = [
    '#!/usr/bin/env bash',
    ...(input.header ?? []),
    `# campaign ${input.campaign}: one task. Generated; edits are overwritten.`,
    'set -u',
    'campaign_step=start',
    ...(marks?.head ?? []),
    'campaign_fail() { ' +
      (marks ? 'campaign_gate=$1; ' : '') +
      'printf \'[campaign] gate %s: FAIL %s\\n\' "$1" "$2"; campaign_step=\'done\'; exit ' +
      GATE_EXIT +
      '; }',
    'campaign_ok() { printf \'[campaign] gate %s: ok\\n\' "$1"; }',
    'campaign_on_exit() {',
    '  local rc=$?',
    '  if [ "$campaign_step" = setup ]; then',
    '    printf \'[campaign] gate setup: FAIL the setup stopped with exit status %s\\n\' "$rc"',
    ...(marks ? [`    ${marks.end(String(GATE_EXIT), 'setup')}`] : []),
    `    exit ${GATE_EXIT}`,
    '  fi',
    // Without an explicit exit, the shell keeps the status it was leaving with (or its signal).
    ...(marks ? [`  ${marks.end('$rc', '$campaign_gate')}`] : []),
    '}',
    'trap campaign_on_exit EXIT',
    ...(marks
      ? [
          // Exiting on SIGTERM runs the EXIT trap, which records the signal. Before the command
          // runs, a foreground child (the setup, a gate) defers the trap until it ends, or until
          // Slurm's SIGKILL after KillWait, which leaves no end marker.
          'campaign_child=',
          ...(warn === undefined
            ? []
            : [
                // The warning interrupts the wait for the command, which is then waited for again.
                // One that comes before the command's process group is known is passed on as
                // soon as it is: the command may be running already, its own trap set.
                'campaign_warned=0',
                'campaign_again=0',
                'campaign_unsent=0',
                'campaign_warn() {',
                // Recorded once, as it comes: an end without its output after it is a continuation.
                '  [ "$campaign_warned" = 1 ] || { campaign_now; campaign_mark warn "w $campaign_mark_id $campaign_ms"; }',
                '  campaign_warned=1',
                '  campaign_again=1',
                `  if [ -n "$campaign_child" ]; then kill -${warn} -- "-$campaign_child" 2>/dev/null; else campaign_unsent=1; fi`,
                '}',
              ]),
          ...(warn === undefined || warn === 'TERM' ? [] : [`trap campaign_warn ${warn}`]),
          'campaign_on_term() {',
          // A warning by SIGTERM is the first SIGTERM; the time limit's is the next.
          ...(warn === 'TERM' ? ['  [ "$campaign_warned" = 1 ] || { campaign_warn; return; }'] : []),
          '  campaign_signal=TERM',
          '  [ -n "$campaign_child" ] || exit 143',
          // Recorded first: Slurm's SIGKILL after KillWait may come before the command has ended.
          `  ${marks.end('143', '-')}`,
          '  kill -TERM -- "-$campaign_child" 2>/dev/null',
          '  wait "$campaign_child"',
          '  while kill -0 -- "-$campaign_child" 2>/dev/null; do sleep 0.1; done',
          '  exit 143',
          '}',
          'trap campaign_on_term TERM',
          '[ -d "$campaign_markers" ] || mkdir -p -- "$campaign_markers" 2>/dev/null',
          'campaign_node=${SLURMD_NODENAME:-$(hostname -s 2>/dev/null)}',
          'campaign_now',
          'campaign_mark start "s $campaign_mark_id $campaign_ms ${campaign_node:--}"',
        ]
      : warn === undefined
        ? []
        : [
            // The wrapper signals the task's whole process group: this shell lives on (a trap, not
            // an ignore, which the command would inherit) and waits for the command.
            'campaign_on_warning() { :; }',
            `trap campaign_on_warning ${warn}`,
          ]),
    ...(input.prelude ?? []),
    `printf '[campaign] task %s -> %s\\n' ${input.index} "$CAMPAIGN_TASK"`,
    'cd -- "$CAMPAIGN_WORKDIR" || campaign_fail workdir "cannot enter $CAMPAIGN_WORKDIR"',
    ...(input.code === undefined ? [] : codeLines(input.code, input.inputs)),
  ];
  if (input.oneNode) {
    lines.push(
      '[ "${SLURM_JOB_NUM_NODES:-1}" -eq 1 ] || campaign_fail nodes "the job spans $SLURM_JOB_NUM_NODES nodes"',
      'campaign_ok nodes',
    );
  }
  if (input.gpus !== undefined && input.gpus > 0) {
    lines.push(
      'campaign_devices=0',
      'if [ -n "${CUDA_VISIBLE_DEVICES:-}" ]; then',
      '  IFS=\',\' read -r -a campaign_list <<< "$CUDA_VISIBLE_DEVICES"',
      '  campaign_devices=${#campaign_list[@]}',
      'fi',
      `[ "$campaign_devices" -eq ${input.gpus} ] || campaign_fail devices "asked for ${input.gpus} GPUs, got $campaign_devices (CUDA_VISIBLE_DEVICES=\${CUDA_VISIBLE_DEVICES:-})"`,
      'campaign_ok devices',
    );
  }
  // Template variables come from the task's environment; declaring them says so to shellcheck (SC2154).
  const names = [...input.setup, input.capability ?? '', input.command].flatMap((t) => templateNames(t).map(envName));
  const declared = [...new Set(names)].filter((n) => /^[A-Za-z_][A-Za-z0-9_]*$/.test(n));
  if (declared.length > 0) lines.push(`export ${declared.join(' ')}`);
  lines.push('set +u');
  if (input.environment) lines.push(...environmentLines(input.environment));
  lines.push('campaign_step=setup', 'set -e');
  for (const s of input.setup) lines.push(toShell(s));
  lines.push('set +e', 'campaign_step=gates');
  if (input.imports && input.imports.length > 0) {
    const stmt = shellQuote(`import ${input.imports.join(', ')}`);
    lines.push(
      'campaign_python=$(command -v python || command -v python3) || campaign_fail imports "no python on PATH"',
      `campaign_err=$("$campaign_python" -c ${stmt} 2>&1) || campaign_fail imports "$(printf '%s' "$campaign_err" | tail -n 1)"`,
      'campaign_ok imports',
    );
  }
  if (input.capability !== undefined) {
    lines.push(
      `( ${toShell(input.capability)}`,
      ') || campaign_fail capability "the capability check exited $?"',
      'campaign_ok capability',
    );
  }
  for (let i = 0; i < input.inputs; i++) {
    lines.push(`[ -e "$CAMPAIGN_INPUT_${i}" ] || campaign_fail inputs "missing $CAMPAIGN_INPUT_${i}"`);
  }
  if (input.inputs > 0) lines.push('campaign_ok inputs');
  if (input.claimOutput) {
    // The claim names campaign and task: a path is one task's of one campaign, never shared
    // or adopted, and an output already there that no task claims was written by something
    // campaign did not launch (it is refused, never overwritten).
    // Without forks where bash can do it itself: directories made only when missing, the claim
    // written with noclobber set in this shell.
    // In the workdir, with the output's path there (absolute where the task runs in its code).
    lines.push(
      ...(input.code === undefined
        ? []
        : ['cd -- "$CAMPAIGN_WORKDIR" || campaign_fail workdir "cannot enter $CAMPAIGN_WORKDIR"']),
      'campaign_out=${CAMPAIGN_OUTPUT#"$CAMPAIGN_WORKDIR"/}',
      'campaign_claim=".campaign/claims/$campaign_out"',
      'campaign_me="$CAMPAIGN_CAMPAIGN $CAMPAIGN_TASK"',
      'case $campaign_out in */*) campaign_out_dir=${campaign_out%/*} ;; *) campaign_out_dir=. ;; esac',
      '{ [ -d "$campaign_out_dir" ] && [ -d ".campaign/claims/$campaign_out_dir" ]; } ||',
      '  mkdir -p -- "$campaign_out_dir" ".campaign/claims/$campaign_out_dir" || campaign_fail output "cannot create the output directory"',
      'set -o noclobber',
      `{ printf '%s\\n' "$campaign_me" > "$campaign_claim"; } 2>/dev/null`,
      'campaign_claimed=$?',
      'set +o noclobber',
      'if [ "$campaign_claimed" -eq 0 ]; then',
      '  if [ -e "$campaign_out" ] || [ -L "$campaign_out" ]; then',
      '    rm -f -- "$campaign_claim"',
      '    campaign_fail output "$CAMPAIGN_OUTPUT is already there and no task of a campaign claims it (written by something campaign did not launch): move it away, or choose another output path"',
      '  fi',
      'else',
      '  campaign_owner=',
      '  { IFS= read -r campaign_owner < "$campaign_claim"; } 2>/dev/null',
      '  if [ "$campaign_owner" != "$campaign_me" ]; then',
      '    campaign_fail output "$CAMPAIGN_OUTPUT belongs to task ${campaign_owner#* } of campaign ${campaign_owner%% *}: choose another output path (or another workdir) for this campaign"',
      '  fi',
      'fi',
      'campaign_ok output',
      ...(input.code === undefined
        ? []
        : ['cd -- "$CAMPAIGN_CODE" || campaign_fail code "cannot enter $CAMPAIGN_CODE"']),
    );
  }
  lines.push("campaign_step='command'");
  if (marks) {
    // Slurm sends its SIGTERM to the batch shell alone, and bash runs no trap until a foreground
    // child ends: the command runs as a process group of its own, which the TERM trap signals
    // and waits for, so the command hears of the time limit and the end marker is written.
    // The warning goes to the whole group, this subshell too: a trap (children do not inherit it,
    // as they would an ignore) keeps it waiting for the command, whose status it ends with.
    const survive = warn === undefined ? [] : [`trap : ${warn}`];
    lines.push('set -m', '{', ...survive, toShell(input.command), '} &', 'campaign_child=$!', 'set +m');
    if (warn === undefined) lines.push('wait "$campaign_child"', 'campaign_rc=$?');
    else
      lines.push(
        `[ "$campaign_unsent" = 0 ] || { campaign_unsent=0; kill -${warn} -- "-$campaign_child" 2>/dev/null; }`,
        'campaign_rc=127',
        'campaign_again=1',
        'while [ "$campaign_again" = 1 ]; do',
        '  campaign_again=0',
        '  wait "$campaign_child"',
        '  campaign_status=$?',
        // 127: waited for already (the warning came as it ended), so its status is the one before.
        '  [ "$campaign_status" -eq 127 ] || campaign_rc=$campaign_status',
        'done',
      );
  } else {
    lines.push(
      toShell(input.command),
      "# shellcheck disable=SC2320 # the command's own status, even when it ends with echo or printf",
      'campaign_rc=$?',
    );
  }
  lines.push("campaign_step='done'", 'exit "$campaign_rc"', '');
  return lines.join('\n');
}

/** The phase of a manifest's task. */
export const phaseOf = (manifest: Manifest, task: TaskSpec): Phase | undefined =>
  manifest.phases.find((p) => p.name === task.phase);

/**
 * CAMPAIGN_RESUME for a checkpointing phase's command: 1 where the attempt continues from the
 * checkpoint of the one before (stopped at its walltime or preempted), else 0.
 */
export function resumeEnv(phase: Phase | undefined, resume: boolean | undefined): Record<string, string> {
  return phase?.checkpoint ? { CAMPAIGN_RESUME: resume ? '1' : '0' } : {};
}

/** The paths a task needs before it runs: its phase's preconditions, rendered for its cell. */
export function taskInputs(manifest: Manifest, task: TaskSpec): string[] {
  const phase = manifest.phases.find((p) => p.name === task.phase)!;
  return (phase.preconditions ?? []).map((p) => renderPath(manifest, phase, p.exists, task.values, task.tag));
}

/** The script input for one task of a manifest. */
export function scriptInputFor(
  manifest: Manifest,
  task: TaskSpec,
  index: number,
  gpus?: number,
  /** The code snapshot the submission runs, where the manifest declares code. */
  code?: string,
): TaskScriptInput {
  const phase = manifest.phases.find((p) => p.name === task.phase)!;
  const environment = environmentFor(manifest, phase);
  return {
    campaign: manifest.campaign,
    index,
    ...(environment ? { environment } : {}),
    setup: [manifest.setup, phase.setup].filter((s): s is string => s !== undefined),
    command: stageCommand(phase, task.stage),
    ...(manifest.gates?.imports ? { imports: manifest.gates.imports } : {}),
    ...(manifest.gates?.capability ? { capability: manifest.gates.capability } : {}),
    inputs: phase.preconditions?.length ?? 0,
    claimOutput: task.output !== undefined,
    ...(gpus === undefined ? {} : { gpus }),
    ...(phase.checkpoint ? { checkpointSignal: phase.checkpoint.signal } : {}),
    ...(code === undefined ? {} : { code }),
  };
}
