/**
 * Walltime per stratum from the cost model (DESIGN rule 1): rate × units × trend × margin,
 * placed in the shortest partition whose cap holds the measured cost, trimmed down to that
 * cap when the margin would overflow it, never below the measured cost.
 */
import type { Cell } from '../manifest/grid.js';
import { valueFor } from '../manifest/expand.js';
import type { Cluster, Phase } from '../manifest/schema.js';
import { formatDuration, parseDuration } from '../manifest/units.js';
import { traitsOf, type PartitionCap } from './executor-kinds.js';

export const DEFAULT_MARGIN = 1.2;
/** Used only when a phase has neither a cost model nor a walltime; lint warns about it. */
export const DEFAULT_WALLTIME_SECONDS = 3600;

export interface Budget {
  /** The walltime asked for, in seconds (whole minutes). */
  seconds: number;
  partition?: string;
  source: 'cost' | 'walltime' | 'default';
  /** Rate × units × trend: the time the task is expected to need. */
  costSeconds?: number;
  /** Cost × margin before rounding up to whole minutes: what the budgets of packed tasks add up (plan/pack.ts). */
  exactSeconds?: number;
  /** The arithmetic a person can check. */
  arithmetic: string;
  /** Set when the budget does not fit: the reason. */
  error?: string;
}

export function partitionCaps(cluster: Cluster): PartitionCap[] {
  return traitsOf(cluster).partitionCaps(cluster);
}

export const ceilMinute = (s: number): number => Math.max(60, Math.ceil(s / 60) * 60);
export const num = (x: number): string => String(Number(x.toFixed(3)));

export interface BudgetInput {
  phase: Phase;
  cluster: Cluster;
  cell: Cell;
  /** Units per task, when the stage overrides the cost model's. */
  units?: number;
  /** A fixed walltime for this stage, overriding the cost model. */
  walltime?: string | number;
  /** The manifest's default walltime, for a phase with neither walltime nor cost model. */
  defaultWalltime?: string | number;
  /** A partition forced by the resources. */
  partition?: string;
}

export function budgetFor(input: BudgetInput): Budget {
  const { phase, cell } = input;
  const caps = partitionCaps(input.cluster);
  const fixed = input.walltime ?? phase.walltime;
  if (fixed !== undefined) {
    const seconds = ceilMinute(parseDuration(fixed)!);
    return place(caps, input.partition, {
      seconds,
      source: 'walltime',
      arithmetic: `walltime ${formatDuration(seconds)}`,
    });
  }
  const cost = phase.cost;
  if (!cost && input.defaultWalltime !== undefined) {
    const seconds = ceilMinute(parseDuration(input.defaultWalltime)!);
    return place(caps, input.partition, {
      seconds,
      source: 'walltime',
      arithmetic: `defaults.walltime ${formatDuration(seconds)}`,
    });
  }
  if (!cost) {
    return place(caps, input.partition, {
      seconds: DEFAULT_WALLTIME_SECONDS,
      source: 'default',
      arithmetic: `default ${formatDuration(DEFAULT_WALLTIME_SECONDS)} (no cost model)`,
    });
  }
  const rate = parseDuration(valueFor<string | number>(cost.per_unit, cell) ?? NaN);
  const units = input.units ?? valueFor<number>(cost.units, cell);
  if (rate === undefined || units === undefined) {
    return {
      seconds: DEFAULT_WALLTIME_SECONDS,
      source: 'default',
      arithmetic: 'no rate for this stratum',
      error: `no cost.${rate === undefined ? 'per_unit' : 'units'} entry matches this stratum`,
    };
  }
  const trend = cost.trend ?? 1;
  const margin = cost.margin ?? DEFAULT_MARGIN;
  const costSeconds = rate * units * trend;
  const seconds = ceilMinute(costSeconds * margin);
  const terms = [`${num(rate)}s/${cost.unit}`, `${num(units)} ${cost.unit}s`];
  if (trend !== 1) terms.push(`trend ${num(trend)}`);
  terms.push(`margin ${num(margin)}`);
  const arithmetic = `${terms.join(' × ')} = ${formatDuration(costSeconds * margin)}`;
  return place(caps, input.partition, {
    seconds,
    source: 'cost',
    costSeconds,
    exactSeconds: costSeconds * margin,
    arithmetic,
  });
}

/** The budget in the shortest partition whose cap holds its measured cost (or `forced`), trimmed to that cap. */
export function place(caps: PartitionCap[], forced: string | undefined, budget: Budget): Budget {
  if (caps.length === 0) return budget;
  const floor = budget.costSeconds ?? budget.seconds;
  const candidates = forced === undefined ? caps : caps.filter((partitionCap) => partitionCap.name === forced);
  if (candidates.length === 0)
    return { ...budget, error: `partition "${forced}" is not declared in cluster.partitions` };
  const fit = candidates.find((partitionCap) => floor <= partitionCap.maxSeconds);
  if (!fit) {
    const largest = candidates[candidates.length - 1]!;
    return {
      ...budget,
      error: `needs ${formatDuration(floor)}, above the largest partition cap (${largest.name}, ${formatDuration(largest.maxSeconds)})`,
    };
  }
  if (budget.seconds <= fit.maxSeconds) {
    return {
      ...budget,
      partition: fit.name,
      arithmetic: `${budget.arithmetic} → ${fit.name} (cap ${formatDuration(fit.maxSeconds)})`,
    };
  }
  return {
    ...budget,
    seconds: fit.maxSeconds,
    partition: fit.name,
    arithmetic: `${budget.arithmetic} → trimmed to ${fit.name}'s cap ${formatDuration(fit.maxSeconds)} (still ≥ cost ${formatDuration(floor)})`,
  };
}

/**
 * The walltime of a continuation: the cost model's budget for the units still to do, placed in
 * the partitions like any other. Without progress to go by, or for a phase whose walltime is
 * fixed, the budget is the plan's.
 */
export function remainingBudget(input: BudgetInput, done: number | undefined): Budget {
  const full = budgetFor(input);
  const cost = input.phase.cost;
  const total = input.units ?? (cost ? valueFor<number>(cost.units, input.cell) : undefined);
  if (done === undefined || done <= 0 || total === undefined || full.source !== 'cost') return full;
  const left = Math.max(1, total - done);
  const rest = budgetFor({ ...input, units: left });
  return { ...rest, arithmetic: `${num(left)} of ${num(total)} ${cost!.unit}s left: ${rest.arithmetic}` };
}

/**
 * The walltime of a retry after a timeout, without a checkpoint: the last one times `factor`,
 * up to the cap of the largest partition it may go to (or the forced one).
 */
export function grownBudget(cluster: Cluster, lastSeconds: number, factor: number, forced: string | undefined): Budget {
  const caps = partitionCaps(cluster).filter((partitionCap) => forced === undefined || partitionCap.name === forced);
  const cap = caps.at(-1)?.maxSeconds ?? Infinity;
  const seconds = Math.max(lastSeconds, Math.min(ceilMinute(lastSeconds * factor), cap));
  const capped = seconds === cap ? ` (the cap of ${caps.at(-1)!.name})` : '';
  const fit = caps.find((partitionCap) => seconds <= partitionCap.maxSeconds);
  return {
    seconds,
    source: 'walltime',
    ...(fit ? { partition: fit.name } : {}),
    arithmetic: `${formatDuration(lastSeconds)} × time_factor ${num(factor)} = ${formatDuration(seconds)}${capped}`,
  };
}
