/**
 * Tasks whose definition changed since their last attempt ran (DESIGN rule 11): found before
 * anything is submitted, said per phase and stage with the parts that changed, and either run
 * again (the default) or kept by the user's explicit choice, recorded with the result.
 */
import type { Stage, TaskSpec } from '../manifest/expand.js';
import { changedCodeFiles } from '../plan/code.js';
import { changedParts } from '../plan/definition.js';
import type { PhasePlan, Plan } from '../plan/plan.js';
import { definitionOf, stageDefinitionOf, type CampaignState, type TaskState } from '../state/state.js';

export interface DefinitionChange {
  phase: string;
  stage: Stage;
  /** Ended tasks (completed, failed, stuck) whose last attempt ran under another definition. */
  ended: { id: string; completed: boolean }[];
  /** Tasks running now under another definition: they are judged when they end. */
  running: string[];
  /** The parts of the definition that changed, in the definition's order. */
  parts: string[];
  /** Where the code changed: the files under the phase's code paths that differ from those its tasks ran. */
  codeFiles?: string[];
}

const ENDED = new Set<TaskState['status']>(['completed', 'failed', 'stuck']);

/** The tasks of a phase by stage, each once (a full-run smoke stage holds full tasks). */
function stagesOf(phase: PhasePlan): [Stage, readonly TaskSpec[]][] {
  const full = new Set(phase.tasks.map((t) => t.id));
  return [
    ['smoke', phase.smoke.filter((t) => !full.has(t.id))],
    ['full', phase.tasks],
  ];
}

export function definitionChanges(state: CampaignState, plan: Plan): DefinitionChange[] {
  const out: DefinitionChange[] = [];
  for (const phase of plan.phases) {
    for (const [stage, specs] of stagesOf(phase)) {
      const change: DefinitionChange = { phase: phase.name, stage, ended: [], running: [], parts: [] };
      const parts = new Set<string>();
      const codeFiles = new Set<string>();
      for (const spec of specs) {
        const t = state.tasks[spec.id];
        const last = t?.attempts.at(-1);
        // An attempt from before definitions were recorded cannot be judged: it is kept, as before.
        const ranUnder = last === undefined ? undefined : definitionOf(last);
        if (!t || !last || ranUnder === undefined || ranUnder === spec.definition) continue;
        if (ENDED.has(t.status)) change.ended.push({ id: spec.id, completed: t.status === 'completed' });
        else if (t.status === 'submitted' || t.status === 'running') change.running.push(spec.id);
        else continue;
        const before = stageDefinitionOf(last);
        const recorded = before === undefined ? undefined : state.definitions?.[before];
        for (const p of changedParts(recorded, phase.definitions[spec.stage].parts)) parts.add(p);
        const ran = last.code === undefined ? undefined : state.code?.[last.code];
        if (ran !== undefined && phase.code !== undefined && plan.code !== undefined)
          for (const f of changedCodeFiles(ran.files, plan.code.files, phase.code.paths)) codeFiles.add(f);
      }
      change.parts = [...parts];
      if (codeFiles.size > 0) change.codeFiles = [...codeFiles].sort();
      if (change.ended.length + change.running.length > 0) out.push(change);
    }
  }
  return out;
}

/** What a run says of a change before it submits anything. */
export function definitionChangeLine(definitionChange: DefinitionChange, keep: boolean): string {
  const where = `phase ${definitionChange.phase}${definitionChange.stage === 'smoke' ? ' (smoke stage)' : ''}`;
  const what = `${definitionChange.parts.join(', ')} changed${definitionChange.codeFiles ? ` (${fileList(definitionChange.codeFiles)})` : ''}`;
  const completed = definitionChange.ended.filter((e) => e.completed).length;
  const others = definitionChange.ended.length - completed;
  const lines: string[] = [];
  if (keep && completed > 0)
    lines.push(`${completed} completed task${s(completed)} kept as they are, by --keep-changed (recorded with them)`);
  else if (definitionChange.ended.length > 0)
    lines.push(
      `${definitionChange.ended.length} task${s(definitionChange.ended.length)} will run again` +
        (others > 0 && completed > 0 ? ` (${completed} completed, ${others} failed)` : ''),
    );
  if (keep && others > 0) lines.push(`${others} failed task${s(others)} stay failed (--retry-failed runs them)`);
  if (definitionChange.running.length > 0)
    lines.push(
      `${definitionChange.running.length} running under the earlier definition; run again once they end to run them anew`,
    );
  return `${where}: ${what}: ${lines.join('; ')}`;
}

/** The completed tasks a keep (`--keep-changed`) keeps: their provenance records say so anew. */
export const keptTasks = (changes: readonly DefinitionChange[]): string[] =>
  changes.flatMap((ch) => ch.ended.filter((e) => e.completed).map((e) => e.id));

const s = (n: number): string => (n === 1 ? '' : 's');

/** Changed files as a line names them: the first few, then how many more. */
function fileList(files: readonly string[]): string {
  const shown = files.slice(0, 5).join(', ');
  return files.length > 5 ? `${shown} and ${files.length - 5} more` : shown;
}
