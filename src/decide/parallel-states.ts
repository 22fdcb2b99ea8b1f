/**
 * One state from the saves of jobs that ran at once. The generated workflow runs independent
 * phases in parallel jobs, each starting from the same state and saving its own copy with its
 * phase's progress in it; the newest copy alone would lose every other job's records. Each save
 * says which phases its job drove (a scoped job one, a whole-campaign job all), and a phase's
 * record, its phase state and its tasks, is taken from the newest save that drove it; a phase
 * no save drove keeps the newest save's record, which every job began from.
 */
import { z } from 'zod';
import { phaseOfTask } from './policy.js';
import type { CampaignState, TaskState } from '../state/state.js';

/**
 * Saved beside the state: the phases the saving job drove (`{"drove": ["train"]}`, or "all"),
 * so that saves of jobs that ran at once can be merged.
 */
export const DROVE_FILE = 'drove.json';
export const droveFile = z.object({ drove: z.union([z.literal('all'), z.array(z.string())]) });

export interface SavedState {
  state: CampaignState;
  /** The phases the saving job drove; 'all' for a job not confined to one. */
  drove: z.infer<typeof droveFile>['drove'];
}

/** `saves` newest first; the first is the base. */
export function mergeParallelStates(saves: readonly SavedState[]): CampaignState {
  const [base, ...older] = saves;
  if (base === undefined) throw new Error('mergeParallelStates needs at least one state');
  if (older.length === 0 || base.drove === 'all') return base.state;
  const source = new Map<string, CampaignState>();
  const drives = (s: SavedState, phase: string): boolean => s.drove === 'all' || s.drove.includes(phase);
  const phases = new Set([...saves.flatMap((s) => Object.keys(s.state.phases))]);
  for (const phase of phases) {
    const newest = saves.find((s) => drives(s, phase));
    source.set(phase, (newest ?? base).state);
  }
  const tasks: Record<string, TaskState> = {};
  for (const s of saves) {
    for (const [id, t] of Object.entries(s.state.tasks)) {
      if (id in tasks) continue;
      const from = source.get(phaseOfTask(id)) ?? base.state;
      const chosen = from.tasks[id];
      // A task the chosen save never held (its job began before the task was planned) is taken from whichever has it.
      tasks[id] = chosen ?? t;
    }
  }
  const phaseStates = Object.fromEntries(
    [...phases].flatMap((p) => {
      const ps = source.get(p)!.phases[p] ?? saves.find((s) => s.state.phases[p])!.state.phases[p]!;
      return [[p, ps]];
    }),
  );
  const definitions = Object.assign({}, ...[...saves].reverse().map((s) => s.state.definitions ?? {})) as Record<
    string,
    Record<string, string>
  >;
  const updated = saves.map((s) => s.state.updated).reduce((a, b) => (b > a ? b : a));
  // A phase's parked scopes come with its records; a whole-campaign one with the base.
  const parkedFrom = (s: CampaignState, phase: string | undefined) =>
    (s.parked?.scopes ?? []).filter((sc) => sc.phase === phase).map((sc) => ({ sc, since: s.parked!.since }));
  const parked = [...parkedFrom(base.state, undefined), ...[...phases].flatMap((p) => parkedFrom(source.get(p)!, p))];
  const rest = { ...base.state };
  delete rest.parked;
  return {
    ...rest,
    updated,
    phases: phaseStates,
    tasks,
    ...(Object.keys(definitions).length > 0 ? { definitions } : {}),
    ...(parked.length > 0
      ? {
          parked: {
            scopes: parked.map((x) => x.sc),
            since: parked.map((x) => x.since).reduce((a, b) => (b > a ? b : a)),
          },
        }
      : {}),
  };
}
