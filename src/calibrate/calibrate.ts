/**
 * Calibration (DESIGN rule 1 closed into a loop): what finished tasks took per unit, per
 * stratum, against what the manifest declared, and the walltime the planner would choose from
 * the measured rate. Pure: the adapters hand over attempts with their log or output text.
 */
import { valueFor, type TaskSpec } from '../manifest/expand.js';
import { matchesSelector } from '../manifest/grid.js';
import type { Cost, Manifest, Phase } from '../manifest/schema.js';
import { parseDuration } from '../manifest/units.js';
import { resourcesFor, type Plan } from '../plan/plan.js';
import { budgetFor, type Budget } from '../plan/walltime.js';
import type { Attempt } from '../state/state.js';
import { taskProgress, type TaskProgress } from './progress.js';

/** A measured rate further than this from the declared one is flagged. */
export const RATE_TOLERANCE = 0.1;
/** A within-run trend below this is noise, not a rise. */
const TREND_NOISE = 1.05;

/** One finished attempt, as the adapters found it. */
export interface Sample {
  task: TaskSpec;
  attempt: Attempt;
  /** The log's text, when the phase's progress is read from its log. */
  log?: string;
  /** The output's text, when the phase's progress counts records. */
  output?: string;
}

/** What one attempt measured. */
export interface TaskMeasure {
  task: string;
  stage: TaskSpec['stage'];
  /** Seconds from start to end, by the scheduler's clock. */
  elapsed: number;
  units: number;
  unitsFrom: 'log' | 'records' | 'plan';
  /** Seconds per unit: between the first and last timestamped progress line, else elapsed / units. */
  rate: number;
  /** Per-unit cost of the run's second half over its first half (needs four timestamped lines). */
  trend?: number;
  /** Per-unit cost of the run's first half: the rate a trend multiplies. */
  earlyRate?: number;
  /** The walltime the attempt ran under, in seconds. */
  budget: number;
}

export interface Spread {
  median: number;
  min: number;
  max: number;
  /** Coefficient of variation (standard deviation over mean). */
  cv: number;
}

export interface StratumCalibration {
  phase: string;
  stratum: string;
  unit: string;
  /** The per_unit key this stratum's declared rate comes from (undefined: one rate for all). */
  key?: string;
  declared?: number;
  measured: Spread;
  /** The per-unit rate proposed for the manifest: the early rate where a trend was measured. */
  proposedRate: number;
  trend?: number;
  proposedTrend: number;
  /** Measured over declared rate. */
  ratio?: number;
  flagged: boolean;
  samples: TaskMeasure[];
  /** The task closest to its walltime: its share of it. */
  headroom: { task: string; elapsed: number; budget: number; share: number };
  /** The budget the planner chooses for a full task of this stratum with the proposed cost. */
  proposed: Budget;
  /** The proposed walltime holds every full task measured here. */
  fits: boolean;
}

export interface PhaseCalibration {
  phase: string;
  unit: string;
  strata: StratumCalibration[];
  /** Attempts that could not be measured, with why (no progress lines, no times). */
  skipped: { task: string; why: string }[];
  /** The cost section with the measured rates, as the manifest would hold it. */
  cost: Cost;
}

export interface Calibration {
  cluster?: string;
  phases: PhaseCalibration[];
}

const round = (x: number, digits = 3): number => Number(x.toPrecision(digits));
/** A rate as the manifest writes durations: "2.05s", "37.2s", "1230s". */
export const formatRate = (seconds: number): string => `${round(seconds)}s`;

function spread(xs: readonly number[]): Spread {
  const sorted = [...xs].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  const median = sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
  const mean = xs.reduce((a, b) => a + b, 0) / xs.length;
  const sd = Math.sqrt(xs.reduce((a, b) => a + (b - mean) ** 2, 0) / xs.length);
  return { median, min: sorted[0]!, max: sorted[sorted.length - 1]!, cv: mean > 0 ? sd / mean : 0 };
}

const median = (xs: readonly number[]): number => spread(xs).median;

/** Seconds per unit between two progress points. */
const slope = (a: { units: number; at: number }, b: { units: number; at: number }): number | undefined =>
  b.units > a.units ? (b.at - a.at) / (b.units - a.units) : undefined;

