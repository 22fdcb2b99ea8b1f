/**
 * Whether the cluster would accept each array as campaign would send it: `sbatch --test-only`
 * of its first task, every array in one command. Slurm checks the account, QOS, partition,
 * reservation, features and resources against its configuration and the user's associations
 * without queueing anything, so a refusal is found before any array is sent.
 */
import { shellQuote } from '../../render/shell.js';

export interface TestedArray {
  /** The array's id, as the plan names it. */
  array: string;
  phase: string;
  script: string;
}

export interface Refusal {
  array: string;
  phase: string;
  /** Slurm's own words. */
  error: string;
  /** The manifest option the refusal is about, where Slurm's words say. */
  option?: string;
  fix: string;
}

const MARK = '== campaign test-only';
const STATUS_LINE = new RegExp(`^${MARK} (\\d+) (\\d+)$`);

/** One bash command: each script through `sbatch --test-only` on its standard input, its status after. */
export function renderTestOnly(arrays: readonly TestedArray[]): string {
  return arrays
    .map((a, i) => {
      const b64 = Buffer.from(a.script, 'utf8').toString('base64');
      return `printf '%s' ${shellQuote(b64)} | base64 -d | sbatch --test-only --array=0 2>&1; printf '\\n${MARK} %s %s\\n' ${i} "$?"`;
    })
    .join('\n');
}

/** Which option Slurm's refusal is about, and what to do, by the words slurmctld uses. */
const REFUSALS: readonly { words: RegExp; option: string; fix: string }[] = [
  {
    words: /qos/i,
    option: 'resources.qos',
    fix: 'ask for a QOS your account may use: `sacctmgr show assoc user=$USER format=account,partition,qos`',
  },
  {
    words: /account/i,
    option: 'resources.account (or cluster.account)',
    fix: 'name an account you belong to: `sacctmgr show assoc user=$USER format=account`',
  },
  {
    words: /feature/i,
    option: 'resources.constraint',
    fix: 'ask for features the nodes have: `sinfo -o "%P %f"`',
  },
  {
    words: /reservation/i,
    option: 'resources.reservation',
    fix: 'name a reservation that is active and open to you: `scontrol show reservation`',
  },
  {
    words: /partition/i,
    option: 'resources.partition (or cluster.partitions)',
    fix: 'name a partition you may use: `sinfo -s`',
  },
  {
    words: /gres|generic resource/i,
    option: 'resources.gpus / resources.gpu_type',
    fix: 'ask for a GPU type and count the nodes have: `sinfo -o "%P %G"`',
  },
  {
    words: /node configuration is not available|memory|cpu count|more processors/i,
    option: 'resources (gpus, gpu_type, cpus, mem)',
    fix: 'ask for no more than one node of the partition has: `sinfo -o "%P %c %m %G %f"`',
  },
  {
    words: /time limit/i,
    option: 'the walltime',
    fix: "fit the walltime into the partition's MaxTime: `scontrol show partition`",
  },
];

/** The refusals in the command's output; an array whose status line is missing counts as refused. */
export function parseTestOnly(arrays: readonly TestedArray[], output: string): Refusal[] {
  const refusals: Refusal[] = [];
  const seen = new Set<number>();
  let text: string[] = [];
  for (const line of output.split('\n')) {
    const m = STATUS_LINE.exec(line);
    if (!m) {
      if (line.trim() !== '') text.push(line.trim());
      continue;
    }
    const a = arrays[Number(m[1])];
    if (a) {
      seen.add(Number(m[1]));
      if (m[2] !== '0') refusals.push(refusal(a, text.join(' ').replace(/^sbatch: error: /i, '')));
    }
    text = [];
  }
  arrays.forEach((a, i) => {
    if (!seen.has(i)) refusals.push(refusal(a, 'sbatch --test-only gave no answer'));
  });
  return refusals;
}

function refusal(a: TestedArray, error: string): Refusal {
  const known = REFUSALS.find((r) => r.words.test(error));
  return {
    array: a.array,
    phase: a.phase,
    error: error || 'sbatch --test-only refused it without a reason',
    ...(known ? { option: known.option } : {}),
    fix: known?.fix ?? 'run the script through `sbatch --test-only` on the login node to see what Slurm refuses',
  };
}
