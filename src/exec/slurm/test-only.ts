/**
 * Whether the cluster would accept each array as campaign would send it: `sbatch --test-only`
 * of its script with the indices of the largest array like it, every array in one command.
 * Slurm checks the account, QOS, partition, reservation, features, resources and the array's
 * size (MaxArraySize) against its configuration and the user's associations without queueing
 * anything, so a refusal is found before any array is sent.
 */
import { shellQuote } from '../../render/shell.js';

export interface TestedArray {
  /** The array's id, as the plan names it. */
  array: string;
  phase: string;
  script: string;
  /** The most tasks an array like it holds: tested as indices 0 to size - 1. */
  size: number;
  /**
   * Fewer tasks to test where the limit on jobs queued leaves less room than `size` (the
   * campaign never sends more at once): the top indices, so that MaxArraySize is still tried.
   */
  count?: number;
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
      return `printf '%s' ${shellQuote(b64)} | base64 -d | sbatch --test-only ${testedIndices(a)} 2>&1; printf '\\n${MARK} %s %s\\n' ${i} "$?"`;
    })
    .join('\n');
}

/** The `--array` option of an array's test: its indices (the top `count` of them), so that Slurm checks its size. */
export function testedIndices(a: TestedArray): string {
  const from = a.size - Math.min(a.count ?? a.size, a.size);
  return `--array=${a.size - 1 > from ? `${from}-${a.size - 1}` : a.size - 1}`;
}

/** The option a refusal names when an array is larger than the cluster's MaxArraySize. */
export const ARRAY_SIZE_OPTION = 'cluster.max_array_size';

/** The option a refusal names when the user's queue is full (MaxSubmitJobs): the campaign waits for room. */
export const QUEUE_LIMIT_OPTION = 'cluster.max_jobs';

/** Which option Slurm's refusal is about, and what to do, by the words slurmctld uses. */
const REFUSALS: readonly { words: RegExp; option: string; fix: string }[] = [
  {
    // Before the QOS: the refusal's words name the "accounting/QOS policy".
    words: /SubmitJob/i,
    option: QUEUE_LIMIT_OPTION,
    fix: 'wait for your jobs in the queue to end, or declare cluster.max_jobs within the limit: `sacctmgr show assoc user=$USER format=account,maxsubmit`',
  },
  {
    words: /job array/i,
    option: ARRAY_SIZE_OPTION,
    fix: "keep max_array_size within the cluster's MaxArraySize: `scontrol show config | grep MaxArraySize`",
  },
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
  const answers: ({ code: number; output: string } | undefined)[] = arrays.map(() => undefined);
  let text: string[] = [];
  for (const line of output.split('\n')) {
    const m = STATUS_LINE.exec(line);
    if (!m) {
      text.push(line);
      continue;
    }
    if (arrays[Number(m[1])]) answers[Number(m[1])] = { code: Number(m[2]), output: text.join('\n') };
    text = [];
  }
  return testOnlyRefusals(arrays, answers);
}

/** The refusals among the answers of each array's `sbatch --test-only` (none: it gave no answer). */
export function testOnlyRefusals(
  arrays: readonly TestedArray[],
  answers: readonly ({ code: number; output: string } | undefined)[],
): Refusal[] {
  return arrays.flatMap((a, i) => {
    const answer = answers[i];
    if (answer === undefined) return [refusal(a, 'sbatch --test-only gave no answer')];
    if (answer.code === 0) return [];
    const words = answer.output
      .split('\n')
      .map((l) => l.trim())
      .filter((l) => l !== '')
      .join(' ');
    return [refusal(a, words.replace(/^sbatch: error: /i, ''))];
  });
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
