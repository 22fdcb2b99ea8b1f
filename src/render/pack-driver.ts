/**
 * The batch script of a packed array element (issue 37): a small driver that runs the element's
 * tasks, each as the task script of an unpacked task (`task.sh`, beside it), under the task's
 * own row number as `SLURM_ARRAY_TASK_ID`. So each packed task keeps its own markers, log,
 * gates, claim and table row, and the driver reads nothing from the manifest: the rows it runs
 * are numbers from the task table's element line, checked as such, never evaluated.
 *
 * With `parallel` K above 1, the element's CPUs and GPUs are split in K equal shares, one per
 * slot a running row holds: the row's `CUDA_VISIBLE_DEVICES` is its slot's slice of the
 * element's devices (so its devices gate counts its share), and `SLURM_CPUS_PER_TASK`,
 * `OMP_NUM_THREADS` and `CAMPAIGN_CPUS` say its share of the CPUs (no pinning: a task that
 * sizes its threads by them keeps to its share). Memory is the element's, shared.
 *
 * Slurm sends SIGTERM (time limit, scancel) to the batch shell alone: the driver passes it to
 * the process groups of the tasks it runs, which record it in their end markers, and starts no
 * more rows. A row it never started leaves no start marker, which is how the controller knows
 * it never ran (exec/slurm).
 */
import { shellQuote } from './shell.js';

/**
 * The element the `i`th attempt of a packed submission runs in: elements are numbered from 0 in
 * each submission (MaxArraySize bounds an index's value), each holding `tasks` of its attempts.
 */
export const elementOf = (i: number, tasks: number): number => Math.floor(i / tasks);

/** The task table's line for an element: `e<element>`, a tab, its rows separated by blanks. */
export function elementLine(element: number, rows: readonly number[]): string {
  return `e${element}\t${rows.join(' ')}`;
}

/** An element line read back; undefined for any other line. */
export function parseElementLine(line: string): { element: number; rows: number[] } | undefined {
  const m = /^e(\d+)\t(\d+(?: \d+)*)$/.exec(line);
  return m ? { element: Number(m[1]), rows: m[2]!.split(' ').map(Number) } : undefined;
}

export interface DriverInput {
  /** The `#SBATCH` lines. */
  header: readonly string[];
  campaign: string;
  /** The submission's directory on the cluster: `table.tsv`, `task.sh` and `logs/` are in it. */
  dir: string;
  /** Tasks run side by side. */
  parallel: number;
  /** The element's CPUs and GPUs (the phase's resources), split among the `parallel` slots. */
  cpus: number;
  gpus: number;
}

/** Each of `parallel` tasks' share of the element's CPUs (at least one) and GPUs (whole ones). */
export function packShares(input: { parallel: number; cpus: number; gpus: number }): { cpus: number; gpus: number } {
  return {
    cpus: Math.max(1, Math.floor(input.cpus / input.parallel)),
    gpus: Math.floor(input.gpus / input.parallel),
  };
}

