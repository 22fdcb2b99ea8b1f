/**
 * One Slurm submission sent by one controller at a time, and never an attempt another
 * controller has sent: two controllers with separate states on one campaign (a laptop and CI)
 * each run every task once. The campaign's directory on the cluster keeps a ledger of what was
 * sent (`submitted.tsv`, a line per attempt: key, job id, array index, definition, attempt,
 * task), written only under a lock (`flock` on `submitted.lock`). Under it, the command reads
 * the ledger past what this controller has read, and sends the job only if none of its attempts
 * is there; either way it prints what it read, for the controller to adopt.
 */
import type { Submission } from '../state/events.js';
import { elementOf } from './pack-driver.js';
import { shellQuote } from './shell.js';

/** The ledger of submissions, in the campaign's directory of job tables. */
export const LEDGER = 'submitted.tsv';

/**
 * An attempt the ledger says was sent: in job `jobId` at `index`, its tables under `key`; packed,
 * in the array element `element` (its index field is then `<index>@<element>`).
 */
export interface LedgerRow {
  key: string;
  jobId: string;
  index: number;
  element?: number;
  definition: string;
  attempt: number;
  task: string;
}

/** What the command did: sent the job, found attempts of it taken, or sbatch failed (its words on stderr). */
export type SubmitOnce = { sent: string } | { taken: true } | { failed: number } | { locked: true };

/** How long the command waits for another controller's submission to end. */
const LOCK_WAIT_S = 60;

/** The lines on the command's standard input: the group's attempts, as the ledger records them. */
export function attemptLines(group: readonly Submission[], packed?: number): string {
  return group
    .map((s, i) => {
      const at = packed === undefined ? String(s.index) : `${s.index}@${elementOf(i, packed)}`;
      return `${at}\t${s.task.definition ?? ''}\t${s.attempt}\t${s.task.id}\n`;
    })
    .join('');
}

/**
 * Run in the campaign's directory (`root`), for the submission `key` whose script is uploaded
 * there, having read the ledger up to byte `from`. Prints the ledger's lines past `from`, then
 * `== sent JOB`, `== taken` or `== failed STATUS`, then `== upto BYTES`; exits 5 where the lock
 * was not had in time.
 */
export function renderSubmitOnce(root: string, key: string, from: number): string {
  const script = [
    'set -u',
    'cd -- "$1" || exit 3',
    'key=$2 from=$3',
    'ours=$(cat)',
    // A link dropped between sbatch and the ledger's line must not stop it there.
    "trap '' HUP PIPE",
    `exec 9>> submitted.lock && flock -w ${LOCK_WAIT_S} 9 || { echo '== locked'; exit 0; }`,
    `touch -- ${LEDGER} || exit 3`,
    `size=$(stat -c %s -- ${LEDGER})`,
    // Started afresh since (a new, shorter ledger): read it whole.
    '[ "$from" -le "$size" ] || from=0',
    `news=$(tail -c +$((from + 1)) -- ${LEDGER} | head -c $((size - from)))`,
    '[ -z "$news" ] || printf \'%s\\n\' "$news"',
    'if [ -n "$news" ] && printf \'%s\\n\' "$news" | cut -f4- | grep -Fxq -f <(printf \'%s\\n\' "$ours" | cut -f2-); then',
    "  echo '== taken'",
    'else',
    '  err=$(mktemp) || exit 3',
    '  out=$(sbatch --parsable "$key/job.sh" 2> "$err")',
    '  rc=$?',
    '  if [ "$rc" = 0 ] && [[ $out =~ ^([0-9]+) ]]; then',
    '    job=${BASH_REMATCH[1]}',
    `    while IFS= read -r line; do printf '%s\\t%s\\t%s\\n' "$key" "$job" "$line"; done <<< "$ours" >> ${LEDGER}`,
    '    echo "== sent $job"',
    '  else',
    '    { cat -- "$err"; printf \'%s\\n\' "$out"; } >&2',
    '    echo "== failed $rc"',
    '  fi',
    '  rm -f -- "$err"',
    'fi',
    `echo "== upto $(stat -c %s -- ${LEDGER})"`,
  ].join('\n');
  return `bash -c ${shellQuote(script)} campaign-submit ${[root, key, String(from)].map(shellQuote).join(' ')}`;
}

/** The command's output read back: the ledger's new rows, what it did, and how far the ledger was read. */
export function parseSubmitOnce(stdout: string): {
  rows: LedgerRow[];
  outcome: SubmitOnce | undefined;
  upto: number | undefined;
} {
  const rows: LedgerRow[] = [];
  let outcome: SubmitOnce | undefined;
  let upto: number | undefined;
  for (const line of stdout.split('\n')) {
    const control = /^== (sent (\d+)|taken|failed (\d+)|locked|upto (\d+))$/.exec(line);
    if (control) {
      if (control[2] !== undefined) outcome = { sent: control[2] };
      else if (control[1] === 'taken') outcome = { taken: true };
      else if (control[3] !== undefined) outcome = { failed: Number(control[3]) };
      else if (control[1] === 'locked') outcome = { locked: true };
      else upto = Number(control[4]);
      continue;
    }
    const row = ledgerRow(line);
    if (row) rows.push(row);
  }
  return { rows, outcome, upto };
}

/** One line of the ledger; undefined for anything else. */
export function ledgerRow(line: string): LedgerRow | undefined {
  const [key = '', jobId = '', index = '', definition = '', attempt = '', ...task] = line.split('\t');
  const at = /^(\d+)(?:@(\d+))?$/.exec(index);
  if (!/^[0-9a-f]+$/.test(key) || !/^\d+$/.test(jobId) || !at || !/^[1-9]\d*$/.test(attempt)) return undefined;
  return {
    key,
    jobId,
    index: Number(at[1]),
    ...(at[2] === undefined ? {} : { element: Number(at[2]) }),
    definition,
    attempt: Number(attempt),
    task: task.join('\t'),
  };
}
