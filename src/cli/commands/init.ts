/** `campaign init FILE`: a commented starter manifest (../init.ts), and with --workflow its workflow. */
import { mkdir } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import { UserError } from '../../errors.js';
import { flag, EXIT, type Command, type Given } from '../command.js';
import { writeStarter } from '../init.js';
import { version } from '../shared.js';
import { writeWorkflows } from '../write-workflows.js';

export const command: Command = {
  synopsis: 'init FILE',
  help: `write a commented starter manifest to FILE (it runs on this machine as it is)
--workflow (and its GitHub Actions workflow, as campaign workflow writes it)`,
  options: { workflow: flag },
  examples: ['campaign init campaigns/sweep.yml', 'campaign init campaigns/sweep.yml --workflow'],
  run: init,
};

/** `campaign init FILE`: a starter manifest, never over an existing file; with --workflow, its workflow too. */
async function init({ values, files }: Given): Promise<number> {
  const file = files[0]!;
  await mkdir(dirname(resolve(file)), { recursive: true });
  try {
    for (const line of await writeStarter(file, values.workflow === true, await version())) {
      process.stdout.write(`${line}\n`);
    }
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
    throw new UserError({
      message: `${file} exists; init writes only a new file`,
      fix: 'give another path, or edit that one',
    });
  }
  if (values.workflow !== true) return EXIT.ok;
  // The starter runs where campaign runs: under the workflow, on a runner of the user's own.
  process.stdout.write(
    `its workflow runs on a self-hosted runner, as the starter runs on the machine itself; once it points at a cluster (executor: slurm), \`campaign workflow ${file} --runs-on ubuntu-latest\` moves it to GitHub's runners\n`,
  );
  return writeWorkflows({ values: { 'runs-on': 'self-hosted' }, files: [file] });
}
