/**
 * Adapt or abort (DESIGN rule 9), pure: where the cluster granted an attempt less than it
 * asked, a shortfall in a part of the task's definition (GPUs today: plan/definition.ts says
 * which) ends the attempt as `shortfall`, whatever else its end says, so that its output is
 * never recorded as the task's result and it is tried again within its retries; a shortfall
 * in cost only (a shorter limit, another partition) is adapted to and recorded beside the
 * result.
 */
import { GRANT_PARTS, type Grant } from '../plan/definition.js';
import type { EndClass } from './attempt-end.js';

/** One thing the cluster granted less of than was asked. */
export interface Shortfall {
  of: Grant;
  asked: string;
  granted: string;
  /** In plain words, as a summary shows it (e.g. "1 GPU instead of 2"). */
  words: string;
}

export interface ShortfallVerdict {
  end: EndClass;
  /** The cost-only shortfalls, recorded with the attempt (`adapted`). */
  adapted: string[];
}

/** How an attempt's end reads with the shortfalls it ran under. */
export function judgeShortfalls(ended: EndClass, shortfalls: readonly Shortfall[]): ShortfallVerdict {
  const adapted = shortfalls.filter((s) => GRANT_PARTS[s.of] === null).map((s) => s.words);
  const aborting = shortfalls.filter((s) => GRANT_PARTS[s.of] !== null);
  // A cancel is the user's word on the attempt, and stands.
  if (aborting.length === 0 || ended.cls === 'cancelled') return { end: ended, adapted };
  const parts = [...new Set(aborting.map((s) => GRANT_PARTS[s.of]))].join(' and ');
  const otherwise =
    ended.cls === 'completed' ? '' : `; it ended ${ended.cls}${ended.reason ? `: ${ended.reason}` : ''}`;
  return {
    end: {
      cls: 'shortfall',
      reason: `granted ${aborting.map((s) => s.words).join(', ')}, and ${parts} ${aborting.length === 1 ? 'is' : 'are'} part of the task's definition: its output is not its result${otherwise}`,
    },
    adapted,
  };
}
