/**
 * The commands that act on a campaign between runs, with its lock held so that no run starts
 * the next tasks meanwhile: `cancel` (its tasks stopped) and `gc` (its unused code snapshots
 * removed).
 */
import { CampaignController, loadState } from '../exec/controller.js';
import type { Executor } from '../exec/executor.js';
import { FileStateStore } from '../exec/store/file-store.js';
import { snapshotsInUse } from '../decide/code-in-use.js';
import type { CampaignState } from '../state/state.js';
import { openExecutor } from './executors.js';
import type { Campaign } from './load.js';
import type { SshSecrets } from './transport-for.js';

export interface LockedOptions {
  /** The command holding the campaign's lock, as a command it refuses is told. */
  holder: string;
  ssh: SshSecrets;
  warn: (message: string) => void;
}

/**
 * How long cancelled tasks get to end: the grace between SIGTERM and SIGKILL is 10 s, the rest
 * is for the marker to be seen. The CLI's message names it ("still running after 60 s").
 */
const CANCEL_WAIT_MS = 60_000;

/** Cancels the campaign's active tasks; the ids of those cancelled, and of those still running at the end of the wait. */
export async function cancelCampaign(
  c: Campaign,
  o: LockedOptions,
): Promise<{ cancelled: string[]; running: string[] }> {
  return withLockedExecutor(c, o, async (state, executor, store) => {
    const controller = new CampaignController({ manifest: c.manifest, plan: c.plan, executor, store });
    const r = await controller.cancel(state, CANCEL_WAIT_MS);
    const cancelled = Object.entries(r.state.tasks)
      .filter(
        ([id, t]) => t.attempts.at(-1)?.class === 'cancelled' && state.tasks[id]?.attempts.at(-1)?.class === undefined,
      )
      .map(([id]) => id);
    return { cancelled, running: r.running };
  });
}

/**
 * Removes the code snapshots no task of the state runs, keeping the one the manifest's code
 * makes now (a run would ship it); the ids removed, and those kept.
 */
export async function removeUnusedCode(c: Campaign, o: LockedOptions): Promise<{ removed: string[]; kept: string[] }> {
  return withLockedExecutor(c, o, async (state, executor) => {
    const keep = snapshotsInUse(state);
    if (c.code) keep.add(c.code.facts.id);
    const removed = await executor.workdir.removeCode(keep);
    return { removed, kept: [...keep].sort() };
  });
}

/**
 * `work` with the campaign's lock held (refused while a `run` holds it), its stored state and
 * its executor, which is closed and the lock released however it ends.
 */
async function withLockedExecutor<T>(
  c: Campaign,
  o: LockedOptions,
  work: (state: CampaignState, executor: Executor, store: FileStateStore) => Promise<T>,
): Promise<T> {
  const store = new FileStateStore(c.stateDir, { onWarning: o.warn });
  const lock = await store.acquire(o.holder);
  let executor: Executor | undefined;
  try {
    const state = await loadState(store, c.manifest.campaign, new Date().toISOString());
    executor = (await openExecutor(c, { ssh: o.ssh, since: () => state.created, warn: o.warn, checkCluster: false }))
      .executor;
    return await work(state, executor, store);
  } finally {
    await lock.release();
    await executor?.close();
  }
}
