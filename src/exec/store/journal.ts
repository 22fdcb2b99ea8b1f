/**
 * The lines of state.journal.jsonl (see FileStateStore): what one holds, how it is written, and
 * how the lines are read back onto the state.json they follow. One line is one save of a large
 * state: its sequence number, its fields other than `tasks`, the task entries it set and the
 * ones it removed. The store decides when to write them, and keeps them safe on disk.
 */
import { UserError } from '../../errors.js';
import { changedSince } from '../../state/task-index.js';

export type Entries = Record<string, unknown>;
/** A state the journal can hold: an object with a `tasks` record. */
export type Journalable = Entries & { tasks: Entries };

/** The top-level key of a state.json written in journal mode: the sequence number it holds. */
export const JOURNAL_SEQ = 'journalSeq';

/** A journal that does not follow state.json; load throws it as a UserError, recover moves it aside. */
export class JournalMismatch extends Error {}

/** One journal line: the save numbered `seq` set these task entries and removed those. */
interface JournalLine {
  seq: number;
  top: Entries;
  set: Entries;
  del: string[];
}

export function isRecord(v: unknown): v is Entries {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

export function isJournalable(v: unknown): v is Journalable {
  return isRecord(v) && isRecord(v.tasks);
}

/** The sequence number of a journal-mode state.json, or undefined for one that holds everything. */
export function snapshotSeq(v: unknown): number | undefined {
  if (!isJournalable(v)) return undefined;
  const seq = v[JOURNAL_SEQ];
  return Number.isSafeInteger(seq) && (seq as number) >= 0 ? (seq as number) : undefined;
}

/** Whether JSON.stringify writes this property (it leaves out undefined, functions and symbols). */
export function present(v: unknown): boolean {
  return v !== undefined && typeof v !== 'function' && typeof v !== 'symbol';
}

/**
 * What changed from the tasks record `was` (holding `wasCount` entries) to `tasks`: the ids of
 * the entries set (new, or not equal) and of those removed, and how many entries `tasks` holds.
 */
export function changes(
  was: Entries,
  wasCount: number,
  tasks: Entries,
): { set: string[]; del: string[]; count: number } {
  const set: string[] = [];
  const del: string[] = [];
  if (tasks === was) return { set, del, count: wasCount };
  // A record the controller's core made from `was` says which tasks it set: only those are compared.
  const told = changedSince(was, tasks);
  if (told !== undefined) {
    let count = wasCount;
    for (const id of told) {
      const v = Object.hasOwn(tasks, id) ? tasks[id] : undefined;
      const old = Object.hasOwn(was, id) ? was[id] : undefined;
      if (!present(v)) {
        if (present(old)) {
          del.push(id);
          count--;
        }
      } else if (!present(old)) {
        set.push(id);
        count++;
      } else if (v !== old && !jsonEqual(old, v)) set.push(id);
    }
    return { set, del, count };
  }
  let count = 0;
  let kept = 0; // entries `was` has too
  for (const id of Object.keys(tasks)) {
    const v = tasks[id];
    if (!present(v)) continue;
    count++;
    const old = Object.hasOwn(was, id) ? was[id] : undefined;
    if (present(old)) kept++;
    // An entry that is not the same object may still be equal: after a load, the caller's
    // copies of every entry are new objects.
    if (v !== old && !jsonEqual(old, v)) set.push(id);
  }
  if (kept < wasCount) {
    for (const id of Object.keys(was)) {
      if (present(was[id]) && !(Object.hasOwn(tasks, id) && present(tasks[id]))) del.push(id);
    }
  }
  return { set, del, count };
}

/**
 * The line of save `seq`, in parts to be written one after another: `top` is its fields other
 * than `tasks` as JSON, `set` the ids of the entries of `tasks` it sets. Their JSON is made by one
 * JSON.stringify of an object of them, and never joined to the rest: a string per entry, their
 * join, and the flattening of the line before its bytes are written were 11 MiB of garbage a
 * pass at 100,000 tasks. The object lists them in the order of `set`, but for keys that are
 * integers (never a task's id, which holds its phase's name and a slash), which it lists first:
 * the line sets the same.
 */
export function lineParts(seq: number, top: string, tasks: Entries, set: readonly string[], del: string[]): string[] {
  const entries: Entries = {};
  for (const id of set) setOwn(entries, id, tasks[id]);
  return [`{"seq":${seq},"top":${top},"set":`, JSON.stringify(entries), `,"del":${JSON.stringify(del)}}\n`];
}

/**
 * `snap` (state.json, numbered `seq`) with the journal's later saves applied in place. Lines
 * numbered `seq` or less are already in state.json; each later one must follow the one before
 * (else JournalMismatch, and `snap` is as it was). An unparseable last line without its newline
 * is a save a crash cut short, never acknowledged: left out, with a warning. An unparseable
 * line anywhere else means the journal is damaged: a UserError.
 */
export function replay(
  path: string,
  snap: Journalable,
  seq: number,
  text: string,
  warn: (message: string) => void,
): { state: Journalable; seq: number; maxSeq: number; bytes: number } {
  const lines = text.split('\n');
  const tail = lines.pop()!; // '' when the journal ends with a newline
  const later: JournalLine[] = [];
  let last = seq;
  let maxSeq = seq;
  for (const [i, text] of lines.entries()) {
    const line = journalLine(text);
    if (line instanceof Error) {
      throw new UserError({
        message: `campaign state journal line is corrupt: ${line.message}`,
        position: { file: path, line: i + 1, column: 1 },
        fix: `restore the state directory from a backup; or move ${path} aside to go back to the last whole save in state.json (the saves since are lost: the next run rebuilds what it can from the executor's records and the outputs)`,
      });
    }
    maxSeq = Math.max(maxSeq, line.seq);
    if (line.seq <= seq) continue; // a compaction was cut short before it removed the journal
    if (line.seq !== last + 1) {
      throw new JournalMismatch(`its line ${i + 1} is save ${line.seq}, but the save before it is ${last}`);
    }
    later.push(line);
    last = line.seq;
  }
  if (tail !== '') warn(`${path} ends in a partial line from an interrupted save; left it out`);
  let state = snap;
  if (later.length > 0) {
    const { tasks } = snap;
    for (const line of later) {
      for (const id of Object.keys(line.set)) setOwn(tasks, id, line.set[id]);
      for (const id of line.del) Reflect.deleteProperty(tasks, id);
    }
    state = { ...later.at(-1)!.top, tasks };
  }
  return { state, seq: last, maxSeq, bytes: Buffer.byteLength(text) - Buffer.byteLength(tail) };
}

/** One line parsed and checked, or why it is not a journal line. */
function journalLine(text: string): JournalLine | Error {
  let v: unknown;
  try {
    v = JSON.parse(text);
  } catch (e) {
    return e as Error;
  }
  if (!isRecord(v)) return new Error('not a journal entry');
  const { seq, top, set, del } = v;
  const ok =
    Number.isSafeInteger(seq) &&
    (seq as number) > 0 &&
    isRecord(top) &&
    isRecord(set) &&
    Array.isArray(del) &&
    del.every((id) => typeof id === 'string');
  return ok ? (v as unknown as JournalLine) : new Error('not a journal entry');
}

/**
 * Whether two values are written as the same JSON, up to the order of keys. It may say no to
 * some that are (a Date, say, unless the same object): that only writes an entry again.
 */
function jsonEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (Array.isArray(a) || Array.isArray(b)) {
    if (!Array.isArray(a) || !Array.isArray(b) || a.length !== b.length) return false;
    for (let i = 0; i < a.length; i++) if (!jsonEqual(a[i], b[i])) return false;
    return true;
  }
  if (Object.getPrototypeOf(a) !== Object.prototype || Object.getPrototypeOf(b) !== Object.prototype) return false;
  const x = a as Entries;
  const y = b as Entries;
  let n = 0;
  for (const k of Object.keys(x)) {
    if (!present(x[k])) continue;
    n++;
    if (!Object.hasOwn(y, k) || !jsonEqual(x[k], y[k])) return false;
  }
  for (const k of Object.keys(y)) if (present(y[k])) n--;
  return n === 0;
}

/** obj[key] = value, also for a key such as __proto__. */
export function setOwn(obj: Entries, key: string, value: unknown): void {
  if (key === '__proto__')
    Object.defineProperty(obj, key, { value, enumerable: true, writable: true, configurable: true });
  else obj[key] = value;
}
