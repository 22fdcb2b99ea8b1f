/**
 * One state from the saves of jobs that ran at once. The generated workflow runs independent
 * phases in parallel jobs, each starting from the same state and saving its own copy with its
 * phase's progress in it; the newest copy alone would lose every other job's records. Each save
 * says which phases its job drove (a scoped job one, a whole-campaign job all), and a phase's
 * record, its phase state and its tasks, is taken from one save only: the newest that drove it
 * by name, else the newest whole-campaign save. A job that did not drive a phase holds only the
 * copy it began from, so none of its records of that phase is taken, not even one the driving
 * save lacks (the next pass plans such a task afresh and finds on the cluster what it sent). A
 * phase no save drove keeps the newest save's record, which every job began from, and is named
 * among the merge's `uncovered`.
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

export interface MergedStates {
  state: CampaignState;
  /** The phases that no save drove, kept as the newest save holds them. */
  uncovered: string[];
}

/** `saves` newest first; the first is the base. */
export function mergeParallelStates(saves: readonly SavedState[]): MergedStates {
  const [base, ...older] = saves;
  if (base === undefined) throw new Error('mergeParallelStates needs at least one state');
  if (older.length === 0) return { state: base.state, uncovered: [] };
  const phases = new Set(
    saves.flatMap((s) => [...Object.keys(s.state.phases), ...Object.keys(s.state.tasks).map(phaseOfTask)]),
  );
  const source = new Map<string, CampaignState>();
  const uncovered: string[] = [];
  for (const phase of phases) {
    const driver =
      saves.find((s) => s.drove !== 'all' && s.drove.includes(phase)) ?? saves.find((s) => s.drove === 'all');
    if (driver === undefined) uncovered.push(phase);
    source.set(phase, (driver ?? base).state);
  }
  const tasks: Record<string, TaskState> = {};
  for (const [phase, from] of source) {
    for (const [id, t] of Object.entries(from.tasks)) if (phaseOfTask(id) === phase) tasks[id] = t;
  }
  const phaseStates = Object.fromEntries(
    [...phases].flatMap((p) => {
      const ps = source.get(p)!.phases[p];
      return ps === undefined ? [] : [[p, ps]];
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
  const state: CampaignState = {
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
  return { state, uncovered };
}
