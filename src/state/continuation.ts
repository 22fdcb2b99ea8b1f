/**
 * What a continuation from a checkpoint did, as the attempts' own records show it: the summary
 * and the provenance record say "continued from its checkpoint" only where the continuation's
 * first progress line (`cost.progress`, `unitsFrom`) is past the first attempt's, which started
 * from nothing. Pure.
 */
import type { Attempt } from './state.js';

export interface Continuation {
  /** The attempt before and why it ended ("signalled at 0:40, ended at 1:00 (time limit)"), where recorded. */
  before?: { n: number; reason: string };
  /** What this attempt did with the checkpoint. */
  what: string;
}

/** The continuation that attempt `i` of `attempts` (one it was sent with CAMPAIGN_RESUME=1) was. */
export function continuation(attempts: readonly Attempt[], i: number): Continuation {
  const a = attempts[i]!;
  const prior = attempts[i - 1];
  const before = prior?.reason === undefined ? {} : { before: { n: prior.n, reason: prior.reason } };
  const baseline = attempts.find((x) => !x.resumed)?.unitsFrom;
  if (a.class === undefined) return { ...before, what: 'sent to continue from its checkpoint' };
  if (a.unitsFrom === undefined || baseline === undefined)
    return { ...before, what: 'sent to continue from its checkpoint; its progress does not show where it started' };
  if (a.unitsFrom > baseline)
    return { ...before, what: `continued from its checkpoint (its progress started at ${a.unitsFrom})` };
  return {
    ...before,
    what: `sent to continue from its checkpoint, but started over (its progress began at ${a.unitsFrom}, as at first)`,
  };
}

/** The continuations up to and including attempt `i`, in plain words, one each: for a provenance record. */
export function continuations(attempts: readonly Attempt[], i: number): string[] {
  const out: string[] = [];
  for (let k = 1; k <= i; k++) {
    if (!attempts[k]!.resumed) continue;
    const continued = continuation(attempts, k);
    out.push(
      `${continued.before ? `attempt ${continued.before.n} ${continued.before.reason}; ` : ''}attempt ${attempts[k]!.n} ${continued.what}`,
    );
  }
  return out;
}
