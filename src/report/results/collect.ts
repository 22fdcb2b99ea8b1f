/**
 * Which outputs a phase's results come from, and the results of its tasks once their texts are
 * read. Only the full stage counts: smoke tasks validate the pipeline, they are not findings.
 */
import { attemptsGpuHours } from '../gpu-hours.js';
import { UserError } from '../../errors.js';
import { containedPath, renderPath, type TaskSpec } from '../../manifest/expand.js';
import type { Manifest, Phase, Results } from '../../manifest/schema.js';
import type { PhasePlan, Plan } from '../../plan/plan.js';
import { definitionOf, type CampaignState } from '../../state/state.js';
import { aggregate, type CellResult, type TaskResult } from './aggregate.js';
import type { OutputResult } from './output-result.js';
import { parseRecordRule } from './records.js';
import { cellTable, taskTable, type Table } from './table.js';

export interface ResultPhase {
  phase: Phase;
  plan: PhasePlan;
  results: Results;
}

const DECLARE = 'results: { metrics: [loss], replicates: seed } in the phase (docs/RESULTS.md)';

/** The phase whose results are asked for: the one named, else the only one that declares results. */
export function resultPhase(manifest: Manifest, plan: Plan, name: string | undefined): ResultPhase {
  const declaring = manifest.phases.filter((p) => p.results !== undefined);
  let phase: Phase | undefined;
  if (name !== undefined) {
    phase = manifest.phases.find((p) => p.name === name);
    if (phase === undefined)
      throw new UserError({
        message: `${manifest.campaign} has no phase ${name}`,
        fix: `give one of ${manifest.phases.map((p) => p.name).join(', ')} to --phase`,
      });
    if (phase.results === undefined)
      throw new UserError({
        message: `phase ${name} declares no results: campaign cannot tell which fields of its outputs are findings`,
        fix: `declare ${DECLARE}`,
      });
  } else if (declaring.length === 0) {
    throw new UserError({
      message: `no phase of ${manifest.campaign} declares results: campaign cannot tell which fields of the outputs are findings`,
      fix: `declare ${DECLARE}`,
    });
  } else if (declaring.length > 1) {
    throw new UserError({
      message: `phases ${declaring.map((p) => p.name).join(', ')} declare results`,
      fix: 'name one with --phase',
    });
  } else phase = declaring[0]!;
  if (phase.output === undefined)
    throw new UserError({
      message: `phase ${phase.name} declares results but no output to read them from`,
      fix: 'declare the output each task writes (output: results/${tag}.jsonl)',
    });
  return { phase, plan: plan.phases.find((p) => p.name === phase.name)!, results: phase.results! };
}

/** The completed attempt of a task whose result counts, with the file its records are in. */
export function outputsToRead(manifest: Manifest, r: ResultPhase, state: CampaignState): Map<string, string> {
  const paths = new Map<string, string>();
  for (const t of r.plan.tasks) {
    if (state.tasks[t.id]?.status !== 'completed' || t.output === undefined || staleResult(t, state)) continue;
    const inside =
      r.results.path === undefined ? undefined : renderPath(manifest, r.phase, r.results.path, t.values, t.tag);
    const path = inside === undefined ? t.output : containedPath(`${t.output}/${inside}`);
    if (path !== undefined) paths.set(t.id, path);
  }
  return paths;
}

/**
 * A completed task whose result is of an earlier definition than the plan's (without the user's
 * choice to keep it): `run` would send it again, so its result is not one of this grid.
 */
function staleResult(t: TaskSpec, state: CampaignState): boolean {
  const done = state.tasks[t.id]?.attempts.filter((a) => a.class === 'completed').at(-1);
  const ranUnder = done === undefined ? undefined : definitionOf(done);
  return ranUnder !== undefined && t.definition !== undefined && ranUnder !== t.definition;
}

const STALE = 'ran under an earlier definition: `campaign run` runs it again (--keep-changed keeps its result)';

/**
 * The results of every full task of the phase, from what its output held (task id → result,
 * undefined where the output is not there).
 */
export function taskResults(
  r: ResultPhase,
  state: CampaignState,
  paths: ReadonlyMap<string, string>,
  results: ReadonlyMap<string, OutputResult | undefined>,
): TaskResult[] {
  const gpus = new Map(r.plan.arrays.flatMap((a) => a.tasks.map((id) => [id, a.resources.gpus] as const)));
  return r.plan.tasks.map((t) => {
    const s = state.tasks[t.id];
    const done = s?.attempts.filter((a) => a.class === 'completed').at(-1);
    const last = done ?? s?.attempts.at(-1);
    const base: TaskResult = {
      id: t.id,
      values: t.values,
      status: s?.status ?? 'not run',
      records: [],
      ...(last === undefined ? {} : { attempt: last.n }),
      ...(last && definitionOf(last) !== undefined ? { definition: definitionOf(last)! } : {}),
      ...(last?.node === undefined ? {} : { node: last.node }),
      ...(s === undefined ? {} : { gpuHours: attemptsGpuHours(s.attempts, gpus.get(t.id) ?? 0) }),
    };
    // Why a task that did not complete has no result: the state's reason (`failed: exit 3`).
    if (s?.status !== 'completed') return s?.reason === undefined ? base : { ...base, problem: s.reason };
    if (staleResult(t, state)) return { ...base, problem: STALE };
    const path = paths.get(t.id);
    if (path === undefined) return { ...base, problem: 'its output path leaves the workdir' };
    const result = results.get(t.id);
    if (result === undefined) return { ...base, problem: `${path} is not there` };
    if ('problem' in result) {
      const hint = r.results.path === undefined && /not a regular file/.test(result.problem);
      return {
        ...base,
        problem: `${path}: ${result.problem}${hint ? ' (name the file inside with results.path)' : ''}`,
      };
    }
    return { ...base, records: result.records };
  });
}

/** The results as a table: per cell over the replicates, or (`perTask`) one row per task. */
export function resultsTable(
  r: ResultPhase,
  tasks: readonly TaskResult[],
  perTask: boolean,
): { table: Table; cells: CellResult[] } {
  const perRecord = parseRecordRule(r.results.record).kind === 'all';
  const axes = resultAxes(r);
  const cells = aggregate(tasks, r.results.metrics, r.results.replicates, perRecord);
  if (perTask) return { table: taskTable(axes, tasks, r.results.metrics, perRecord), cells };
  return { table: cellTable(cellAxes(r), cells, r.results.metrics, perRecord), cells };
}

/** The phase's grid axes, in grid order. */
export function resultAxes(r: ResultPhase): string[] {
  return [...new Set(r.plan.tasks.flatMap((t) => Object.keys(t.values)))];
}

/** The axes of its cells: the grid's without the replicate axis. */
export function cellAxes(r: ResultPhase): string[] {
  return resultAxes(r).filter((a) => a !== r.results.replicates);
}