function fromTimestamps(p: TaskProgress): { rate?: number; trend?: number; earlyRate?: number } {
  const pts = p.points;
  if (pts.length < 2) return {};
  const rate = slope(pts[0]!, pts[pts.length - 1]!);
  if (rate === undefined || pts.length < 4) return rate === undefined ? {} : { rate };
  // The halves share their middle point: units before it are early, after it late.
  const mid = (pts.length - 1) >> 1;
  const early = slope(pts[0]!, pts[mid]!);
  const late = slope(pts[mid]!, pts[pts.length - 1]!);
  if (early === undefined || late === undefined || early <= 0) return { rate };
  return { rate, trend: late / early, earlyRate: early };
}

/** Where each task ran: its array's walltime. */
function budgets(plan: Plan): Map<string, number> {
  const out = new Map<string, number>();
  for (const p of plan.phases) for (const a of p.arrays) for (const id of a.tasks) out.set(id, a.budget.seconds);
  return out;
}

/** The per_unit key a cell's rate comes from (the first selector it matches). */
function rateKey(perUnit: Cost['per_unit'], cell: TaskSpec['values']): string | undefined {
  if (typeof perUnit !== 'object') return undefined;
  return Object.keys(perUnit).find((k) => matchesSelector(cell, k));
}

function measure(phase: Phase, sample: Sample, budget: number | undefined): TaskMeasure | { why: string } {
  const { task, attempt } = sample;
  if (!attempt.startedAt || !attempt.endedAt) return { why: 'no start or end time' };
  if (budget === undefined) return { why: 'not in the current plan' };
  const elapsed = (Date.parse(attempt.endedAt) - Date.parse(attempt.startedAt)) / 1000;
  const declared = phase.cost!.progress;
  let p: TaskProgress | undefined;
  let unitsFrom: TaskMeasure['unitsFrom'] = 'plan';
  if (declared) {
    p = taskProgress(declared, sample);
    unitsFrom = declared.log !== undefined ? 'log' : 'records';
    if (!p) return { why: declared.log !== undefined ? 'no progress line in its log' : 'no records in its output' };
  } else if (attempt.class === 'completed' && task.units !== undefined) {
    p = { units: task.units, points: [] };
  } else return { why: 'ended early and the phase declares no cost.progress to count its units' };
  if (!(p.units > 0)) return { why: 'completed no unit' };
  const ts = fromTimestamps(p);
  if (ts.rate === undefined && !(elapsed > 0)) return { why: 'no measurable run time' };
  return {
    task: task.id,
    stage: task.stage,
    elapsed: Math.max(0, elapsed),
    units: p.units,
    unitsFrom,
    rate: ts.rate ?? elapsed / p.units,
    ...(ts.trend === undefined ? {} : { trend: ts.trend, earlyRate: ts.earlyRate! }),
    budget,
  };
}

/**
 * Per phase with a cost model, per stratum: the measured rate and its spread, the trend, the
 * headroom, and the budget the planner would now choose. Attempts that completed, or ended at
 * their walltime with progress to show, are measured; the others are not evidence of a rate.
 */
export function calibrate(manifest: Manifest, plan: Plan, samples: readonly Sample[]): Calibration {
  const budgetOf = budgets(plan);
  const phases: PhaseCalibration[] = [];
  for (const phase of manifest.phases) {
    const cost = phase.cost;
    if (!cost) continue;
    const skipped: PhaseCalibration['skipped'] = [];
    const byStratum = new Map<string, { first: TaskSpec; measures: TaskMeasure[] }>();
    for (const s of samples) {
      if (s.task.phase !== phase.name) continue;
      if (s.attempt.class !== 'completed' && s.attempt.class !== 'timeout') continue;
      const m = measure(phase, s, s.attempt.walltimeSeconds ?? budgetOf.get(s.task.id));
      if ('why' in m) {
        skipped.push({ task: s.task.id, why: m.why });
        continue;
      }
      const g = byStratum.get(s.task.stratum) ?? { first: s.task, measures: [] };
      g.measures.push(m);
      byStratum.set(s.task.stratum, g);
    }
    const strata = [...byStratum.values()].map(({ first, measures }) => stratum(manifest, phase, first, measures));
    const allStrata = [...new Set(plan.phases.find((p) => p.name === phase.name)?.tasks.map((t) => t.stratum))];
    phases.push({
      phase: phase.name,
      unit: cost.unit,
      strata,
      skipped,
      cost: patchedCost(manifest, phase, allStrata, strata),
    });
  }
  return { ...(manifest.cluster.name === undefined ? {} : { cluster: manifest.cluster.name }), phases };
}

