/**
 * The Plan: a plain value saying, per phase, which tasks run in which array, with what
 * resources and walltime, and which of them form the smoke stage.
 */
import { createHash } from 'node:crypto';
import { traitsOf } from './executor-kinds.js';
import {
  asSmoke,
  dependsOn,
  expandPhase,
  strataAxes,
  valueFor,
  type Stage,
  type TaskSpec,
} from '../manifest/expand.js';
import type { Check, Manifest, Phase } from '../manifest/schema.js';
import { parseSize } from '../manifest/units.js';
import { codeDigest, phaseCodePaths, type CodeFacts } from './code.js';
import { dependenciesFirst } from './dependency-order.js';
import { definitionsDigest, stageDefinition, taskDefinitions, type StageDefinition } from './definition.js';
import { packingFor, type Packing } from './pack.js';
import { needsTwo, selectSmoke } from './smoke.js';
import { budgetFor, type Budget } from './walltime.js';

export interface TaskResources {
  gpus: number;
  cpus: number;
  /** The task's memory: `mem`, or `mem_per_cpu` × cpus (what a retry for memory multiplies). */
  memBytes?: number;
  /** Asked per CPU (sbatch --mem-per-cpu) rather than per task. */
  memPerCpu?: true;
  partition?: string;
  gpuType?: string;
  account?: string;
  qos?: string;
  constraint?: string;
  reservation?: string;
  exclude?: string;
}

export interface ArrayPlan {
  /** `<phase>.<stage>.<stratum>[.<class>][.<chunk>]`, stable across passes. */
  id: string;
  phase: string;
  stage: Stage;
  stratum: string;
  resources: TaskResources;
  budget: Budget;
  /** Task ids, in array-index order. */
  tasks: string[];
  /** Where the phase packs its tasks: how many to an element, and the element's walltime. */
  packing?: Packing;
}

export interface PhasePlan {
  name: string;
  dependsOn: string[];
  strata: string[];
  tasks: TaskSpec[];
  smoke: TaskSpec[];
  checklist: Check[];
  /** Path templates that must exist before the phase's tasks start. */
  preconditions: string[];
  arrays: ArrayPlan[];
  /** Its tasks running at once (the phase's max_parallel), within the campaign's cap. */
  maxParallel?: number;
  /** Each stage's definition at the level of its templates (see plan/definition.ts). */
  definitions: Record<Stage, StageDefinition>;
  /** The code its definition depends on (plan/code.ts), where the manifest declares code. */
  code?: { digest: string; paths: readonly string[] };
  /** Budgeted GPU-hours of the full stage (walltime × GPUs, an upper bound). */
  gpuHours: number;
  smokeGpuHours: number;
}

export interface Plan {
  campaign: string;
  executor: Manifest['cluster']['executor'];
  workdir: string;
  phases: PhasePlan[];
  /** The code snapshot the tasks sent now run, where the manifest declares code. */
  code?: CodeFacts;
}

/** The digest of the definitions a phase's smoke stage holds now: what its gate must have judged. */
export function smokeDefinitions(phase: PhasePlan): string {
  return definitionsDigest(phase.smoke.map((t) => t.definition ?? ''));
}

/** The largest array the executor takes in one submission. */
export function maxArraySize(manifest: Manifest): number {
  return traitsOf(manifest.cluster).maxArraySize(manifest.cluster);
}

