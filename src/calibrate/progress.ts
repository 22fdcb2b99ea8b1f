/**
 * What a finished task says about its own progress: the units it completed, from the progress
 * lines its log carries or the records its output holds, and, where progress lines carry
 * timestamps, when each unit was done.
 */
import { compilePattern } from '../manifest/pattern.js';
import type { Progress } from '../manifest/schema.js';

/** Units done by a moment of the run (seconds on the task's own clock). */
export interface ProgressPoint {
  units: number;
  at: number;
}

export interface TaskProgress {
  units: number;
  /** Ordered by units; empty when the lines carry no timestamps. */
  points: ProgressPoint[];
}

/** A timestamp in seconds: a number (epoch or since start), or an ISO date-time. */
function seconds(text: string | undefined): number | undefined {
  if (text === undefined) return undefined;
  const n = Number(text);
  if (text.trim() !== '' && Number.isFinite(n)) return n;
  const ms = Date.parse(text);
  return Number.isFinite(ms) ? ms / 1000 : undefined;
}

/**
 * The progress in a log. With a `units` group, the largest value seen is the units done (a
 * restarted count does not undo finished work); without one, each matching line is a unit.
 */
export function logProgress(pattern: string, log: string): TaskProgress | undefined {
  const re = compilePattern(pattern);
  let count = 0;
  let best = 0;
  let named = false;
  const points: ProgressPoint[] = [];
  for (const m of re.matches(log)) {
    if (m.text === '') continue;
    count++;
    const u = m.groups.units === undefined ? undefined : Number(m.groups.units);
    if (u !== undefined && Number.isFinite(u)) {
      named = true;
      best = Math.max(best, u);
    }
    const units = named ? (u ?? best) : count;
    const at = seconds(m.groups.at);
    if (at !== undefined) points.push({ units, at });
  }
  if (count === 0) return undefined;
  return { units: named ? best : count, points: points.sort((a, b) => a.units - b.units || a.at - b.at) };
}

/** The units the first progress line of a log says, where the lines carry them: where the run started from. */
export function firstLogUnits(pattern: string, log: string): number | undefined {
  for (const m of compilePattern(pattern).matches(log)) {
    const units = m.groups.units === undefined ? undefined : Number(m.groups.units);
    if (m.text !== '' && units !== undefined && Number.isFinite(units)) return units;
  }
  return undefined;
}

/** Records in an output: the length of a JSON array, one for another JSON document, else non-empty lines. */
export function countRecords(text: string): number {
  try {
    const whole: unknown = JSON.parse(text);
    return Array.isArray(whole) ? whole.length : 1;
  } catch {
    return text.split('\n').filter((l) => l.trim() !== '').length;
  }
}

/** The progress a task reports as its phase declares it; undefined when it reports none. */
export function taskProgress(progress: Progress, facts: { log?: string; output?: string }): TaskProgress | undefined {
  if (progress.log !== undefined) return facts.log === undefined ? undefined : logProgress(progress.log, facts.log);
  if (facts.output === undefined) return undefined;
  const units = countRecords(facts.output);
  return units > 0 ? { units, points: [] } : undefined;
}
