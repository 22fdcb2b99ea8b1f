/** `campaign status FILE`: the stored state per phase, and the tasks that stopped. */
import { storedState } from '../../app/stored-state.js';
import { statusText } from '../../report/summary.js';
import {
  EXIT,
  format,
  FROM_GITHUB,
  FROM_GITHUB_HELP,
  STATE_DIR,
  TEXT_OR_JSON,
  type Command,
  type Given,
} from '../command.js';
import { campaignOf } from '../shared.js';

export const command: Command = {
  synopsis: 'status FILE',
  help: `the stored state per phase, and the tasks that stopped   --state-dir DIR   --format text|json
${FROM_GITHUB_HELP}`,
  options: { ...STATE_DIR, ...TEXT_OR_JSON, ...FROM_GITHUB },
  examples: ['campaign status campaigns/sweep.yml', 'campaign status campaigns/sweep.yml --from-github'],
  run: status,
};

async function status({ values, files }: Given): Promise<number> {
  const fmt = format(values.format);
  const c = await campaignOf(files[0]!, values);
  const state = await storedState(c);
  const { summaryRecord } = await import('../../app/write-summary.js');
  const record = await summaryRecord(c.plan, state, undefined);
  if (fmt === 'json') process.stdout.write(JSON.stringify(record, null, 2) + '\n');
  else process.stdout.write(statusText(record));
  return record.complete ? EXIT.ok : EXIT.incomplete;
}
