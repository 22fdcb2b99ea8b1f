/**
 * A campaign's stored state for the commands that only read it: no lock is held, nothing is
 * repaired. The controller's loader is imported only where a state is there to read, so that
 * `campaign plan` of a new campaign loads none of it (test/app/lazy-loading.test.ts).
 */
import { definitionChangeLine, definitionChanges } from '../decide/definition-changes.js';
import { FileStateStore } from '../exec/store/file-store.js';
import type { CampaignState } from '../state/state.js';
import type { Campaign } from './load.js';

/** The stored state, for a command that only reads it (it holds no lock, and repairs nothing). */
export async function storedState(c: Campaign): Promise<CampaignState> {
  const { loadState } = await import('../exec/controller.js');
  return loadState(new FileStateStore(c.stateDir, { readOnly: true }), c.manifest.campaign, new Date().toISOString());
}

/**
 * Which tasks a run would send again against the stored state, and why, a line each;
 * undefined where there is no stored state.
 */
export async function changedDefinitionLines(c: Campaign): Promise<string[] | undefined> {
  const store = new FileStateStore(c.stateDir, { readOnly: true });
  // Read once: a large campaign's state is tens of megabytes of JSON.
  const raw = await store.load();
  if (raw === undefined) return undefined;
  const { checkedState } = await import('../exec/controller.js');
  const state = checkedState(raw, store, c.manifest.campaign);
  return definitionChanges(state, c.plan).map((change) => definitionChangeLine(change, false));
}
