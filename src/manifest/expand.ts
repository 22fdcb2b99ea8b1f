/** The tasks of a phase: one per grid cell, with derived tag, id, stratum and output path. */
import { posix } from 'node:path';
import {
  compileGrid,
  matchesPairs,
  matchesSelector,
  parseSelector,
  selectorMaker,
  tagMaker,
  type Cell,
} from './grid.js';
import type { Manifest, Phase, Scalar } from './schema.js';
import { compileTemplate } from './template.js';

export type Stage = 'smoke' | 'full';

/**
 * The stages one job of a generated workflow drives (its `stage` input): a phase's smoke stage,
 * its full stage, or both (decide/scope.ts).
 */
export const JOB_STAGES = ['smoke', 'full', 'all'] as const;

export interface TaskSpec {
  /** `<phase>/<tag>`, or `<phase>/smoke/<tag>` for a smoke task. */
  id: string;
  phase: string;
  stage: Stage;
  /** Index of the cell in the phase's grid: kept product cells (first axis slowest), then included ones. */
  cell: number;
  tag: string;
  values: Cell;
  /** Selector of the stratum, e.g. `N=384`, or `all`. */
  stratum: string;
  /** Path relative to the workdir. */
  output?: string;
  units?: number;
  /** The digest of its definition (plan/definition.ts), set by the plan. */
  definition?: string;
}

/** Smoke outputs live apart from real results so that a smoke file is never taken for one. */
export const SMOKE_DIR = '_smoke';

/** The largest grid a phase may have (its product before exclusion, plus included cells); larger ones are refused before any expansion. */
export const MAX_TASKS_PER_PHASE = 1_000_000;

export function dependsOn(phase: Phase): string[] {
  return phase.depends_on === undefined ? [] : Array.isArray(phase.depends_on) ? phase.depends_on : [phase.depends_on];
}

/** Axes the cost varies along: declared `strata`, else the axes named in per-stratum cost keys. */
export function strataAxes(phase: Phase): string[] {
  if (phase.strata) return phase.strata;
  const axes = new Set<string>();
  for (const field of [phase.cost?.per_unit, phase.cost?.units]) {
    if (field !== undefined && typeof field === 'object') {
      for (const key of Object.keys(field)) for (const part of key.split(',')) axes.add(part.split('=')[0]!.trim());
    }
  }
  return [...axes];
}

/** Values a path template (output, precondition) may use for one cell. */
export function pathValues(
  manifest: Manifest,
  phase: Phase,
  cell: Cell,
  tag: string,
): (name: string) => Scalar | undefined {
  return (name) => {
    if (name in cell) return cell[name];
    if (name === 'tag') return tag;
    if (name === 'phase') return phase.name;
    return name === 'campaign' ? manifest.campaign : undefined;
  };
}

/** The command a phase runs at a stage: smoke `args` are appended to it. */
export function stageCommand(phase: Phase, stage: Stage): string {
  const args = stage === 'smoke' ? phase.smoke?.overrides?.args : undefined;
  return args ? `${phase.command.trimEnd()} ${args}` : phase.command;
}

/** Fills a path template for one cell. */
export function renderPath(manifest: Manifest, phase: Phase, template: string, cell: Cell, tag: string): string {
  return compileTemplate(template)(pathValues(manifest, phase, cell, tag));
}

/** A run of slashes, or a `.` or `..` segment: what posix.normalize would change in a relative path. */
const NOT_NORMAL = /\/\/|(?:^|\/)\.\.?(?:\/|$)/;

/** A relative path normalised, or undefined when it leaves the directory it is relative to. */
export function containedPath(path: string): string | undefined {
  if (path === '' || path.startsWith('/') || path.startsWith('~')) return undefined;
  // Most paths are normal already; normalising each of 100,000 outputs was a fifth of the expansion.
  if (!NOT_NORMAL.test(path)) return path;
  const norm = posix.normalize(path);
  return norm === '..' || norm.startsWith('../') || norm === '.' ? undefined : norm;
}

export function expandPhase(manifest: Manifest, phase: Phase): TaskSpec[] {
  const grid = compileGrid(phase.grid);
  const n = grid.count;
  const output = phase.output === undefined ? undefined : compileTemplate(phase.output);
  const tagOf = tagMaker();
  const stratumOf = selectorMaker(strataAxes(phase));
  const unitsOf = valueMaker<number>(phase.cost?.units);
  // One prefix for every id: `${phase.name}/${tag}` made a copy of it per task.
  const idPrefix = `${phase.name}/`;
  const tasks = new Array<TaskSpec>(n);
  for (let i = 0; i < n; i++) {
    const values = grid.cellAt(i);
    const tag = tagOf(values);
    const units = unitsOf(values);
    const path = output?.(pathValues(manifest, phase, values, tag));
    // The optional fields are set after the others, in their order, with no object spread in.
    const task: TaskSpec = {
      id: idPrefix + tag,
      phase: phase.name,
      stage: 'full',
      cell: i,
      tag,
      values,
      stratum: stratumOf(values),
    };
    if (units !== undefined) task.units = units;
    if (path !== undefined) task.output = containedPath(path) ?? path;
    tasks[i] = task;
  }
  return tasks;
}

/** The smoke version of a task: its own id and an output apart from real results. */
export function asSmoke(task: TaskSpec, units: number | undefined): TaskSpec {
  return {
    ...task,
    id: `${task.phase}/smoke/${task.tag}`,
    stage: 'smoke',
    ...(task.output === undefined ? {} : { output: posix.join(SMOKE_DIR, task.phase, task.output) }),
    ...(units === undefined ? {} : { units }),
  };
}

/** valueFor for the many cells of one phase, with the selectors parsed once. */
export function valueMaker<T extends Scalar>(
  field: NoInfer<T> | Readonly<Record<string, NoInfer<T>>> | undefined,
): (cell: Cell) => T | undefined {
  if (field === undefined || field === null || typeof field !== 'object') return () => field as T | undefined;
  const entries = Object.entries(field as Record<string, T>).map(([key, value]) => ({
    pairs: parseSelector(key),
    value,
  }));
  return (cell) => entries.find((e) => matchesPairs(cell, e.pairs))?.value;
}

/** A value that may be given per stratum: the one value, or the value of the first matching selector. */
export function valueFor<T extends Scalar>(
  field: NoInfer<T> | Readonly<Record<string, NoInfer<T>>> | undefined,
  cell: Cell,
): T | undefined {
  if (field === undefined || field === null || typeof field !== 'object') return field as T | undefined;
  for (const [key, value] of Object.entries(field as Record<string, T>)) if (matchesSelector(cell, key)) return value;
  return undefined;
}
