/**
 * Adapt or abort (DESIGN rule 9), pure: where the cluster granted an attempt less than it
 * asked, a shortfall in a part of the task's definition (GPUs today: plan/definition.ts says
 * which) ends the attempt as `shortfall`, whatever else its end says, so that its output is
 * never recorded as the task's result and it is tried again within its retries; a shortfall
 * in cost only (a shorter limit, another partition) is adapted to and recorded beside the
 * result.
 */
import { GRANT_PARTS, type Grant } from '../plan/definition.js';
import type { EndClass } from '../state/state.js';

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

/** What the device gate (render/task-script.ts) says when it sees other than the GPUs asked. */
const DEVICES = /asked for (\d+) GPUs, got (\d+)/;

/**
 * A failed gate read as the shortfall it may be: the device gate seeing fewer GPUs than the
 * task asked stopped the attempt before its command ran, for a shortfall in its definition,
 * not for a fault of the task's. Undefined for any other gate.
 */
export function gateShortfall(gate: string, detail: string): EndClass | undefined {
  const seen = gate === 'devices' ? DEVICES.exec(detail) : null;
  if (!seen || Number(seen[2]) >= Number(seen[1])) return undefined;
  const [asked, granted] = [seen[1]!, seen[2]!];
  const words = `${granted} GPU${granted === '1' ? '' : 's'} instead of ${asked}`;
  return judgeShortfalls({ cls: 'gate', reason: `gate ${gate}:${detail}` }, [{ of: 'gpus', asked, granted, words }])
    .end;
}

/** How an attempt's end reads with the shortfalls it ran under. */
export function judgeShortfalls(ended: EndClass, shortfalls: readonly Shortfall[]): ShortfallVerdict {
  const adapted = shortfalls.filter((s) => GRANT_PARTS[s.of] === null).map((s) => s.words);
  const aborting = shortfalls.filter((s) => GRANT_PARTS[s.of] !== null);
  // A cancel is the user's word on the attempt, and stands; a shortfall already said (the device gate's) is said once.
  if (aborting.length === 0 || ended.cls === 'cancelled' || ended.cls === 'shortfall') return { end: ended, adapted };
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
