/**
 * Reading Slurm's own records: `sacct` and `squeue` output in the formats this executor asks
 * for, turned into one record per array task, each classified (DESIGN.md's executor table).
 * Pure: text in, records out.
 */
import { formatDuration, parseDuration } from '../../manifest/units.js';
import type { FailureClass } from '../../state/state.js';
import type { Shortfall } from '../../judge/shortfall.js';

export interface JobRecord {
  /** `<array job id>_<index>`: the handle of one attempt. */
  handle: string;
  name: string;
  state: string;
  exitCode?: number;
  /** Epoch seconds (sacct run with SLURM_TIME_FORMAT=%s). */
  start?: number;
  end?: number;
  node?: string;
  reason?: string;
  /** The time limit it ran under, in seconds (undefined: unlimited or not known). */
  timelimit?: number;
  partition?: string;
  /** GPUs asked for and allocated (`gres/gpu` in ReqTRES and AllocTRES). */
  reqGpus?: number;
  allocGpus?: number;
  /** Seen only in the queue: accounting has not recorded it (yet). */
  queueOnly?: boolean;
}

/** The `sacct` fields asked for, in order (`-P`, so `|`-separated, nothing truncated). */
export const SACCT_FIELDS =
  'JobID,JobName,State,ExitCode,Start,End,NodeList,Reason,Timelimit,Partition,ReqTRES,AllocTRES';
/**
 * The `squeue` format asked for (`-r`: one line per array element). %S, the start time, is the
 * queue's only word on when a task began when accounting is down; %e, of an ended task, when it
 * ended (of a running one, when its limit runs out); %l and %P, the limit and partition it ran
 * under, so that a task judged by the queue still shows where it was given less. `@` separates:
 * a plain word to every shell and to an automation node's wrapper, and in no field.
 */
export const SQUEUE_FORMAT = '%i@%j@%T@%r@%N@%S@%e@%l@%P';

const epoch = (s: string | undefined): number | undefined => {
  const n = Number(s);
  return s && /^\d+$/.test(s) && n > 0 ? n : undefined;
};

/** `123_4` → one handle; `123_[0-3,7%2]` → one per index; anything else (not an array task) → none. */
export function expandJobId(id: string): string[] {
  const m = /^(\d+)_(\d+)$/.exec(id);
  if (m) return [`${m[1]}_${m[2]}`];
  const r = /^(\d+)_\[([^\]]+)\]$/.exec(id);
  if (!r) return [];
  const out: string[] = [];
  for (const part of r[2]!.replace(/%\d+$/, '').split(',')) {
    const [a, b] = part.split('-').map(Number);
    if (a === undefined || !Number.isInteger(a)) continue;
    for (let i = a; i <= (b ?? a); i++) out.push(`${r[1]}_${i}`);
  }
  return out;
}

export function parseSacct(text: string, namePrefix: string): JobRecord[] {
  const out: JobRecord[] = [];
  for (const line of text.split('\n')) {
    const [id, name, state, exit, start, end, node, reason, limit, partition, reqTres, allocTres] = line.split('|');
    if (!id || name === undefined || !name.startsWith(namePrefix)) continue;
    const [code, signal] = (exit ?? '').split(':').map(Number);
    const timelimit = limitSeconds(limit);
    const reqGpus = tresGpus(reqTres);
    const allocGpus = tresGpus(allocTres);
    for (const handle of expandJobId(id)) {
      out.push({
        handle,
        name,
        state: (state ?? '').split(' ')[0]!,
        ...(Number.isInteger(code) ? { exitCode: signal ? 128 + signal! : code! } : {}),
        ...(epoch(start) ? { start: epoch(start)! } : {}),
        ...(epoch(end) ? { end: epoch(end)! } : {}),
        ...(node && node !== 'None assigned' ? { node } : {}),
        ...(reason && reason !== 'None' ? { reason } : {}),
        ...(timelimit === undefined ? {} : { timelimit }),
        ...(partition ? { partition } : {}),
        ...(reqGpus === undefined ? {} : { reqGpus }),
        ...(allocGpus === undefined ? {} : { allocGpus }),
      });
    }
  }
  return out;
}

/** A time limit as sacct and squeue print it, in seconds (undefined: unlimited or not known). */
function limitSeconds(limit: string | undefined): number | undefined {
  return limit && limit !== 'UNLIMITED' && limit !== 'Partition_Limit' ? parseDuration(limit) : undefined;
}

/**
 * GPUs in a TRES list (`cpu=1,gres/gpu=2,mem=200M`); undefined when the list is empty (not
 * allocated yet). A cluster that accounts typed GPUs only (`gres/gpu:h100=2`) is summed by type.
 */
