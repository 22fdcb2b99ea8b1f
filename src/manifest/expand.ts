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
import { compileTemplate, parseTemplate } from './template.js';

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
  return compiledPath(template)(pathValues(manifest, phase, cell, tag));
}

/**
 * Path templates parsed once per text: renderPath is called for every task of a phase (its
 * preconditions, its results' path), and parsing the template again each time was most of it.
 * A manifest has a few templates; the cache is emptied past a bound all the same.
 */
const compiledPaths = new Map<string, ReturnType<typeof compileTemplate>>();
function compiledPath(template: string): ReturnType<typeof compileTemplate> {
  let compiled = compiledPaths.get(template);
  if (compiled === undefined) {
    if (compiledPaths.size >= 64) compiledPaths.clear();
    compiledPaths.set(template, (compiled = compileTemplate(template)));
  }
  return compiled;
}

/**
 * renderPath for the many cells of one phase: the template is parsed once, each path is joined
 * from its pieces in one string (filled a value at a time, a path was a chain of partial
 * strings), and no lookup function is made per cell. The values are looked up as pathValues
 * looks them up.
 */
export function pathMaker(manifest: Manifest, phase: Phase, template: string): (cell: Cell, tag: string) => string {
  const parts = parseTemplate(template);
  // As many pieces as parts, written over the last path's (see tagMaker).
  const pieces = new Array<string>(parts.length).fill('');
  return (cell, tag) => {
    for (let k = 0; k < parts.length; k++) {
      const part = parts[k]!;
      const name = part.name;
      if (name === undefined) {
        pieces[k] = part.literal!;
        continue;
      }
      const value =
        name in cell
          ? cell[name]
          : name === 'tag'
            ? tag
            : name === 'phase'
              ? phase.name
              : name === 'campaign'
                ? manifest.campaign
                : undefined;
      if (value === undefined) throw new Error(`template variable ${name} has no value (lint should have refused it)`);
      pieces[k] = String(value);
    }
    return pieces.join('');
  };
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
  const output = phase.output === undefined ? undefined : pathMaker(manifest, phase, phase.output);
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
    const path = output?.(values, tag);
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
