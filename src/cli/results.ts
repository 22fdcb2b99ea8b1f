/** `campaign results FILE`: the phase's results, read from the outputs of its completed tasks. */
import { UserError } from '../errors.js';
import type { Executor } from '../exec/executor.js';
import type { Campaign } from '../app/load.js';
import type { CampaignState } from '../state/state.js';
import { resultPhase, resultsTable } from '../report/results/collect.js';
import { renderTable, type Format } from '../report/results/table.js';
import { phaseResults } from '../app/gather-results.js';

export interface ResultsOptions {
  phase?: string;
  tasks: boolean;
  format: Format;
}

/** The format asked for; without one, markdown for a person at a terminal, else CSV. */
export function resultsFormat(given: string | undefined, toTerminal: boolean): Format {
  if (given === undefined) return toTerminal ? 'markdown' : 'csv';
  if (given === 'csv' || given === 'jsonl' || given === 'markdown') return given;
  throw new UserError({
    message: `--format ${given} is not known`,
    fix: 'use --format csv, --format jsonl or --format markdown',
  });
}

/** The table's text, and whether every cell has all its planned replicates. */
export async function campaignResults(
  c: Campaign,
  state: CampaignState,
  executor: Executor,
  opts: ResultsOptions,
): Promise<{ text: string; complete: boolean }> {
  const r = resultPhase(c.manifest, c.plan, opts.phase);
  const tasks = await phaseResults(c, r, state, executor, (m) => process.stderr.write(`campaign: ${m}\n`));
  const { table, cells } = resultsTable(r, tasks, opts.tasks);
  return { text: renderTable(table, opts.format), complete: cells.every((cell) => cell.n === cell.planned) };
}
