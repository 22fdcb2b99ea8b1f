/** `campaign plan FILE`: the plan, with its arithmetic, and what a run would send again; or the batch scripts it would send. */
import { renderPlanJson, renderPlanText } from '../../app/plan-table.js';
import { loadCampaign } from '../../app/load.js';
import { changedDefinitionLines } from '../../app/stored-state.js';
import { EXIT, format, STATE_DIR, TEXT_OR_JSON, valued, type Command, type Given } from '../command.js';
import { printWarnings } from '../shared.js';

export const command: Command = {
  synopsis: 'plan FILE',
  help: `show phases, strata, arrays, walltimes with their arithmetic, and which tasks a changed
definition runs again   --state-dir DIR   --format text|json
--scripts DIR (write every batch script and task table as the first submission would send them)`,
  options: { ...TEXT_OR_JSON, ...STATE_DIR, scripts: valued('DIR') },
  examples: ['campaign plan campaigns/sweep.yml', 'campaign plan campaigns/sweep.yml --scripts /tmp/sweep-scripts'],
  run: plan,
};

async function plan({ values, files }: Given): Promise<number> {
  const json = format(values.format) === 'json';
  // The table shows no task's definition: they are made only where they are shown (the JSON,
  // the scripts) or compared with a stored state, not for the 100,000 tasks a table counts.
  const shown = json || typeof values.scripts === 'string';
  const c = await loadCampaign(files[0]!, values['state-dir'] as string | undefined, { taskDefinitions: shown });
  if (typeof values.scripts === 'string') {
    const { shownWorkdir, writeSubmissionScripts } = await import('../../app/scripts.js');
    const written = await writeSubmissionScripts(c, values.scripts);
    const arrays = new Set(written.map((w) => w.array)).size;
    process.stdout.write(
      `wrote ${written.length} files for ${arrays} arrays to ${values.scripts} (workdir ${shownWorkdir(c)})\n`,
    );
    return EXIT.ok;
  }
  if (json) process.stdout.write(renderPlanJson(c.plan) + '\n');
  else {
    printWarnings(c);
    process.stdout.write(renderPlanText(c.plan));
    // Against the stored state, where there is one: which tasks a run would send again, and why.
    const changes = await changedDefinitionLines(c, { defined: false });
    if (changes !== undefined) {
      process.stdout.write(`\nAgainst the stored state (${c.stateDir}):\n`);
      if (changes.length === 0) process.stdout.write('  no definition changed: a run sends no completed task again\n');
      for (const line of changes) process.stdout.write(`  ${line}\n`);
    }
  }
  return EXIT.ok;
}
