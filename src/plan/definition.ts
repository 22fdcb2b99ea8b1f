/**
 * What counts as the same task (DESIGN rule 11). A task's definition is everything that decides
 * what it computes; its digest is recorded with every attempt, and a result made under another
 * digest is not this task's result.
 *
 * In the definition, each for its reason:
 * - `command`: the phase's command at this stage (smoke `args` appended), as the shell receives
 *   it: template variables become quoted references to the task's environment, so `${ lr }` and
 *   `${lr}` are the same command, and leading or trailing blank space is dropped.
 * - `values`: the task's grid values, as its environment passes them (strings: `1` and `"1"` reach
 *   the task alike), with its tag, phase, stage and campaign.
 * - `units`: the units the task is told to do (`${units}`, and the record count its output must
 *   hold); for a smoke task, the smoke override.
 * - `setup`: the campaign's and the phase's setup, which run in the task's shell, and the
 *   phase's environment (modules, conda or venv: activated in that shell before the setup, it
 *   changes what the setup and command run with). It is appended only when there is one, so a
 *   manifest without an environment keeps the digests it had before environments existed.
 * - `gates`: the imports and the capability check that must pass before the command.
 * - `inputs`: the paths its preconditions name for this cell.
 * - `output`: the path it writes, and `workdir`, where it runs.
 * - `gpus`: how many devices it runs on, which changes what a data-parallel run computes.
 * - `upstream`: the definitions of the tasks (of the phases it depends on) whose outputs its
 *   preconditions name: a result computed from results made anew is made anew too.
 * - `code`: the digest of the repository files under the phase's code paths (plan/code.ts), where
 *   the manifest declares `code`: an edit to a file the phase runs makes its results anew. It is
 *   appended only then, so a manifest without `code` keeps its digests.
 *
 * Out of it, because they change only what a task costs or how it is run (the method's
 * adapt-or-abort line: a shortfall in these is adapted to and recorded, never a new result):
 * walltime and the cost model's rates, trend and margin, partition, memory, CPUs, retries,
 * max_parallel, the executor and its cluster settings, and the smoke checklist (which judges
 * results, and is kept with the verdict instead). The attempt number is out too: each attempt
 * of a definition is the same task tried again.
 */
import * as crypto from 'node:crypto';
import { environmentFor } from '../manifest/environment.js';
import { pathMaker, SMOKE_DIR, stageCommand, type Stage, type TaskSpec } from '../manifest/expand.js';
import type { Manifest, Phase, Scalar } from '../manifest/schema.js';
import { toShell } from '../manifest/template.js';

/** Changed whenever what the definition holds changes, so that no two meanings share a digest. */
const DEFINITION_VERSION = 1;

export const DEFINITION_PARTS = [
  'command',
  'values',
  'units',
  'setup',
  'gates',
  'inputs',
  'output',
  'workdir',
  'gpus',
  'upstream',
  'code',
] as const;
export type DefinitionPart = (typeof DEFINITION_PARTS)[number];

/**
 * What a scheduler can grant less of than a task asked for, each with the part of the
 * definition a shortfall in it changes, or null where it changes only what the task costs (the
 * adapt-or-abort line, DESIGN rule 9). A shortfall in a part of the definition ends the attempt
 * (`shortfall`, judge/shortfall.ts) and its output is never the task's result; one in cost is
 * adapted to and recorded beside the result.
 */
export const GRANT_PARTS = { time: null, partition: null, gpus: 'gpus' } as const satisfies Record<
  string,
  DefinitionPart | null
>;
export type Grant = keyof typeof GRANT_PARTS;

/**
 * A phase stage's definition as its templates give it, before any cell fills them: its id
 * names it in the state, and its part hashes say which part of a changed definition changed.
 */
export interface StageDefinition {
  id: string;
  /** `code` only where the manifest declares code. */
  parts: Partial<Record<DefinitionPart, string>>;
}

