/** `campaign results FILE`: the phase's results table (its body, ../results.ts, is loaded when it runs). */
import { writeFile } from 'node:fs/promises';
import { storedState } from '../../app/stored-state.js';
import {
  EXIT,
  flag,
  FROM_GITHUB,
  FROM_GITHUB_HELP,
  oneOf,
  STATE_DIR,
  valued,
  type Command,
  type Given,
} from '../command.js';
import { campaignOf, openFor } from '../shared.js';

export const command: Command = {
  synopsis: 'results FILE',
  help: `the phase's results, read from the outputs of its completed tasks: one row per cell of the
grid without the replicate axis (n of planned, each metric's mean, std, sem, min, max, and which
replicates are missing); exits 1 when a cell lacks one   --state-dir DIR   --phase NAME
--tasks (one row per task)   --format csv|jsonl|markdown (default: markdown on a terminal, else csv)
--out FILE
${FROM_GITHUB_HELP}`,
  options: {
    ...STATE_DIR,
    phase: valued('NAME'),
    tasks: flag,
    format: oneOf('csv', 'jsonl', 'markdown'),
    out: valued('FILE'),
    ...FROM_GITHUB,
  },
  examples: [
    'campaign results campaigns/sweep.yml',
    'campaign results campaigns/sweep.yml --phase train --tasks --format jsonl',
  ],
  run: results,
};

async function results({ values, files }: Given): Promise<number> {
  const out = values.out as string | undefined;
  const { campaignResults, resultsFormat } = await import('../results.js');
  const fmt = resultsFormat(values.format as string | undefined, out === undefined && process.stdout.isTTY);
  const c = await campaignOf(files[0]!, values);
  const state = await storedState(c);
  const { executor } = await openFor(c, () => state.created, false);
  try {
    const phase = values.phase as string | undefined;
    const r = await campaignResults(c, state, executor, {
      ...(phase === undefined ? {} : { phase }),
      tasks: values.tasks === true,
      format: fmt,
    });
    if (out !== undefined) await writeFile(out, r.text);
    else process.stdout.write(r.text);
    return r.complete ? EXIT.ok : EXIT.incomplete;
  } finally {
    await executor.close();
  }
}
