/** `campaign check FILE`: the pre-flight, submitting nothing (its body, ../check.ts, is loaded when it runs). */
import { loadCampaign } from '../../app/load.js';
import { EXIT, format, TEXT_OR_JSON, type Command, type Given } from '../command.js';
import { printWarnings, warn } from '../shared.js';

export const command: Command = {
  synopsis: 'check FILE',
  help: `the pre-flight, submitting nothing: the login (through its bastions), the workdir and its
disk, the environment on the login node, the first phases' preconditions, the partitions and
caps, and (Slurm) sbatch --test-only of each array; exits 1 when anything blocks
--format text|json (json: one object per item, with its status and what it blocks)`,
  options: TEXT_OR_JSON,
  examples: ['campaign check campaigns/sweep.yml', 'campaign check campaigns/sweep.yml --format json'],
  run: check,
};

async function check({ values, files }: Given): Promise<number> {
  const c = await loadCampaign(files[0]!);
  printWarnings(c);
  const { checkCampaign } = await import('../check.js');
  return (await checkCampaign(c, warn, format(values.format))) ? EXIT.ok : EXIT.incomplete;
}
