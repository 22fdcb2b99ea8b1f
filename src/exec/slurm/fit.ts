/**
 * Fitting the plan to the cluster before anything is sent: what the cluster allows (its
 * partitions' caps, its MaxArraySize, the limit on jobs queued), the plan checked against it,
 * and the arrays `sbatch --test-only` tries. Pure: the command strategies (commands.ts) ask the
 * cluster, this reads their answers and judges the plan by them.
 */
import { UserError } from '../../errors.js';
import type { Manifest } from '../../manifest/schema.js';
import { formatDuration, parseDuration } from '../../manifest/units.js';
import { elementsOf } from '../../plan/pack.js';
import type { Plan } from '../../plan/plan.js';
import { submissionFiles } from '../../render/sbatch.js';
import type { SubmitLimit } from './submit-limit.js';
import { QUEUE_LIMIT_OPTION, type Refusal, type TestedArray } from './test-only.js';

/** What the cluster allows, read before anything is submitted. */
export interface ClusterLimits {
  /** Undefined until read: the test of each array (its size) says when it matters. */
  maxArraySize?: number;
  /** Partition name → MaxTime in seconds (undefined: unlimited). */
  partitions: Map<string, number | undefined>;
  /** Where a job that names no partition goes. */
  defaultPartition?: string;
  /** The jobs and array tasks the user may have queued (max_jobs), where one applies. */
  maxJobs?: SubmitLimit;
  /** Whether sacctmgr answered (restricted: not asked). */
  accountingRead: boolean;
  /** The user's jobs and array tasks in the queue that are not the campaign's, when read. */
  othersQueued: number;
}

/** MaxArraySize in `scontrol show config`'s words; Slurm's default, 1001, where it is not said. */
export function arraySizeIn(config: string): number {
  const max = /MaxArraySize\s*=\s*(\d+)/i.exec(config);
  return max ? Number(max[1]) : 1001;
}

/** The partitions' caps and the default partition in `scontrol show partition -o`'s lines. */
export function partitionsIn(text: string): Pick<ClusterLimits, 'partitions' | 'defaultPartition'> {
  const partitions = new Map<string, number | undefined>();
  let defaultPartition: string | undefined;
  for (const line of text.split('\n')) {
    const name = /PartitionName=(\S+)/.exec(line)?.[1];
    const time = /MaxTime=(\S+)/.exec(line)?.[1];
    if (!name) continue;
    partitions.set(name, time === undefined || time === 'UNLIMITED' ? undefined : parseDuration(time));
    if (/\bDefault=YES\b/.test(line)) defaultPartition = name;
  }
  return { partitions, ...(defaultPartition ? { defaultPartition } : {}) };
}

/** Refuses a plan the cluster would refuse, before anything is submitted. */
export function checkPlan(plan: Plan, limits: ClusterLimits): void {
  const problems: string[] = [];
  for (const phase of plan.phases) {
    for (const a of phase.arrays) {
      // A packed array's indices are its elements' (render/sbatch.ts).
      const indices = a.packing ? elementsOf(a.tasks.length, a.packing.tasks) : a.tasks.length;
      if (limits.maxArraySize !== undefined && indices > limits.maxArraySize)
        problems.push(
          `array ${a.id} has ${a.tasks.length} tasks${a.packing ? ` in ${indices} elements` : ''}; the cluster's MaxArraySize is ${limits.maxArraySize}`,
        );
      // A job that names no partition goes to the default one, whose cap holds all the same:
      // over it, the job would wait in the queue for ever (PartitionTimeLimit).
      const p = a.budget.partition ?? limits.defaultPartition;
      if (p === undefined) continue;
      const where = a.budget.partition === undefined ? `${p} (the cluster's default partition)` : p;
      if (!limits.partitions.has(p))
        problems.push(
          `array ${a.id} asks for partition ${p}, which the cluster does not have (it has ${[...limits.partitions.keys()].join(', ')})`,
        );
      const cap = limits.partitions.get(p);
      if (cap !== undefined && a.budget.seconds > cap) {
        problems.push(
          `array ${a.id} asks ${formatDuration(a.budget.seconds)} on ${where}, whose MaxTime is ${formatDuration(cap)}`,
        );
      }
    }
  }
  if (problems.length > 0) {
    throw new UserError(
      problems.map((message) => ({
        message,
        fix: 'match cluster.partitions and max_array_size to `scontrol show partition` and `scontrol show config`',
      })),
    );
  }
}

/**
 * The arrays `sbatch --test-only` tries for `plan`: one per distinct set of what the arrays ask
 * of the cluster, with the indices of the largest of them, and no more than `room` (what the
 * limit on jobs queued leaves, where one applies). `where` names the scripts' job and place.
 */
export function testedArrays(
  plan: Plan,
  manifest: Manifest,
  where: { name: string; dir: string; workdir: string; exclude: boolean },
  room: number | undefined,
): TestedArray[] {
  const arrays = new Map<string, TestedArray>();
  for (const phase of plan.phases) {
    const specs = new Map([...phase.tasks, ...phase.smoke].map((t) => [t.id, t]));
    for (const array of phase.arrays) {
      const task = specs.get(array.tasks[0]!);
      if (!task) continue;
      const { script } = submissionFiles(manifest, [{ task, attempt: 1, array, index: 0 }], where);
      // Arrays that differ only in their tasks ask the same of the cluster: one test each.
      const asks = script
        .split('\n')
        .filter((l) => l.startsWith('#SBATCH') && !/^#SBATCH --(comment|array)=/.test(l))
        .join('\n');
      // Tested with the indices of the largest of them, as many as the limit on jobs queued leaves room for.
      // A packed array's indices are its elements'.
      const size = array.packing ? elementsOf(array.tasks.length, array.packing.tasks) : array.tasks.length;
      if (size > (arrays.get(asks)?.size ?? 0))
        arrays.set(asks, {
          array: array.id,
          phase: phase.name,
          script,
          size,
          ...(room !== undefined && room < size ? { count: room } : {}),
        });
    }
  }
  return [...arrays.values()];
}

/**
 * The refusals less those for a full queue (the limit on jobs queued): no refusal of the plan,
 * which the campaign waits out, though Slurm then tried nothing else of the array: said once.
 */
export function roomAside(refusals: readonly Refusal[], warn: (message: string) => void): Refusal[] {
  const full = refusals.filter((r) => r.option === QUEUE_LIMIT_OPTION);
  if (full.length > 0)
    warn(
      `sbatch --test-only could not try ${full.map((r) => r.array).join(', ')}: your queue is at its limit (${full[0]!.error}); the campaign waits for room`,
    );
  return refusals.filter((r) => r.option !== QUEUE_LIMIT_OPTION);
}

/** The refusals of `sbatch --test-only` as the error that stops a run before anything is sent. */
export function refusedError(refusals: readonly Refusal[]): UserError {
  return new UserError(
    refusals.map((r) => ({
      message: `sbatch --test-only refuses array ${r.array} (phase ${r.phase})${r.option ? `, for ${r.option}` : ''}: ${r.error}`,
      fix: r.fix,
    })),
  );
}
