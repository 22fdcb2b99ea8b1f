/** `campaign provenance FILE PATH...`: what made each output, from the record beside it. */
import { loadCampaign } from '../../app/load.js';
import { storedState } from '../../app/stored-state.js';
import { EXIT, format, STATE_DIR, TEXT_OR_JSON, type Command, type Given } from '../command.js';
import { openFor } from '../shared.js';

export const command: Command = {
  synopsis: 'provenance FILE PATH...',
  help: `what made each output: the record beside it (campaign, task, values, definition, attempt,
job, node, GPUs, times, commit)   --state-dir DIR   --format text|json`,
  options: { ...STATE_DIR, ...TEXT_OR_JSON },
  examples: ['campaign provenance campaigns/sweep.yml runs/results/seed1_lr0.1.jsonl'],
  run: provenance,
};

async function provenance({ values, files }: Given): Promise<number> {
  const fmt = format(values.format);
  const c = await loadCampaign(files[0]!, values['state-dir'] as string | undefined);
  const state = await storedState(c);
  const { readProvenance, renderProvenance, workdirPath } = await import('../../app/provenance.js');
  const { executor } = await openFor(c, () => state.created, false);
  let missing = 0;
  try {
    for (const asked of files.slice(1)) {
      const path = workdirPath(c, asked);
      const found = await readProvenance(executor, path);
      if ('error' in found) {
        missing++;
        process.stderr.write(`campaign: ${asked}: ${found.error}\n`);
        continue;
      }
      if (fmt === 'json') process.stdout.write(JSON.stringify(found.record) + '\n');
      else process.stdout.write(renderProvenance(found.record, state) + '\n');
    }
  } finally {
    await executor.close();
  }
  return missing === 0 ? EXIT.ok : EXIT.incomplete;
}