export function tresGpus(tres: string | undefined): number | undefined {
  if (!tres) return undefined;
  const all = /(?:^|,)gres\/gpu=(\d+)/.exec(tres);
  if (all) return Number(all[1]);
  return [...tres.matchAll(/(?:^|,)gres\/gpu:[^=,]+=(\d+)/g)].reduce((sum, m) => sum + Number(m[1]), 0);
}

/**
 * DESIGN rule 9: where the scheduler let a task run with less than it asked (a shorter limit,
 * fewer GPUs, another partition), each with what was asked and what was granted; empty when it
 * got what it asked. Which of them abort the attempt is judge/shortfall.ts's to say.
 */
export function shortfalls(r: JobRecord, asked: { seconds: number; partition?: string; gpus?: number }): Shortfall[] {
  const out: Shortfall[] = [];
  if (r.timelimit !== undefined && r.timelimit < asked.seconds)
    out.push({
      of: 'time',
      asked: formatDuration(asked.seconds),
      granted: formatDuration(r.timelimit),
      words: `a time limit of ${formatDuration(r.timelimit)} instead of ${formatDuration(asked.seconds)}`,
    });
  // Against what the campaign asked, not only the job's request as accounting has it: an
  // administrator or a job_submit plugin may have lowered that. A cluster that accounts no
  // GPUs (no gres/gpu in its TRES: none requested, none allocated) says nothing either way.
  const gpus = Math.max(asked.gpus ?? 0, r.reqGpus ?? 0);
  const accounted = r.reqGpus !== undefined && (r.reqGpus > 0 || (r.allocGpus ?? 0) > 0);
  if (accounted && r.allocGpus !== undefined && r.allocGpus < gpus)
    out.push({
      of: 'gpus',
      asked: String(gpus),
      granted: String(r.allocGpus),
      words: `${r.allocGpus} GPU${r.allocGpus === 1 ? '' : 's'} instead of ${gpus}`,
    });
  if (asked.partition !== undefined && r.partition !== undefined && r.partition !== asked.partition)
    out.push({
      of: 'partition',
      asked: asked.partition,
      granted: r.partition,
      words: `partition ${r.partition} instead of ${asked.partition}`,
    });
  return out;
}

export function parseSqueue(text: string, namePrefix: string): JobRecord[] {
  const out: JobRecord[] = [];
  for (const line of text.split('\n')) {
    const [id, name, state = '', reason, node, start, end, limit, partition] = line.split('@');
    if (!id || name === undefined || !name.startsWith(namePrefix)) continue;
    // A pending job's start time is the scheduler's forecast, not a start; an active one's end too.
    const began = state === 'PENDING' ? undefined : epoch(start);
    const ended = ACTIVE_STATES.has(state) ? undefined : epoch(end);
    const timelimit = limitSeconds(limit);
    for (const handle of expandJobId(id)) {
      out.push({
        handle,
        name,
        state,
        ...(node ? { node } : {}),
        ...(reason && reason !== 'None' ? { reason } : {}),
        ...(began ? { start: began } : {}),
        ...(ended ? { end: ended } : {}),
        ...(timelimit === undefined ? {} : { timelimit }),
        ...(partition ? { partition } : {}),
        queueOnly: true,
      });
    }
  }
  return out;
}

/**
 * The records of both, by handle: accounting is the source of truth for ended tasks; the
 * queue fills in what accounting has not recorded yet (its first records lag by seconds).
 */
export function mergeRecords(sacct: readonly JobRecord[], squeue: readonly JobRecord[]): Map<string, JobRecord> {
  const byHandle = new Map<string, JobRecord>();
  for (const r of squeue) byHandle.set(r.handle, r);
  for (const r of sacct) {
    const queued = byHandle.get(r.handle);
    // A pending range in sacct says less than the queue's own line for that index.
    if (queued && r.state === 'PENDING') continue;
    byHandle.set(r.handle, r);
  }
  return byHandle;
}

/**
 * Accounting's records with the queue's word on the ends it has not recorded yet: slurmctld
 * knows an end at once, slurmdbd a second or more later (for a short task, its start too). A
 * record accounting has of the running job keeps its start, limit, partition and GPUs and takes
 * the queue's end state and time; its exit code is left out (a running job's is no exit code),
 * for the task's end marker to give. Where accounting has nothing, the queue's record stands
 * alone, as it does on a cluster without accounting: its limit and partition, not its GPUs.
 */