/**
 * The first `length` hex digits of the text's SHA-256. The slice keeps the 64 digits alive
 * behind it (8 MB at 100,000 tasks, with no rise in peak memory measured): writing out only the
 * bytes needed, from a Buffer per digest, cost 0.15 s more at 100,000 tasks.
 */
const hash = (text: string, length: number): string => sha256(text).slice(0, length);

/**
 * The text's SHA-256 in hex, in one call where Node has one (20.12 and later): a Hash object
 * per task cost half of the hashing at 100,000 tasks.
 */
const sha256: (text: string) => string =
  typeof crypto.hash === 'function'
    ? (text) => crypto.hash('sha256', text)
    : (text) => crypto.createHash('sha256').update(text).digest('hex');

const script = (text: string | undefined): string | null => (text === undefined ? null : toShell(text).trim());

/** The setup part: both setups, then the environment where the phase has one. */
function setupPart(manifest: Manifest, phase: Phase): unknown[] {
  const environment = environmentFor(manifest, phase);
  return [script(manifest.setup), script(phase.setup), ...(environment ? [environment] : [])];
}

/** The GPU field a phase's tasks take their count from. */
function gpusField(manifest: Manifest, phase: Phase): unknown {
  return phase.resources?.gpus ?? manifest.defaults?.resources?.gpus ?? null;
}

/** What every task of a phase's stage shares: computed once per stage. */
function stageShared(manifest: Manifest, phase: Phase, stage: Stage, code: string | undefined): string {
  return JSON.stringify([
    DEFINITION_VERSION,
    manifest.campaign,
    script(stageCommand(phase, stage)),
    setupPart(manifest, phase),
    [manifest.gates?.imports ?? [], script(manifest.gates?.capability)],
    manifest.workdir,
    ...(code === undefined ? [] : [code]),
  ]);
}

/**
 * The digests of a phase's tasks (full and smoke alike), in their order: one hash per task,
 * over its stage's shared text and its own parts. `gpus` is the count the plan gives a task.
 * Made for 100,000 tasks at a time: the templates are compiled, the axes sorted and each value
 * quoted once, and each task's text is written as JSON.stringify would write its parts, without
 * the arrays it would take them from (the text hashed is the same to the byte: recorded
 * definitions must not change).
 */
export function taskDefinitions(
  manifest: Manifest,
  phase: Phase,
  tasks: readonly TaskSpec[],
  gpus: (task: TaskSpec) => number,
  /** Output path → the definition of the task that writes it, for the phases planned before this one. */
  produced: () => ReadonlyMap<string, string>,
  /** The phase's code digest (plan/code.ts), where the manifest declares code. */
  code?: string,
): string[] {
  const axes = Object.keys(tasks[0]?.values ?? {}).sort();
  /** Per stage: the shared text and the axes, then the first parts of the task's own. */
  const heads = new Map<Stage, { shared: string; own: string }>();
  const quoted = axes.map(() => new Map<Scalar | undefined, string>());
  const preconditions = (phase.preconditions ?? []).map((p) => pathMaker(manifest, phase, p.exists));
  const outputs = preconditions.length > 0 ? produced() : undefined;
  /** A number as JSON writes it, written once per value (units and GPU counts repeat). */
  const numbers = new Map<number, string>();
  const number = (n: number): string => {
    let json = numbers.get(n);
    if (json === undefined) numbers.set(n, (json = JSON.stringify(n)));
    return json;
  };
  const text: string[] = [];
  const digests = new Array<string>(tasks.length);
  for (let i = 0; i < tasks.length; i++) {
    const t = tasks[i]!;
    let head = heads.get(t.stage);
    if (head === undefined) {
      heads.set(
        t.stage,
        (head = {
          shared: `${stageShared(manifest, phase, t.stage, code)}\u0000${axes.join(',')}\u0000`,
          own: `\u0000[${JSON.stringify(t.phase)},${JSON.stringify(t.stage)},`,
        }),
      );
    }
    // The text is gathered in pieces and joined once: joined a piece at a time, it left a dozen
    // strings per task behind it. The pieces are written over the last task's: an array emptied
    // gives its storage back, and pushing into it made that anew (twice) for every task.
    let n = 0;
    text[n++] = head.shared;
    // The values as the environment passes them (strings), in the axes' sorted order, each after
    // its comma but the first.
    for (let k = 0; k < axes.length; k++) {
      const value = t.values[axes[k]!];
      let quotedValue = quoted[k]!.get(value);
      if (quotedValue === undefined)
        quoted[k]!.set(value, (quotedValue = (k > 0 ? ',' : '') + JSON.stringify(String(value))));
      text[n++] = quotedValue;
    }
    let inputs = '[]';
    let upstream = '[]';
    if (outputs !== undefined) {
      const paths = preconditions.map((render) => render(t.values, t.tag));
      inputs = JSON.stringify(paths);
      upstream = JSON.stringify(paths.map((p) => outputs.get(p) ?? null));
    }
    text[n++] = head.own;
    text[n++] = JSON.stringify(t.tag);
    text[n++] = ',';
    text[n++] = t.units === undefined ? 'null' : number(t.units);
    text[n++] = ',';
    text[n++] = inputs;
    text[n++] = ',';
    text[n++] = t.output === undefined ? 'null' : JSON.stringify(t.output);
    text[n++] = ',';
    text[n++] = number(gpus(t));
    text[n++] = ',';
    text[n++] = upstream;
    text[n++] = ']';
    if (text.length !== n) text.length = n;
    digests[i] = hash(text.join(''), 16);
  }
  return digests;
}

