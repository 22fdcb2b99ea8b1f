/**
 * The task ids of a tasks record by status, and which of them found the disk full. A pass asks
 * these on every pass (what is active, is anything retrying, is the disk full); walking a
 * 100,000-key record for each answer cost a tenth of a second apiece, since V8 keeps such a
 * record as a dictionary and sorts its keys on every walk.
 *
 * An index belongs to one record and is kept up to date by the code that makes records
 * (decide/apply.ts, start.ts and step.ts): a record made from another by changing a few tasks takes over the other's
 * index and updates it for those tasks. The record it came from then has none; asked again, it
 * gets one built afresh by a walk. So an index is only ever out of date if a record is changed
 * in place by code that does not tell it, which is why only records made there,
 * never changed after they are given out, keep theirs.
 */
import type { Plan } from '../plan/plan.js';
import { TASK_STATUSES, type TaskState, type TaskStatus } from './state.js';

type Tasks = Record<string, TaskState>;

export class TaskIndex {
  private readonly byStatus = new Map<TaskStatus, Set<string>>(TASK_STATUSES.map((s) => [s, new Set()]));
  private readonly diskFull = new Set<string>();
  /** The plan whose every task the record holds, once a step has added them. */
  completeFor: Plan | undefined;

  /** The ids of the tasks with this status, in the order they came to it. */
  ids(status: TaskStatus): ReadonlySet<string> {
    return this.byStatus.get(status)!;
  }

  /** How many tasks have any of these statuses. */
  count(statuses: Iterable<TaskStatus>): number {
    let n = 0;
    for (const s of statuses) n += this.ids(s).size;
    return n;
  }

  /** The tasks that ended on a full disk, in the order they did. */
  diskFullIds(): ReadonlySet<string> {
    return this.diskFull;
  }

  /** Records that task `id` went from `was` (undefined: new) to `is`. */
  change(id: string, was: TaskState | undefined, is: TaskState): void {
    if (was?.status !== is.status) {
      if (was) this.byStatus.get(was.status)!.delete(id);
      this.byStatus.get(is.status)!.add(id);
    }
    if (isDiskFull(is)) this.diskFull.add(id);
    else this.diskFull.delete(id);
  }

  static build(tasks: Tasks): TaskIndex {
    const index = new TaskIndex();
    for (const id of Object.keys(tasks)) index.change(id, undefined, tasks[id]!);
    return index;
  }
}

const isDiskFull = (t: TaskState): boolean => t.status === 'failed' && t.attempts.at(-1)?.class === 'disk_full';

/** The records made by the decisions of a pass (decide/), and the index each one holds. */
const made = new WeakSet<Tasks>();
const indexes = new WeakMap<Tasks, TaskIndex>();
/**
 * A record's place in its lineage: the tasks set in it since it was copied, and the place of the
 * record it was copied from. A save can then write what changed without comparing every task.
 * Each place is held by its record alone (the WeakMap), and a place holds its parent's weakly, so
 * lineage keeps no old state alive. The walk holds places, never records: a WeakRef read keeps
 * its target alive until the current job ends, and a record so kept (6 MiB of dictionary and the
 * tasks it replaced, at 100,000 tasks) outlived the collection in the wait between passes.
 */
interface Place {
  changed: Set<string>;
  from: WeakRef<Place> | undefined;
}
const lineage = new WeakMap<Tasks, Place>();

/** The place of a record, made where it has none (a record from elsewhere is a lineage's start). */
function placeOf(tasks: Tasks): Place {
  let place = lineage.get(tasks);
  if (place === undefined) lineage.set(tasks, (place = { changed: new Set(), from: undefined }));
  return place;
}

/** The index of a record: its own, or one built now (kept only for a record made here). */
export function indexOf(tasks: Tasks): TaskIndex {
  let index = indexes.get(tasks);
  if (index === undefined) {
    index = TaskIndex.build(tasks);
    if (made.has(tasks)) indexes.set(tasks, index);
  }
  return index;
}

/**
 * A copy of a record, key order kept, that takes over the original's index (the caller tells it
 * each change it makes). At 100,000 tasks a loop over the keys costs a third of what a spread
 * does (the record is a dictionary to V8, and the spread takes its slow path).
 */
export function copyTasks(tasks: Tasks): Tasks {
  const out: Tasks = {};
  for (const k of Object.keys(tasks)) out[k] = tasks[k]!;
  const index = indexes.get(tasks) ?? TaskIndex.build(tasks);
  indexes.delete(tasks);
  made.add(out);
  indexes.set(out, index);
  lineage.set(out, { changed: new Set(), from: new WeakRef(placeOf(tasks)) });
  return out;
}

/** Sets task `id` in a record made here (by copyTasks), keeping its index up to date. */
export function setTask(tasks: Tasks, id: string, t: TaskState): void {
  indexOf(tasks).change(id, tasks[id], t);
  lineage.get(tasks)?.changed.add(id);
  tasks[id] = t;
}

/**
 * The ids of the tasks that may differ between `older` and `newer` (set or added: none is ever
 * removed), where `newer` was made from `older` here by a few copies; undefined where that is not
 * known (a record from elsewhere, or one whose ancestor is gone): the caller compares every task.
 */
export function changedSince(older: object, newer: object): ReadonlySet<string> | undefined {
  const ids = new Set<string>();
  if (older === newer) return ids;
  const start = lineage.get(older as Tasks);
  if (start === undefined) return undefined;
  for (let place = lineage.get(newer as Tasks), hops = 0; place !== start; hops++) {
    if (place === undefined || hops >= MAX_HOPS) return undefined;
    for (const id of place.changed) ids.add(id);
    place = place.from?.deref();
  }
  return ids;
}

/** A pass makes one to three records: a save that finds more between its two states compares every task. */
const MAX_HOPS = 8;