export function withQueueEnds(
  acct: ReadonlyMap<string, JobRecord>,
  queue: readonly JobRecord[],
): Map<string, JobRecord> {
  const out = new Map(acct);
  for (const q of queue) {
    const a = acct.get(q.handle);
    if (classify(q).active || (a && !a.queueOnly && !classify(a).active)) continue;
    if (!a || a.queueOnly) {
      const alone: JobRecord = { ...q };
      delete alone.queueOnly;
      out.set(q.handle, alone);
      continue;
    }
    const ended: JobRecord = { ...a, state: q.state };
    // The running job's exit code and reason are not its end's.
    delete ended.exitCode;
    delete ended.reason;
    if (q.end !== undefined) ended.end = q.end;
    if (q.reason) ended.reason = q.reason;
    out.set(q.handle, ended);
  }
  return out;
}

export type Classified =
  { active: true; running: boolean } | { active: false; cls: 'completed' | FailureClass; reason?: string };

const ACTIVE_STATES = new Set([
  'PENDING',
  'CONFIGURING',
  'RUNNING',
  'COMPLETING',
  'SUSPENDED',
  'REQUEUED',
  'REQUEUE_FED',
  'REQUEUE_HOLD',
  'RESIZING',
  'SIGNALING',
  'STAGE_OUT',
  'STOPPED',
  'RESV_DEL_HOLD',
  'SPECIAL_EXIT',
]);
const RUNNING_STATES = new Set(['RUNNING', 'COMPLETING', 'CONFIGURING', 'SIGNALING', 'STAGE_OUT']);

export function classify(r: JobRecord): Classified {
  if (ACTIVE_STATES.has(r.state)) return { active: true, running: RUNNING_STATES.has(r.state) };
  const exit = r.exitCode === undefined ? '' : ` (exit ${r.exitCode})`;
  switch (r.state) {
    case 'COMPLETED':
      return { active: false, cls: 'completed' };
    case 'OUT_OF_MEMORY':
      return { active: false, cls: 'out_of_memory', reason: `over its memory limit${exit}` };
    case 'TIMEOUT':
      return { active: false, cls: 'timeout', reason: 'reached its walltime' };
    case 'NODE_FAIL':
    case 'BOOT_FAIL':
      return { active: false, cls: 'node_fail', reason: `${r.state}${r.node ? ` on ${r.node}` : ''}` };
    case 'PREEMPTED':
      // Its jobs are --no-requeue: Slurm ends a preempted one for good rather than queueing it again.
      return {
        active: false,
        cls: 'preempted',
        reason: `preempted by a job of higher priority${r.node ? ` on ${r.node}` : ''}`,
      };
    case 'CANCELLED':
      return { active: false, cls: 'cancelled', reason: 'cancelled' };
    case 'DEADLINE':
      return { active: false, cls: 'cancelled', reason: 'passed its deadline' };
    default:
      return { active: false, cls: 'failed', reason: `${r.state}${exit}` };
  }
}

const REASONS: Record<string, string> = {
  Resources: 'waiting for resources to free up',
  Priority: 'waiting behind jobs of higher priority',
  Dependency: 'waiting for a job it depends on',
  DependencyNeverSatisfied: 'its dependency can never be satisfied',
  JobArrayTaskLimit: "held back by the array's limit on tasks running at once",
  PartitionTimeLimit: 'asks for more time than the partition allows',
  PartitionNodeLimit: 'asks for more nodes than the partition allows',
  PartitionDown: 'its partition is down',
  ReqNodeNotAvail: 'the nodes it may use are not available',
  BeginTime: 'not allowed to start yet',
  InvalidAccount: 'the account is not valid',
  InvalidQOS: 'the QOS is not valid',
  QOSMaxJobsPerUserLimit: "at the QOS's limit of jobs per user",
  AssocGrpGRES: "at the account's limit of GPUs",
  AssocMaxJobsLimit: "at the account's limit of jobs",
  launch_failed_requeued_held: 'its launch failed and Slurm holds it',
};

/**
 * Pending reasons Slurm keeps a job waiting with for ever: nothing the campaign waits for will
 * change them (a limit per job, a partition's cap, an invalid account or QOS), only a person.
 */
export function neverStarts(reason: string | undefined): boolean {
  if (!reason) return false;
  return (
    /PerJob/.test(reason) ||
    [
      'PartitionTimeLimit',
      'PartitionNodeLimit',
      'InvalidAccount',
      'InvalidQOS',
      'BadConstraints',
      'DependencyNeverSatisfied',
    ].includes(reason)
  );
}

/** A pending reason in plain words. */
export function explainReason(reason: string | undefined): string | undefined {
  if (!reason) return undefined;
  return REASONS[reason] ?? `pending: ${reason}`;
}