/**
 * A phase stage's definition at the level of its templates (see StageDefinition); `reads` are
 * the full-stage definition ids of the phases it depends on.
 */
export function stageDefinition(
  manifest: Manifest,
  phase: Phase,
  stage: Stage,
  reads: readonly string[],
  code?: string,
): StageDefinition {
  const units = stage === 'smoke' ? (phase.smoke?.overrides?.units ?? phase.cost?.units) : phase.cost?.units;
  const output = phase.output === undefined ? null : stage === 'smoke' ? `${SMOKE_DIR}/${phase.output}` : phase.output;
  const raw: Record<DefinitionPart, unknown> = {
    code: code ?? null,
    command: script(stageCommand(phase, stage)),
    values: [manifest.campaign, phase.name, stage],
    units: units ?? null,
    setup: setupPart(manifest, phase),
    gates: [manifest.gates?.imports ?? [], script(manifest.gates?.capability)],
    inputs: (phase.preconditions ?? []).map((p) => p.exists),
    output,
    workdir: manifest.workdir,
    gpus: gpusField(manifest, phase),
    upstream: reads,
  };
  const present = DEFINITION_PARTS.filter((p) => p !== 'code' || code !== undefined);
  const parts: Partial<Record<DefinitionPart, string>> = Object.fromEntries(
    present.map((p) => [p, hash(JSON.stringify([DEFINITION_VERSION, raw[p]]), 8)]),
  );
  return { id: hash(present.map((p) => parts[p]).join(','), 12), parts };
}

/** Each part as a run names it when it changed. */
const PART_NAMES: Record<DefinitionPart, string> = {
  command: 'command',
  values: 'grid values',
  units: 'units',
  setup: 'setup',
  gates: 'gates',
  inputs: 'preconditions',
  output: 'output path',
  workdir: 'workdir',
  gpus: 'GPUs',
  upstream: 'upstream results',
  code: 'code',
};

/** The names of the parts that differ between two stage definitions, in the definition's order. */
export function changedParts(
  before: Readonly<Record<string, string>> | undefined,
  now: Readonly<Partial<Record<DefinitionPart, string>>>,
): string[] {
  if (before === undefined) return ['its definition (not recorded)'];
  const changed = DEFINITION_PARTS.filter((p) => before[p] !== now[p]).map((p) => PART_NAMES[p]);
  return changed.length > 0 ? changed : ['its definition'];
}

/** One digest over the definitions of a stage's tasks: what a gate verdict was given for. */
export function definitionsDigest(definitions: readonly string[]): string {
  return hash(definitions.join(','), 16);
}
