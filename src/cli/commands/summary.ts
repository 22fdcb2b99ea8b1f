/** `campaign summary FILE`: the markdown summary with its pictures, or its record as JSON. */
import { writeFile } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import { storedState } from '../../app/stored-state.js';
import { allCompleted } from '../../report/summary.js';
import { EXIT, FROM_GITHUB, FROM_GITHUB_HELP, oneOf, STATE_DIR, valued, type Command, type Given } from '../command.js';
import { campaignOf, openFor, warn } from '../shared.js';

export const command: Command = {
  synopsis: 'summary FILE',
  help: `markdown summary   --state-dir DIR   --out FILE (and the pictures and provenance.jsonl beside it)
--format markdown|json (json: per phase its counts, each stopped task with its log's tail)
${FROM_GITHUB_HELP}`,
  options: { ...STATE_DIR, out: valued('FILE'), format: oneOf('markdown', 'json'), ...FROM_GITHUB },
  examples: [
    'campaign summary campaigns/sweep.yml --out report/summary.md',
    'campaign summary campaigns/sweep.yml --format json',
  ],
  run: summary,
};

async function summary({ values, files }: Given): Promise<number> {
  const json = values.format === 'json';
  const c = await campaignOf(files[0]!, values);
  const state = await storedState(c);
  const { campaignSummary, summaryRecord } = await import('../../app/write-summary.js');
  const { executor } = await openFor(c, () => state.created, false);
  try {
    // The pictures go next to a summary written to a file, where its links find them.
    const out = typeof values.out === 'string' ? values.out : undefined;
    const beside = out === undefined ? undefined : dirname(resolve(out));
    const text = json
      ? JSON.stringify(await summaryRecord(c.plan, state, executor), null, 2) + '\n'
      : await campaignSummary({ campaign: c, plan: c.plan, state, executor, beside, warn });
    if (out !== undefined) await writeFile(out, text);
    else process.stdout.write(text);
  } finally {
    await executor.close();
  }
  return allCompleted(c.plan, state) ? EXIT.ok : EXIT.incomplete;
}