function stratum(manifest: Manifest, phase: Phase, first: TaskSpec, measures: TaskMeasure[]): StratumCalibration {
  const cost = phase.cost!;
  const measured = spread(measures.map((m) => m.rate));
  const trends = measures.filter((m) => m.trend !== undefined);
  const trend = trends.length > 0 ? median(trends.map((m) => m.trend!)) : undefined;
  // A measured rise: the rate is the early one and the trend carries the rise (the planner's model).
  const rising = trend !== undefined && trend >= TREND_NOISE;
  const proposedRate = rising ? median(trends.map((m) => m.earlyRate!)) : measured.median;
  const proposedTrend = trend === undefined ? (cost.trend ?? 1) : rising ? round(trend, 2) : 1;
  const declaredValue = valueFor<string | number>(cost.per_unit, first.values);
  const declared = declaredValue === undefined ? undefined : parseDuration(declaredValue);
  const ratio = declared ? proposedRate / declared : undefined;
  const flagged = ratio === undefined || Math.abs(ratio - 1) > RATE_TOLERANCE;
  const slowest = measures.reduce((a, b) => (b.elapsed / b.budget > a.elapsed / a.budget ? b : a));
  const key = rateKey(cost.per_unit, first.values);
  const full = phase.smoke?.full_run ? first : { ...first, stage: 'full' as const };
  const resources = resourcesFor(manifest, phase, full);
  const proposed = budgetFor({
    phase: { ...phase, walltime: undefined, cost: { ...cost, per_unit: round(proposedRate), trend: proposedTrend } },
    cluster: manifest.cluster,
    cell: first.values,
    ...(resources.partition === undefined ? {} : { partition: resources.partition }),
  });
  // A full task's need: its time scaled to all its units (a task stopped at its walltime did not finish them).
  const fullUnits = valueFor<number>(cost.units, first.values);
  const needs = measures
    .filter((m) => m.stage === 'full')
    .map((m) => (fullUnits === undefined ? m.elapsed : (m.elapsed * fullUnits) / m.units));
  return {
    phase: phase.name,
    stratum: first.stratum,
    unit: cost.unit,
    ...(key === undefined ? {} : { key }),
    ...(declared === undefined ? {} : { declared }),
    measured,
    proposedRate,
    ...(trend === undefined ? {} : { trend }),
    proposedTrend,
    ...(ratio === undefined ? {} : { ratio }),
    flagged,
    samples: measures,
    headroom: {
      task: slowest.task,
      elapsed: slowest.elapsed,
      budget: slowest.budget,
      share: slowest.elapsed / slowest.budget,
    },
    proposed,
    fits: proposed.error === undefined && proposed.seconds >= Math.max(0, ...needs),
  };
}

/**
 * The phase's cost section with measured rates: a per_unit entry per stratum measured (under
 * the key it was read from; strata read from one key give it the slowest of their rates), the
 * trend where runs showed it, and measured_on this cluster. Where one rate served strata that
 * now differ, each stratum gets its own entry and those not measured keep the old rate.
 */
function patchedCost(
  manifest: Manifest,
  phase: Phase,
  allStrata: readonly string[],
  strata: readonly StratumCalibration[],
): Cost {
  const cost = phase.cost!;
  if (strata.length === 0) return cost;
  let perUnit: Cost['per_unit'];
  if (typeof cost.per_unit !== 'object' && allStrata.length === 1 && allStrata[0] === strata[0]!.stratum) {
    perUnit = formatRate(strata[0]!.proposedRate);
  } else {
    const map: Record<string, string | number> =
      typeof cost.per_unit === 'object'
        ? { ...cost.per_unit }
        : Object.fromEntries(allStrata.map((s) => [s, cost.per_unit as string | number]));
    const slowest = new Map<string, number>();
    for (const s of strata) {
      const key = s.key ?? s.stratum;
      slowest.set(key, Math.max(slowest.get(key) ?? 0, s.proposedRate));
    }
    for (const [key, rate] of slowest) map[key] = formatRate(rate);
    perUnit = map;
  }
  const trend = Math.max(...strata.map((s) => s.proposedTrend));
  return {
    ...cost,
    per_unit: perUnit,
    ...(trend === 1 && cost.trend === undefined ? {} : { trend }),
    ...(manifest.cluster.name === undefined ? {} : { measured_on: manifest.cluster.name }),
    ...(phase.config === undefined ? {} : { config: phase.config }),
  };
}