export function resourcesFor(manifest: Manifest, phase: Phase, task: TaskSpec): TaskResources {
  const base = manifest.defaults?.resources ?? {};
  const own = phase.resources ?? {};
  const pick = <K extends keyof typeof own>(k: K) => own[k] ?? base[k];
  const cpus = valueFor<number>(pick('cpus'), task.values) ?? 1;
  // A phase's own memory replaces the default's, whichever way either is asked.
  const memField = own.mem !== undefined || own.mem_per_cpu !== undefined ? own : base;
  const mem = valueFor<string | number>(memField.mem, task.values);
  const perCpu = valueFor<string | number>(memField.mem_per_cpu, task.values);
  const partition = pick('partition');
  const words = {
    gpuType: valueFor<string>(pick('gpu_type'), task.values),
    account: valueFor<string>(pick('account'), task.values),
    qos: valueFor<string>(pick('qos'), task.values),
    constraint: valueFor<string>(pick('constraint'), task.values),
    reservation: valueFor<string>(pick('reservation'), task.values),
    exclude: valueFor<string>(pick('exclude'), task.values),
  };
  return {
    gpus: valueFor<number>(pick('gpus'), task.values) ?? traitsOf(manifest.cluster).defaultGpus,
    cpus,
    ...(mem !== undefined ? { memBytes: parseSize(mem)! } : {}),
    ...(mem === undefined && perCpu !== undefined ? { memBytes: parseSize(perCpu)! * cpus, memPerCpu: true } : {}),
    ...(partition === undefined ? {} : { partition }),
    ...Object.fromEntries(Object.entries(words).filter(([, v]) => v !== undefined)),
  };
}

/**
 * resourcesFor for the tasks of one phase, made once for them all where no resource field of the
 * phase or the defaults is given per value (then it is the same for every task): at 100,000
 * tasks, asking each task for its own cost a fifth of the plan.
 */
function phaseResources(manifest: Manifest, phase: Phase): (task: TaskSpec) => TaskResources {
  const fields = [...Object.values(manifest.defaults?.resources ?? {}), ...Object.values(phase.resources ?? {})];
  if (fields.some((v) => typeof v === 'object' && v !== null)) return (t) => resourcesFor(manifest, phase, t);
  let shared: TaskResources | undefined;
  return (t) => (shared ??= resourcesFor(manifest, phase, t));
}

/**
 * The resource class arrays are grouped by, and named by when a stratum has several. What
 * came after the first three fields joins as a short digest, only when set: the array ids of
 * manifests without them stay as they were, and an id never holds a feature expression.
 */
function classKey(r: TaskResources): string {
  const base = `g${r.gpus}c${r.cpus}m${r.memBytes ?? '-'}`;
  const extra = (['memPerCpu', 'gpuType', 'account', 'qos', 'constraint', 'reservation', 'exclude'] as const)
    .filter((k) => r[k] !== undefined)
    .map((k) => `${k}=${String(r[k])}`);
  return extra.length === 0
    ? base
    : `${base}x${createHash('sha256').update(extra.join('\n')).digest('hex').slice(0, 6)}`;
}

export interface PlanOptions {
  /**
   * Whether the plan gives each task its definition (true unless said). Without, `defineTasks`
   * gives them later: for a command that shows none, 100,000 digests are work that can go.
   */
  taskDefinitions?: boolean;
}

/**
 * `clusterMaxArraySize`: the cluster's own limit (`scontrol show config`), when known; arrays
 * are chunked to the smaller of it and the manifest's.
 */
