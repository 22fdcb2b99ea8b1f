/**
 * The saves of jobs that ran at once, read from the directories they were downloaded to and
 * merged into one state (decide/parallel-states.ts), for both front ends: the Action's restore
 * and `--from-github`. Each directory holds a save's files as the Action uploaded them.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { DROVE_FILE, droveFile, mergeParallelStates, type SavedState } from '../decide/parallel-states.js';
import { FileStateStore } from '../exec/store/file-store.js';
import { campaignStateSchema } from '../state/state.js';

/** Merges the saves in `dirs` (newest first): state.json's text and events.jsonl's (every event once). */
export async function mergeSaves(dirs: readonly string[]): Promise<{ state: string; events: string }> {
  const saves: SavedState[] = [];
  const events: string[] = [];
  const seen = new Set<string>();
  for (const dir of dirs) {
    const state = campaignStateSchema.parse(await new FileStateStore(dir, { readOnly: true }).load());
    saves.push({ state, drove: await droveBy(dir) });
    const text = await readFile(join(dir, 'events.jsonl'), 'utf8').catch(() => '');
    for (const line of text.split('\n')) {
      if (line.trim() === '' || seen.has(line)) continue;
      seen.add(line);
      events.push(line);
    }
  }
  return { state: JSON.stringify(mergeParallelStates(saves)), events: events.map((l) => `${l}\n`).join('') };
}

/** The phases the job that saved a state directory drove (DROVE_FILE); all for a save that does not say. */
async function droveBy(dir: string): Promise<SavedState['drove']> {
  try {
    const parsed = droveFile.safeParse(JSON.parse(await readFile(join(dir, DROVE_FILE), 'utf8')));
    return parsed.success ? parsed.data.drove : 'all';
  } catch {
    return 'all';
  }
}
