/**
 * The saves of jobs that ran at once, read from the directories they were downloaded to and
 * merged into one state (decide/parallel-states.ts), for both front ends: the Action's restore
 * and `--from-github`. Each directory holds a save's files as the Action uploaded them.
 */
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { DROVE_FILE, droveFile, mergeParallelStates, type SavedState } from '../decide/parallel-states.js';
import { FileStateStore } from '../exec/store/file-store.js';
import { campaignStateSchema } from '../state/state.js';

/**
 * The save in a downloaded directory, checked as the controller would load it (state.json with
 * its journal, against the state's schema), or what is wrong with it: a save that fails here is
 * passed over for the next newest, as a damaged download is, never merged.
 */
export async function readSave(dir: string, campaign: string): Promise<SavedState | string> {
  let raw: unknown;
  try {
    raw = await new FileStateStore(dir, { readOnly: true }).load();
  } catch (e) {
    return `its state does not load (${(e as Error).message})`;
  }
  if (raw === undefined) return 'it holds no state.json';
  const parsed = campaignStateSchema.safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    return `its state.json is not a campaign state (${issue ? `${issue.path.join('.') || 'the whole'}: ${issue.message}` : 'invalid'})`;
  }
  if (parsed.data.campaign !== campaign) return 'its state.json is not this campaign’s state';
  return { state: parsed.data, drove: await droveBy(dir) };
}

/**
 * Merges the saves in `dirs` (newest first, each passed by readSave): state.json's text,
 * events.jsonl's (every event once) and the phases no save drove.
 */
export async function mergeSaves(
  dirs: readonly string[],
  campaign: string,
): Promise<{ state: string; events: string; uncovered: string[] }> {
  const saves: SavedState[] = [];
  const events: string[] = [];
  const seen = new Set<string>();
  for (const dir of dirs) {
    const save = await readSave(dir, campaign);
    if (typeof save === 'string') throw new Error(`the save in ${dir} cannot be merged: ${save}`);
    saves.push(save);
    const text = await readFile(join(dir, 'events.jsonl'), 'utf8').catch(() => '');
    for (const line of text.split('\n')) {
      if (line.trim() === '' || seen.has(line)) continue;
      seen.add(line);
      events.push(line);
    }
  }
  const merged = mergeParallelStates(saves);
  return {
    state: JSON.stringify(merged.state),
    events: events.map((l) => `${l}\n`).join(''),
    uncovered: merged.uncovered,
  };
}

/**
 * Records in the state directory `dir` the phases its job drives (every one without `phase`),
 * saved with every copy of the state: a phase's records are taken from the newest job that drove it.
 */
export async function recordDrove(dir: string, phase: string | undefined): Promise<void> {
  await mkdir(dir, { recursive: true });
  await writeFile(join(dir, DROVE_FILE), JSON.stringify({ drove: phase === undefined ? 'all' : [phase] }));
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
