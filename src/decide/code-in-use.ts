/**
 * The code snapshots a campaign still needs (`campaign gc`): the one each task's last attempt
 * ran or runs, its current result or its work in progress. A snapshot only older attempts ran is
 * no result's any more, and may go.
 */
import type { CampaignState } from '../state/state.js';

export function snapshotsInUse(state: CampaignState): Set<string> {
  const used = new Set<string>();
  for (const t of Object.values(state.tasks)) {
    const code = t.attempts.at(-1)?.code;
    if (code !== undefined) used.add(code);
  }
  return used;
}
