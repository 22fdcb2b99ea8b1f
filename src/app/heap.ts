/**
 * A full garbage collection in the wait between passes, once a pass has left much garbage.
 *
 * At 100,000 tasks a pass leaves 40 to 50 MB in V8's old generation (the tasks it replaced, the
 * record they were in), and V8 collects on its own only once the old generation has grown to
 * several times what was live at its last collection: 500 MB resident for a live heap of 120
 * MB, unless the wait is long enough for its memory reducer. The loop waits anyway; a collection
 * there keeps the process near its live size, and costs about 0.15 s of that wait per 100 MB live
 * (Node 20; about twice that where it also gives back the young generation, below).
 */
import { getHeapStatistics, setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

/**
 * Garbage worth a collection: this share of what was live at the last one, and at least
 * MIN_GARBAGE. At 100,000 tasks that is every pass (40 to 50 MB each): a quarter let two passes'
 * garbage pile up, and the peak past 300 MB; at 10,000 tasks, every few passes.
 */
const GARBAGE_SHARE = 0.1;
const MIN_GARBAGE = 16 * 1024 * 1024;

/** Whether a heap of `used` bytes, `live` of them live at the last collection, is worth collecting. */
export function worthCollecting(used: number, live: number): boolean {
  return used - live > Math.max(MIN_GARBAGE, live * GARBAGE_SHARE);
}

/**
 * V8's full collection: node exposes it only behind a flag, which new contexts see once set.
 * Where V8 takes the collection's flavor (12 on: Node 22 and 24), the last-resort one, which also
 * shrinks the young generation and gives back the pages V8 keeps pooled: Node 24's V8 lets the
 * young generation grow to 128 MiB and keeps freed pages, 470 MiB resident at 100,000 tasks, 270
 * with it. V8 11 (Node 20), whose young generation stays at 32 MiB, collects nothing when given
 * options, so it gets the plain collection.
 */
function fullCollection(): (() => void) | undefined {
  try {
    setFlagsFromString('--expose-gc');
    const gc: unknown = runInNewContext('gc');
    if (typeof gc !== 'function') return undefined;
    const full = gc as (options?: { type: 'major'; flavor: 'last-resort' }) => void;
    return Number(process.versions.v8.split('.')[0]) >= 12
      ? () => full({ type: 'major', flavor: 'last-resort' })
      : () => full();
  } catch {
    return undefined; // a node that refuses the flag: V8 collects on its own, as without this
  }
}

let collect: (() => void) | undefined | null = null;
/** The heap's size after the last collection made here. */
let live = 0;

/** Collects the garbage if it is worth it (worthCollecting); true if it did. */
export function collectIfWorthIt(): boolean {
  if (!worthCollecting(getHeapStatistics().used_heap_size, live)) return false;
  if (collect === null) collect = fullCollection();
  if (collect === undefined) return false;
  collect();
  live = getHeapStatistics().used_heap_size;
  return true;
}
