/**
 * The start of a run: what an outside change may have mended is looked at again (changed task
 * definitions run again or are kept by choice, missing preconditions and failed checklists are
 * checked again, blocked tasks re-derived), and with `retryFailed` failed tasks run again.
 */
import { smokeDefinitions, type Plan } from '../plan/plan.js';
import { checklistKey } from '../judge/checklist.js';
import { copyTasks, setTask } from '../state/task-index.js';
import type { CampaignState, PhaseState } from '../state/state.js';
import { amended, replaced } from './copies.js';
import { definitionChanges } from './definition-changes.js';

/**
 * Phases whose smoke stage failed a checklist that the manifest has changed since. The checklist
 * is fixed before the smoke runs: a changed one judges a new smoke stage, never the old results.
 */
export function checklistsChanged(state: CampaignState, plan: Plan): string[] {
  return plan.phases
    .filter((p) => {
      const gate = state.phases[p.name]?.gate;
      return gate && !gate.passed && gate.checklist !== undefined && gate.checklist !== checklistKey(p.checklist);
    })
    .map((p) => p.name);
}

/** What a run says of a phase whose checklist changed after its smoke stage failed it. */
export const checklistChangedWarning = (phase: string): string =>
  `phase ${phase}: its checklist changed after it failed the smoke stage; the smoke stage runs again under the new one (a checklist is fixed before the smoke runs, never fitted to its results)`;

export interface StartOptions {
  retryFailed: boolean;
  /**
   * Keep the completed results of tasks whose definition changed, by the user's choice that the
   * change is harmless (recorded with each result), instead of running them again.
   */
  keepChanged?: boolean;
  /** When the run starts (the time a kept result records). */
  now?: string;
}

/**
 * A new run looks again at what an outside change may have mended: missing preconditions are
 * checked again, failed checklists evaluated again (the manifest's checklist may have been
 * fixed), blocked tasks re-derived. With `retryFailed`, failed tasks and the smoke tasks of a
 * failed checklist run again, with their retry allowances afresh.
 */
export function startRun(state: CampaignState, plan: Plan, opts: StartOptions): CampaignState {
  const phases: Record<string, PhaseState> = {};
  // Made here, so that its index is kept from this first pass on.
  const tasks = copyTasks(state.tasks);
  let definitions = state.definitions;
  const reset = (id: string): void => {
    const t = tasks[id];
    if (!t) return;
    const last = t.attempts[t.attempts.length - 1]?.n ?? 0;
    setTask(tasks, id, { status: 'pending', attempts: t.attempts, retryFrom: last });
  };
  // A changed definition runs again (or is kept by choice); a gate holds only for the smoke tasks it judged.
  const regated = new Map<string, 'drop' | 'keep'>();
  for (const change of definitionChanges(state, plan)) {
    const phase = plan.phases.find((p) => p.name === change.phase)!;
    const smokeIds = new Set(phase.smoke.map((t) => t.id));
    const specs = new Map([...phase.smoke, ...phase.tasks].map((t) => [t.id, t]));
    for (const { id, completed } of change.ended) {
      const touchesGate = smokeIds.has(id);
      if (!opts.keepChanged) {
        reset(id);
        if (touchesGate) regated.set(phase.name, 'drop');
        continue;
      }
      if (!completed) continue;
      const spec = specs.get(id)!;
      const stage = phase.definitions[spec.stage];
      const t = tasks[id]!;
      const last = t.attempts.at(-1)!;
      const kept = { definition: spec.definition!, stageDefinition: stage.id, at: opts.now ?? state.updated };
      const a = amended(last, { kept: [...(last.kept ?? []), { ...kept, changed: change.parts }] });
      setTask(tasks, id, amended(t, { attempts: replaced(t.attempts, t.attempts.length - 1, a) }));
      if (definitions?.[stage.id] === undefined) definitions = { ...definitions, [stage.id]: stage.parts };
      if (touchesGate && regated.get(phase.name) !== 'drop') regated.set(phase.name, 'keep');
    }
  }
  const changed = new Set(checklistsChanged(state, plan));
  for (const [name, p] of Object.entries(state.phases)) {
    const { gate, preconditions, ...rest } = p;
    const again = regated.get(name);
    const planned = plan.phases.find((x) => x.name === name);
    // A passed gate holds unless its smoke tasks run again; kept by choice, it holds for their new definitions.
    let held = gate?.passed && again !== 'drop' ? gate : undefined;
    if (held && again === 'keep' && planned) held = { ...held, definitions: smokeDefinitions(planned) };
    phases[name] = {
      ...rest,
      ...(held ? { gate: held } : {}),
      ...(preconditions && preconditions.missing.length === 0 ? { preconditions } : {}),
    };
    if ((opts.retryFailed || changed.has(name)) && gate && !gate.passed)
      for (const t of planned?.smoke ?? []) reset(t.id);
  }
  for (const [id, t] of Object.entries(tasks)) {
    if (t.status === 'blocked') {
      setTask(tasks, id, {
        status: 'pending',
        attempts: t.attempts,
        ...(t.retryFrom === undefined ? {} : { retryFrom: t.retryFrom }),
      });
    } else if (opts.retryFailed && (t.status === 'failed' || t.status === 'stuck')) reset(id);
    // The disk was full, not the task wrong: once there is room, it runs again with its retries intact.
    else if (t.status === 'failed' && t.attempts.at(-1)?.class === 'disk_full') reset(id);
  }
  const code = state.code === undefined ? undefined : usedSnapshots(state.code, tasks);
  return {
    ...state,
    phases,
    tasks,
    ...(definitions === undefined ? {} : { definitions }),
    ...(code === undefined ? {} : { code }),
  };
}

/** The code snapshots some attempt ran: those no attempt names any more are forgotten. */
function usedSnapshots(code: NonNullable<CampaignState['code']>, tasks: CampaignState['tasks']): CampaignState['code'] {
  const used = new Set<string>();
  for (const t of Object.values(tasks)) for (const a of t.attempts) if (a.code !== undefined) used.add(a.code);
  return Object.fromEntries(Object.entries(code).filter(([id]) => used.has(id)));
}