export function planCampaign(
  manifest: Manifest,
  expanded?: ReadonlyMap<string, TaskSpec[]>,
  clusterMaxArraySize = Number.MAX_SAFE_INTEGER,
  /** The snapshot of the manifest's declared code; without it, a manifest that declares code plans no code digest. */
  code?: CodeFacts,
  options: PlanOptions = {},
): Plan {
  const limit = Math.min(maxArraySize(manifest), clusterMaxArraySize);
  /** Phase → its full stage's definition id, for the phases that depend on it. */
  const stages = new Map<string, string>();
  const planned = new Map<string, PhasePlan>();
  const planPhase = (phase: Phase): PhasePlan => {
    const tasks = expanded?.get(phase.name) ?? expandPhase(manifest, phase);
    const overrides = phase.smoke?.overrides;
    const chosen = phase.smoke ? selectSmoke(phase, tasks) : [];
    // A full-run smoke task is the full task itself: its result counts and it is not run again.
    const smoke = phase.smoke?.full_run ? chosen : chosen.map((t) => asSmoke(t, overrides?.units ?? t.units));
    const codePaths = code === undefined ? undefined : phaseCodePaths(manifest, phase);
    const phaseCode =
      codePaths === undefined ? undefined : { digest: codeDigest(code!.files, codePaths), paths: codePaths };
    const reads = dependsOn(phase).map((d) => stages.get(d) ?? '');
    const definitions = {
      smoke: stageDefinition(manifest, phase, 'smoke', reads, phaseCode?.digest),
      full: stageDefinition(manifest, phase, 'full', reads, phaseCode?.digest),
    };
    stages.set(phase.name, definitions.full.id);
    const arrays = [
      ...arraysFor(manifest, phase, 'smoke', smoke, limit),
      ...arraysFor(manifest, phase, 'full', tasks, limit),
    ];
    const hours = (stage: Stage): number =>
      arrays
        .filter((a) => a.stage === stage)
        .reduce((sum, a) => sum + (a.resources.gpus * a.budget.seconds * a.tasks.length) / 3600, 0);
    return {
      name: phase.name,
      dependsOn: dependsOn(phase),
      strata: strataAxes(phase),
      tasks,
      smoke,
      checklist: phase.smoke?.trigger ?? [],
      preconditions: (phase.preconditions ?? []).map((p) => p.exists),
      arrays,
      ...(phase.max_parallel === undefined ? {} : { maxParallel: phase.max_parallel }),
      definitions,
      ...(phaseCode === undefined ? {} : { code: phaseCode }),
      gpuHours: hours('full'),
      smokeGpuHours: hours('smoke'),
    };
  };
  for (const phase of dependenciesFirst(manifest.phases, dependsOn)) planned.set(phase.name, planPhase(phase));
  const phases = manifest.phases.map((p) => planned.get(p.name)!);
  const plan: Plan = {
    campaign: manifest.campaign,
    executor: manifest.cluster.executor,
    workdir: manifest.workdir,
    phases,
    ...(code === undefined ? {} : { code }),
  };
  if (options.taskDefinitions !== false) defineTasks(manifest, plan);
  return plan;
}

/**
 * Gives each task of a plan its definition (plan/definition.ts), set on the specs in place: they
 * were expanded for this plan, and copying 100,000 costs a tenth of a second. The phases are
 * taken dependencies first, since a task's definition holds those of the tasks whose outputs
 * it reads. For a plan made with `taskDefinitions: false`, once.
 */
export function defineTasks(manifest: Manifest, plan: Plan): void {
  const byName = new Map(plan.phases.map((p) => [p.name, p]));
  /**
   * Output path → the definition of the full task that writes it, filled from `unread` only when
   * a phase with preconditions asks: 100,000 outputs that no precondition reads need no map.
   */
  const outputs = new Map<string, string>();
  /** The full tasks of the phases defined since `outputs` was last asked for, in their order. */
  const unread: TaskSpec[][] = [];
  const produced = (): ReadonlyMap<string, string> => {
    for (const tasks of unread.splice(0))
      for (const t of tasks) if (t.output !== undefined) outputs.set(t.output, t.definition!);
    return outputs;
  };
  for (const phase of dependenciesFirst(manifest.phases, dependsOn)) {
    const planned = byName.get(phase.name)!;
    const resources = phaseResources(manifest, phase);
    // The full tasks, then the smoke tasks apart (a full-run smoke task is a full task), each
    // list as it is: one list of both was a copy of every task.
    for (const specs of phase.smoke?.full_run ? [planned.tasks] : [planned.tasks, planned.smoke]) {
      const digests = taskDefinitions(manifest, phase, specs, (t) => resources(t).gpus, produced, planned.code?.digest);
      for (let i = 0; i < specs.length; i++) specs[i]!.definition = digests[i]!;
    }
    unread.push(planned.tasks);
  }
}

/**
 * The most tasks one element of the array may hold: all of them, but where `pack: auto` sizes a
 * smoke stage that checks a collision property, half, so that its tasks run in two elements at
 * once and can collide (a number the manifest writes is kept, and lint judges it).
 */