export function renderPackDriver(input: DriverInput): string {
  const k = input.parallel;
  if (!Number.isInteger(k) || k < 1) throw new Error(`not a parallel count: ${k}`);
  const share = packShares(input);
  if (!Number.isInteger(share.cpus) || !Number.isInteger(share.gpus) || share.gpus < 0)
    throw new Error(`not a share of CPUs and GPUs: ${JSON.stringify(share)}`);
  // Side by side with GPUs: each slot's slice of the element's devices.
  const slices = k > 1 && share.gpus > 0;
  const env = [
    ...(slices ? ['CUDA_VISIBLE_DEVICES="$campaign_gpus"'] : []),
    `SLURM_CPUS_PER_TASK=${share.cpus}`,
    ...(k > 1 ? [`OMP_NUM_THREADS=${share.cpus}`] : []),
    `CAMPAIGN_CPUS=${share.cpus}`,
  ].join(' ');
  return [
    '#!/usr/bin/env bash',
    ...input.header,
    `# campaign ${input.campaign}: one packed array element. Generated; edits are overwritten.`,
    'set -u',
    `campaign_dir=${shellQuote(input.dir)}`,
    'campaign_element=${SLURM_ARRAY_TASK_ID:-none}',
    // Compared as strings, as the task script's lookup is. The element's line first, then each
    // of its rows as the table has it, read in one pass: its tasks look up nothing themselves.
    `campaign_found=$(awk -F "\\t" -v e="e$campaign_element" '$1 "" == e "" { print $2; n = split($2, r, " "); for (k = 1; k <= n; k++) want[r[k] ""] = 1; found = 1; next } found && ($1 "") in want { print $1 "\\t" $2 } END { exit !found }' "$campaign_dir/table.tsv") || {`,
    '  printf \'[campaign] element %s is not in the task table %s\\n\' "$campaign_element" "$campaign_dir/table.tsv"',
    '  exit 1',
    '}',
    "campaign_nl=$'\\n'",
    'campaign_rows=${campaign_found%%"$campaign_nl"*}',
    "[[ $campaign_rows =~ ^[0-9]+( [0-9]+)*$ ]] || { printf '[campaign] a malformed element line\\n'; exit 1; }",
    'declare -A campaign_data=()',
    'while IFS=$\'\\t\' read -r campaign_r campaign_d; do [[ $campaign_r =~ ^[0-9]+$ ]] && campaign_data[$campaign_r]=$campaign_d; done <<< "${campaign_found#*"$campaign_nl"}"',
    ...(slices
      ? [
          // The element's devices, as Slurm gave them; a slot's slice of fewer is a shortfall its task's devices gate tells.
          'IFS=\',\' read -r -a campaign_devices <<< "${CUDA_VISIBLE_DEVICES:-}"',
          'campaign_gpus=',
        ]
      : []),
    'campaign_stop=0',
    // Each running task by pid: its row, and the slot (its share of the element) it holds.
    'declare -A campaign_running=() campaign_slot_of=()',
    'campaign_busy=()',
    'campaign_on_term() {',
    '  campaign_stop=1',
    '  local p',
    '  for p in "${!campaign_running[@]}"; do kill -TERM -- "-$p" 2>/dev/null; done',
    '}',
    'trap campaign_on_term TERM',
    // wait -n returns when any task ends, or when SIGTERM's trap has run; the tasks still alive
    // are the ones kill -0 finds (one ended but not yet waited for is found, and waited for next).
    'campaign_reap() {',
    '  wait -n 2>/dev/null',
    '  local p',
    '  for p in "${!campaign_running[@]}"; do',
    '    kill -0 "$p" 2>/dev/null && continue',
    '    campaign_busy[${campaign_slot_of[$p]}]=',
    '    unset "campaign_running[$p]" "campaign_slot_of[$p]"',
    '  done',
    '}',
    'for campaign_row in $campaign_rows; do',
    `  while [ "\${#campaign_running[@]}" -ge ${k} ]; do campaign_reap; done`,
    '  [ "$campaign_stop" = 0 ] || break',
    '  campaign_slot=0',
    '  while [ -n "${campaign_busy[$campaign_slot]:-}" ]; do campaign_slot=$((campaign_slot + 1)); done',
    ...(slices
      ? [
          `  campaign_slice=("\${campaign_devices[@]:$((campaign_slot * ${share.gpus})):${share.gpus}}")`,
          '  printf -v campaign_gpus \'%s,\' "${campaign_slice[@]}"',
          '  campaign_gpus=${campaign_gpus%,}',
        ]
      : []),
    '  printf \'[campaign] element %s runs row %s (slot %s)\\n\' "$campaign_element" "$campaign_row" "$campaign_slot"',
    // Job control gives the task a process group of its own, which SIGTERM is passed to.
    '  set -m',
    `  ${env} CAMPAIGN_PACKED_ROW="\${campaign_data[$campaign_row]:-}" SLURM_ARRAY_TASK_ID=$campaign_row bash "$campaign_dir/task.sh" >> "$campaign_dir/logs/$campaign_row.log" 2>&1 &`,
    '  set +m',
    '  campaign_running[$!]=$campaign_row',
    '  campaign_slot_of[$!]=$campaign_slot',
    '  campaign_busy[$campaign_slot]=$!',
    'done',
    'while [ "${#campaign_running[@]}" -gt 0 ]; do campaign_reap; done',
    '[ "$campaign_stop" = 0 ] || exit 143',
    '',
  ].join('\n');
}
