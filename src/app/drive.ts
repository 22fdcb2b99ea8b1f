/**
 * The loop that drives a campaign, for both front ends: a controller pass, then a wait the
 * pacer chooses (the state file compacted and the garbage collected during it), until the
 * campaign is at rest, the deadline passes or the signal asks to stop. The clock is a
 * parameter, so tests drive it.
 */
import type { CampaignState } from '../state/state.js';
import { collectIfWorthIt } from './heap.js';

export interface Clock {
  /** Milliseconds. */
  now(): number;
  /** Resolves after `ms`, or at once when `signal` aborts. */
  sleep(ms: number, signal?: AbortSignal): Promise<void>;
}

export const systemClock: Clock = {
  now: () => Date.now(),
  sleep: (ms, signal) =>
    new Promise<void>((resolve) => {
      if (signal?.aborted) return resolve();
      const done = (): void => {
        clearTimeout(timer);
        signal?.removeEventListener('abort', done);
        resolve();
      };
      const timer = setTimeout(done, ms);
      signal?.addEventListener('abort', done, { once: true });
    }),
};

export interface DriveParts {
  controller: { pass(state: CampaignState): Promise<{ state: CampaignState; atRest: boolean }> };
  store: { compactIfDue(): Promise<boolean> };
  /** Seconds to wait before the next pass. */
  pacer: { next(state: CampaignState, nowMs: number): number };
  clock: Clock;
  /** No pass starts after this moment (on the clock); a wait ends at it. */
  deadline?: number;
  /** When aborted, the loop ends after the pass under way (or before the first), without waiting. */
  signal?: AbortSignal;
  /** After each pass (the live display). */
  onPass?: (state: CampaignState) => void;
  /**
   * A job may end before the campaign is at rest (park) once nothing is due for `seconds` (the
   * pacer's view) or nothing has changed for that long: a resume goes on later, and no runner is
   * held while the tasks run. `since`: when the campaign last changed, as far as the caller knows.
   */
  park?: {
    seconds: number;
    since: number;
    quiet(state: CampaignState, nowMs: number): number;
    /** Whether tasks of the job's own are still out: a job with none parks nothing, it comes to rest. */
    out(state: CampaignState): boolean;
  };
}

export interface Driven {
  state: CampaignState;
  atRest: boolean;
  passes: number;
  /** Set when the loop ended by parking: when the campaign last changed (on the clock). */
  parked?: { since: number };
}

/** What a pass can change: the tasks' statuses and attempts. */
function progressOf(state: CampaignState): string {
  const counts = new Map<string, number>();
  let attempts = 0;
  for (const t of Object.values(state.tasks)) {
    counts.set(t.status, (counts.get(t.status) ?? 0) + 1);
    attempts += t.attempts.length;
  }
  return `${[...counts].sort().join(',')};${attempts}`;
}

export async function driveCampaign(start: CampaignState, parts: DriveParts): Promise<Driven> {
  const { controller, store, pacer, clock, deadline = Infinity, signal } = parts;
  let state = start;
  let passes = 0;
  const park = parts.park;
  let progress = park ? progressOf(start) : '';
  let since = park?.since ?? 0;
  for (;;) {
    if (signal?.aborted) return { state, atRest: false, passes };
    const r = await controller.pass(state);
    passes++;
    state = r.state;
    parts.onPass?.(state);
    if (r.atRest || signal?.aborted || clock.now() >= deadline) return { state, atRest: r.atRest, passes };
    if (park) {
      const now = clock.now();
      const p = progressOf(state);
      if (p !== progress) [progress, since] = [p, now];
      if (park.out(state) && (park.quiet(state, now) >= park.seconds || now - since >= park.seconds * 1000))
        return { state, atRest: false, passes, parked: { since } };
    }
    const from = clock.now();
    const until = Math.min(from + pacer.next(state, from) * 1000, deadline);
    await betweenPasses(store);
    await clock.sleep(Math.max(0, until - clock.now()), signal);
  }
}

/**
 * What the loop does at the start of its wait, so that no pass pays for it: a garbage
 * collection, if worth it (heap.ts), then the state file's compaction, if due, and after it
 * another collection. The pass's garbage goes before the compaction makes its own, and the
 * compaction's before the next pass makes more: either on top of the other was the process's
 * peak of memory (Node 24 at 100,000 tasks, docs/PERFORMANCE.md).
 */
export async function betweenPasses(store: DriveParts['store']): Promise<void> {
  collectIfWorthIt();
  if (await store.compactIfDue()) collectIfWorthIt();
}