function packedSize(phase: Phase, stage: Stage, tasks: number): number {
  const auto = phase.pack === 'auto' || (typeof phase.pack === 'object' && phase.pack.tasks === 'auto');
  return stage === 'smoke' && auto && needsTwo(phase) ? Math.ceil(tasks / 2) : tasks;
}

/** One array per stratum and resource class, chunked to the executor's array size limit. */
function arraysFor(
  manifest: Manifest,
  phase: Phase,
  stage: Stage,
  tasks: readonly TaskSpec[],
  limit: number,
): ArrayPlan[] {
  type Group = { first: TaskSpec; resources: TaskResources; ids: string[] };
  /** In the order their first tasks come; found by class, then stratum, with no key made per task. */
  const groups: Group[] = [];
  const byClass = new Map<string, Map<string, Group>>();
  const resourcesOf = phaseResources(manifest, phase);
  // Resources shared by many tasks are one object: their class is named once.
  const classes = new Map<TaskResources, string>();
  for (const t of tasks) {
    const resources = resourcesOf(t);
    let resourceClass = classes.get(resources);
    if (resourceClass === undefined) classes.set(resources, (resourceClass = classKey(resources)));
    let byStratum = byClass.get(resourceClass);
    if (byStratum === undefined) byClass.set(resourceClass, (byStratum = new Map()));
    const g = byStratum.get(t.stratum);
    if (g) g.ids.push(t.id);
    else {
      const group = { first: t, resources, ids: [t.id] };
      byStratum.set(t.stratum, group);
      groups.push(group);
    }
  }
  const classesPerStratum = new Map<string, number>();
  for (const g of groups) classesPerStratum.set(g.first.stratum, (classesPerStratum.get(g.first.stratum) ?? 0) + 1);
  const overrides = stage === 'smoke' ? phase.smoke?.overrides : undefined;
  const arrays: ArrayPlan[] = [];
  for (const { first, resources, ids } of groups) {
    const budget = budgetFor({
      phase,
      cluster: manifest.cluster,
      cell: first.values,
      ...(first.units === undefined ? {} : { units: first.units }),
      ...(overrides?.walltime === undefined ? {} : { walltime: overrides.walltime }),
      ...(manifest.defaults?.walltime === undefined ? {} : { defaultWalltime: manifest.defaults.walltime }),
      ...(resources.partition === undefined ? {} : { partition: resources.partition }),
    });
    const pack = phase.pack === undefined || !traitsOf(manifest.cluster).packs ? undefined : phase.pack;
    const packingOf = (size: number): Packing | undefined =>
      pack === undefined
        ? undefined
        : packingFor({
            pack,
            cluster: manifest.cluster,
            task: budget,
            size: Math.min(size, packedSize(phase, stage, ids.length)),
            ...(resources.partition === undefined ? {} : { partition: resources.partition }),
          });
    const packing = packingOf(ids.length);
    let base = `${phase.name}.${stage}.${first.stratum}`;
    if ((classesPerStratum.get(first.stratum) ?? 1) > 1) base += `.${classKey(resources)}`;
    // The executor's limit is on elements: a packed chunk holds that many elements of tasks.
    const perChunk = limit * (packing?.tasks ?? 1);
    const chunks = Math.ceil(ids.length / perChunk);
    for (let chunkIndex = 0; chunkIndex < chunks; chunkIndex++) {
      const chunk = ids.slice(chunkIndex * perChunk, (chunkIndex + 1) * perChunk);
      // A last chunk smaller than one element packs what it has, in the walltime that needs.
      const own = chunks > 1 && chunk.length < (packing?.tasks ?? 1) ? packingOf(chunk.length) : packing;
      arrays.push({
        id: chunks > 1 ? `${base}.${chunkIndex}` : base,
        phase: phase.name,
        stage,
        stratum: first.stratum,
        resources,
        budget,
        tasks: chunk,
        ...(own === undefined ? {} : { packing: own }),
      });
    }
  }
  return arrays;
}
