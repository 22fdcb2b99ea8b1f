/**
 * How the decisions of a pass copy a task's record and its attempts, shared by applying events,
 * starting a run and the step: a few fields changed on a copy that keeps the saved JSON's key
 * order and V8's hidden classes, which at 100,000 tasks weigh tens of MiB (docs/PERFORMANCE.md).
 */
import type { Attempt, TaskState } from '../state/state.js';

/**
 * A copy of a task's record or attempt with some fields changed: the keys of `{ ...from,
 * ...fields }`, in its order (the saved JSON's). Object.assign, not a spread: this V8 gives
 * every object spread from one of the many shapes a pass meets a hidden class of its own (a V8
 * map and its descriptors, about 25 MiB at 100,000 tasks), where these copies share theirs.
 */
export function amended<T extends object>(from: T, fields: Partial<T>): T {
  return Object.assign({}, from, fields);
}

/** A task's record made afresh: a `--retry-failed` reset lasts for the task's life (retries are counted after it). */
export function renewed(t: TaskState, fields: Omit<TaskState, 'retryFrom'>): TaskState {
  return t.retryFrom === undefined ? fields : Object.assign({ retryFrom: t.retryFrom }, fields);
}

/**
 * The attempts with `a` added, in an array of their number: one copied and then pushed to keeps
 * room for 16 more, over 100 bytes a task.
 */
export const appended = (attempts: readonly Attempt[], a: Attempt): Attempt[] => attempts.concat([a]);

/** The attempts with the `i`th replaced by `a`. */
export function replaced(attempts: readonly Attempt[], i: number, a: Attempt): Attempt[] {
  const out = attempts.slice();
  out[i] = a;
  return out;
}
