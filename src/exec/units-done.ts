/**
 * The units of work a timed-out or preempted attempt of a checkpointing phase had done, read
 * from its log or its output as the phase's `cost.progress` says: its continuation is budgeted
 * for the rest (decide/policy.ts). Where the progress lines carry their units, every ended
 * attempt also records the units its first line said: the summary claims a continuation from a
 * checkpoint only where that shows it (report/summary.ts).
 */
import { firstLogUnits, taskProgress } from '../calibrate/progress.js';
import type { Manifest } from '../manifest/schema.js';
import type { TaskEvent } from '../state/events.js';
import type { ActiveAttempt, Executor } from './executor.js';

export async function withUnitsDone(
  manifest: Manifest,
  executor: Executor,
  active: readonly ActiveAttempt[],
  events: TaskEvent[],
): Promise<TaskEvent[]> {
  // Made for the first such end only: a map of every active attempt, made on every pass, was 12 MiB
  // of garbage a pass at 100,000 tasks.
  let byTask: Map<string, ActiveAttempt> | undefined;
  if (!manifest.phases.some((p) => p.checkpoint)) return events;
  const out: TaskEvent[] = [];
  for (const e of events) {
    const continued = e.type === 'finished' && (e.class === 'timeout' || e.class === 'preempted');
    if (e.type !== 'finished') {
      out.push(e);
      continue;
    }
    byTask ??= new Map(active.map((a) => [a.task.id, a]));
    const a = byTask.get(e.task);
    const phase = manifest.phases.find((p) => p.name === a?.task.phase);
    const progress = phase?.checkpoint ? phase.cost?.progress : undefined;
    // An output's records are counted only for a continuation: a log is read for every end.
    if (!a || !progress || (!continued && progress.log === undefined)) {
      out.push(e);
      continue;
    }
    const facts =
      progress.log !== undefined
        ? { log: await executor.readLog(a.task, a.attempt) }
        : { output: (await executor.workdir.outputFacts(a.task, a.attempt, true)).text ?? '' };
    const found = continued ? taskProgress(progress, facts)?.units : undefined;
    const from =
      progress.log === undefined || facts.log === undefined ? undefined : firstLogUnits(progress.log, facts.log);
    out.push({
      ...e,
      ...(found === undefined ? {} : { units: found }),
      ...(from === undefined ? {} : { unitsFrom: from }),
    });
  }
  return out;
}
