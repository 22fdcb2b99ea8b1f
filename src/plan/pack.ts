/**
 * Packing: several tasks of one array run in one array element (issue 37), one after another or
 * `parallel` side by side, so that short tasks do not each pay for a job's start, epilog and
 * accounting, and a site's limit on jobs queued holds more of them. An element only ever holds
 * tasks of one array, so of one phase, stage, stratum and resource class: the plan never mixes.
 */
import type { Cluster, Pack } from '../manifest/schema.js';
import { formatDuration, parseDuration } from '../manifest/units.js';
import { ceilMinute, partitionCaps, place, type Budget } from './walltime.js';

/** `cluster.min_job` where the manifest does not say. */
export const DEFAULT_MIN_JOB_SECONDS = 600;

export interface Packing {
  /** Tasks per array element (the last element of an array may hold fewer). */
  tasks: number;
  /** Of them running side by side, sharing the element's CPUs and GPUs (the phase's resources) in equal shares. */
  parallel: number;
  /** Rounds of `parallel` tasks one element runs: ceil(tasks / parallel). */
  waves: number;
  /** The element's walltime: the sum of its waves' budgets, placed in the partitions as a task's is. */
  budget: Budget;
}

export interface PackingInput {
  pack: Pack;
  cluster: Cluster;
  /** One task's budget (the array's). */
  task: Budget;
  /** Tasks in the array: no element holds more. */
  size: number;
  /** A partition forced by the resources. */
  partition?: string;
}

/** One task's budget as packed tasks add it up: before rounding to whole minutes, where the cost model gave it. */
const taskSeconds = (b: Budget): number => b.exactSeconds ?? b.seconds;

/** What `pack` asks for, as numbers: `auto` left to the cost model. */
export function packShape(pack: Pack): { tasks: number | 'auto'; parallel: number } {
  return typeof pack === 'object' ? { tasks: pack.tasks, parallel: pack.parallel } : { tasks: pack, parallel: 1 };
}

export function minJobSeconds(cluster: Cluster): number {
  const declared = cluster.executor === 'slurm' ? cluster.min_job : undefined;
  return declared === undefined ? DEFAULT_MIN_JOB_SECONDS : parseDuration(declared)!;
}

/**
 * Tasks per element for `auto`: enough waves that the element's expected run reaches min_job,
 * but no more than the largest cap (of the forced partition, where one is) holds whole task
 * budgets. Without a cost model there is no expected run to go by: one task per element, with
 * the reason (lint refuses it).
 */
function autoWaves(input: PackingInput): { waves: number; why: string; error?: string } {
  const { task } = input;
  const minJob = minJobSeconds(input.cluster);
  if (task.costSeconds === undefined || task.costSeconds <= 0)
    return {
      waves: 1,
      why: 'auto: no cost model',
      error: 'has no cost model for pack: auto to size it by',
    };
  const wanted = Math.max(1, Math.ceil(minJob / task.costSeconds));
  const caps = partitionCaps(input.cluster).filter(
    (partitionCap) => input.partition === undefined || partitionCap.name === input.partition,
  );
  const cap = caps.at(-1)?.maxSeconds;
  const fit = cap === undefined ? wanted : Math.max(1, Math.floor(cap / taskSeconds(task)));
  const waves = Math.min(wanted, fit);
  const reach = `auto: ${formatDuration(minJob)} min_job / ${formatDuration(task.costSeconds)} cost = ${wanted} waves`;
  return { waves, why: waves < wanted ? `${reach}, cut to ${waves} by the cap ${formatDuration(cap!)}` : reach };
}

export function packingFor(input: PackingInput): Packing {
  const shape = packShape(input.pack);
  const parallel = shape.parallel;
  const auto = shape.tasks === 'auto' ? autoWaves(input) : undefined;
  const asked = auto === undefined ? (shape.tasks as number) : auto.waves * parallel;
  const tasks = Math.max(1, Math.min(asked, input.size));
  const side = Math.min(parallel, tasks);
  const waves = Math.ceil(tasks / side);
  const t = input.task;
  const seconds = ceilMinute(waves * taskSeconds(t));
  const terms = [
    ...(auto ? [auto.why] : []),
    `${tasks} task${tasks === 1 ? '' : 's'}${side > 1 ? ` ${side} at a time` : ''} = ${waves} wave${waves === 1 ? '' : 's'} × ${formatDuration(taskSeconds(t))}`,
  ];
  const budget = place(partitionCaps(input.cluster), input.partition, {
    seconds,
    source: t.source,
    ...(t.costSeconds === undefined ? {} : { costSeconds: waves * t.costSeconds }),
    arithmetic: `${terms.join('; ')} = ${formatDuration(seconds)}`,
  });
  const error = auto?.error ?? t.error ?? budget.error;
  return {
    tasks,
    parallel: side,
    waves,
    budget: { ...budget, ...(error === undefined ? {} : { error }) },
  };
}

/** How many elements an array of `size` tasks packed `tasks` to an element takes. */
export const elementsOf = (size: number, tasks: number): number => Math.ceil(size / tasks);
