/**
 * `campaign __tasks FILE`: the hidden command the completion scripts call for a stored state's
 * task ids (../completion.ts). Not in the table, so neither help nor completion shows it, and its
 * options are read leniently: a completion passes the command line as the user typed it.
 */
import { parseArgs } from 'node:util';
import { loadCampaign } from '../../app/load.js';
import { storedState } from '../../app/stored-state.js';
import { EXIT } from '../command.js';

/** `campaign __tasks FILE [--state-dir DIR]`: the stored state's task ids, one a line; nothing when there is none. */
export async function storedTaskIds(argv: string[]): Promise<number> {
  const { values, positionals } = parseArgs({
    args: argv,
    options: { 'state-dir': { type: 'string' } },
    allowPositionals: true,
    strict: false,
  });
  const file = positionals[0];
  if (file === undefined) return EXIT.user;
  const stateDir = typeof values['state-dir'] === 'string' ? values['state-dir'] : undefined;
  const state = await storedState(await loadCampaign(file, stateDir));
  for (const id of Object.keys(state.tasks).sort()) process.stdout.write(`${id}\n`);
  return EXIT.ok;
}
