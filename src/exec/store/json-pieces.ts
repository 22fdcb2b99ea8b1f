/**
 * The state as JSON.stringify writes it, made in pieces: the fields around the tasks record, the
 * record a few thousand entries at a time, and one field at a time. Apart from the store because
 * how the JSON is cut is its own matter, and a compaction writes a large state without ever
 * holding its JSON as one string.
 */
import { type Entries, setOwn } from './journal.js';

/** The fields of the state other than `tasks`, as JSON.stringify writes them. */
export function fieldsJson(state: Entries): string {
  const parts: string[] = [];
  for (const k of Object.keys(state)) {
    const json = k === 'tasks' ? undefined : fieldJson(state, k);
    if (json !== undefined) parts.push(json);
  }
  return `{${parts.join(',')}}`;
}

/**
 * The state as JSON.stringify writes it, but for its tasks record: the JSON before the record's
 * and the JSON after it.
 */
export function stateParts(state: Entries): [string, string] {
  const before: string[] = [];
  const after: string[] = [];
  let into = before;
  for (const k of Object.keys(state)) {
    const json = k === 'tasks' ? undefined : fieldJson(state, k);
    if (k === 'tasks') into = after;
    else if (json !== undefined) into.push(json);
  }
  return [`{${before.map((p) => `${p},`).join('')}"tasks":`, `${after.map((p) => `,${p}`).join('')}}`];
}

/** How many entries of a tasks record one JSON.stringify of a compaction holds. */
const PIECE_ENTRIES = 2_000;

/**
 * A tasks record as JSON.stringify writes it, in pieces to be written one after another, each
 * made by one JSON.stringify of PIECE_ENTRIES entries: as cheap an entry as one call for the
 * whole record, but the record's JSON is never one string. At 100,000 tasks that string was 27
 * MiB, made while the pass's garbage was still uncollected, and the compaction was the
 * process's peak of memory.
 */
export function* recordPieces(tasks: Entries): Generator<string, void> {
  const ids = Object.keys(tasks);
  let sep = '{';
  for (let i = 0; i < ids.length; i += PIECE_ENTRIES) {
    const piece: Entries = {};
    for (const id of ids.slice(i, i + PIECE_ENTRIES)) setOwn(piece, id, tasks[id]);
    const json = toJson(piece);
    if (json === '{}') continue; // every entry one that JSON leaves out
    yield sep + json.slice(1, -1);
    sep = ',';
  }
  yield sep === '{' ? '{}' : '}';
}

export function* chain<T>(...lists: Iterable<T>[]): Generator<T, void> {
  for (const list of lists) yield* list;
}

/** Field `k` of the state as JSON.stringify writes it (`"k":value`); undefined where it leaves it out. */
function fieldJson(state: Entries, k: string): string | undefined {
  const json = JSON.stringify(state[k]) as string | undefined;
  return json === undefined ? undefined : `${JSON.stringify(k)}:${json}`;
}

/** The UTF-8 length of parts written one after another. */
export function byteLength(parts: readonly string[]): number {
  let n = 0;
  for (const part of parts) n += Buffer.byteLength(part);
  return n;
}

export function toJson(value: unknown): string {
  const json = JSON.stringify(value);
  // JSON.stringify(undefined) (or a function) gives undefined, which would be written as "undefined".
  if (json === undefined) throw new TypeError(`cannot save ${typeof value} as JSON`);
  return json;
}
