/**
 * The site's limit on the jobs one user may have queued and running (Slurm's MaxSubmitJobs:
 * each array task counts as one job), and the room it leaves. Pure: the Slurm executor runs the
 * command and keeps the count; this reads its answers.
 *
 * Where sacctmgr answers, the limit is the smallest of the MaxSubmitJobs of each association the
 * campaign charges (its account, or the user's default account; every partition's row, since a
 * job may go to any) and the MaxSubmitJobsPerUser of each QOS it runs under (its own, or the
 * association's default); `cluster.max_jobs` wins when smaller. Every job of the user in the
 * queue counts, the campaign's and any other, whatever account or QOS it runs under: a count
 * that is too high costs only a later start, one that is too low a refused sbatch.
 */
import type { Plan } from '../../plan/plan.js';

/** The limit, and where it was read, as `campaign check` says it. */
export interface SubmitLimit {
  limit: number;
  from: string;
}

/** The account and QOS one array is charged to; undefined: the user's default. */
export interface Charge {
  account?: string;
  qos?: string;
}

const SECTION = /^== (\w+)$/;

/**
 * One command (a shell's) that prints the user's associations, default account, the QOS
 * limits and the names of the user's jobs in the queue, each under its own heading; a
 * sacctmgr that fails (no accounting, or not allowed) leaves its section empty. The four are
 * asked side by side (each a round trip to slurmdbd or slurmctld, together most of the time
 * before a campaign's first submission) and printed in order.
 */
export const SUBMIT_LIMIT_COMMAND = [
  'user=$(id -un)',
  'exec 3< <(sacctmgr -n -P show assoc user="$user" format=Account,Partition,MaxSubmit,DefaultQOS 2>/dev/null) \\',
  '  4< <(sacctmgr -n -P show user "$user" format=DefaultAccount 2>/dev/null) \\',
  '  5< <(sacctmgr -n -P show qos format=Name,MaxSubmitPU 2>/dev/null) \\',
  '  6< <(squeue -h -r -u "$user" -o \'%j@%T\')',
  "echo '== assoc'",
  'cat <&3',
  "echo '== user'",
  'cat <&4',
  "echo '== qos'",
  'cat <&5',
  "echo '== queue'",
  'cat <&6',
].join('\n');

/** The distinct accounts and QOS the plan's arrays are charged to (the cluster's account where an array names none). */
export function chargesOf(plan: Plan, clusterAccount: string | undefined): Charge[] {
  const seen = new Map<string, Charge>();
  for (const phase of plan.phases)
    for (const array of phase.arrays) {
      const account = array.resources.account ?? clusterAccount;
      const qos = array.resources.qos;
      seen.set(`${account ?? ''}\u0000${qos ?? ''}`, {
        ...(account === undefined ? {} : { account }),
        ...(qos === undefined ? {} : { qos }),
      });
    }
  return [...seen.values()];
}

/** The headed sections of SUBMIT_LIMIT_COMMAND's output, each as its non-empty lines. */
function sections(text: string): Map<string, string[]> {
  const out = new Map<string, string[]>();
  let lines: string[] | undefined;
  for (const line of text.split('\n')) {
    const head = SECTION.exec(line);
    if (head) out.set(head[1]!, (lines = []));
    else if (line.trim() !== '') lines?.push(line.trim());
  }
  return out;
}

const count = (field: string | undefined): number | undefined =>
  field !== undefined && /^\d+$/.test(field) ? Number(field) : undefined;

/**
 * The smallest limit sacctmgr gives for what the campaign charges, with where it is set
 * (undefined where it sets none), and whether sacctmgr listed any association of the user.
 */
export function siteLimit(text: string, charges: readonly Charge[]): { limit?: SubmitLimit; read: boolean } {
  const parts = sections(text);
  const assocs = (parts.get('assoc') ?? []).map((l) => {
    const [account = '', partition = '', maxSubmit, defaultQos = ''] = l.split('|');
    return { account, partition, maxSubmit: count(maxSubmit), defaultQos };
  });
  const defaultAccount = parts.get('user')?.[0]?.split('|')[0];
  const qosLimits = new Map(
    (parts.get('qos') ?? []).map((l) => {
      const [name = '', perUser] = l.split('|');
      return [name, count(perUser)];
    }),
  );
  let best: SubmitLimit | undefined;
  const consider = (limit: number | undefined, from: string): void => {
    if (limit !== undefined && (best === undefined || limit < best.limit)) best = { limit, from };
  };
  for (const charge of charges) {
    const account = charge.account ?? defaultAccount;
    for (const a of assocs.filter((row) => row.account === account)) {
      const where = `account ${a.account}${a.partition ? `, partition ${a.partition}` : ''}`;
      consider(a.maxSubmit, `sacctmgr: MaxSubmitJobs of your association (${where})`);
      // Without a default QOS of its own, an association's jobs run under `normal`.
      const qos = charge.qos ?? (a.defaultQos || 'normal');
      consider(qosLimits.get(qos), `sacctmgr: MaxSubmitJobsPerUser of QOS ${qos}`);
    }
  }
  return { ...(best === undefined ? {} : { limit: best }), read: assocs.length > 0 };
}

/** The declared max_jobs against the site's: the smaller, with where it comes from. */
export function effectiveLimit(site: SubmitLimit | undefined, declared: number | undefined): SubmitLimit | undefined {
  if (declared !== undefined && (site === undefined || declared <= site.limit))
    return { limit: declared, from: 'cluster.max_jobs' };
  return site;
}

/** States in which a job holds a place under the submit limit. */
const HOLDS_A_PLACE = new Set(['PENDING', 'CONFIGURING', 'RUNNING', 'COMPLETING', 'SUSPENDED', 'REQUEUED', 'RESIZING']);

/**
 * The user's jobs and array tasks in the queue, the campaign's (their names start with `prefix`)
 * and the others, from lines whose first fields are `name@state` or, as the executor asks the
 * queue, `id@name@state@…`.
 */
export function queueCount(lines: readonly string[], prefix: string, withId: boolean): { own: number; others: number } {
  const counted = { own: 0, others: 0 };
  for (const line of lines) {
    const fields = line.split('@');
    const [name = '', state = ''] = withId ? fields.slice(1) : fields;
    if (name === '' || !HOLDS_A_PLACE.has(state)) continue;
    if (name.startsWith(prefix)) counted.own++;
    else counted.others++;
  }
  return counted;
}

/** The user's jobs and array tasks in the queue that are not the campaign's (see queueCount). */
export function othersQueued(lines: readonly string[], prefix: string, withId: boolean): number {
  return queueCount(lines, prefix, withId).others;
}

/** The queue's part of SUBMIT_LIMIT_COMMAND's output. */
export function queueLines(text: string): string[] {
  return sections(text).get('queue') ?? [];
}

/**
 * How many more array tasks may be sent under `limit`, with `queued` of the user's in the queue
 * (the campaign's and the others'). When none of the campaign's is there, one submission is
 * always tried: nothing of its own would free room, and the scheduler's refusal says to wait.
 */
export function roomUnder(limit: number, queued: number, ownQueued: number): number {
  return Math.max(ownQueued > 0 ? 0 : 1, limit - queued);
}

/**
 * Whether sbatch refused for a limit on jobs queued (the association's or QOS's MaxSubmitJobs or
 * GrpSubmitJobs): the tasks wait for room, they did not fail.
 */
export function isSubmitLimit(error: string): boolean {
  return /(MaxSubmitJob|GrpSubmitJob|SubmitJobs?Limit)/i.test(error);
}
