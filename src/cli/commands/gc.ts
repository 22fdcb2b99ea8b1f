/** `campaign gc FILE`: removes the code snapshots no task's last attempt ran or runs. */
import { loadCampaign } from '../../app/load.js';
import { EXIT, STATE_DIR, type Command, type Given } from '../command.js';
import { warn } from '../shared.js';

export const command: Command = {
  synopsis: 'gc FILE',
  help: `remove the code snapshots of the workdir that no task's last attempt ran or runs (a
running task keeps its own), and say which   --state-dir DIR`,
  options: STATE_DIR,
  examples: ['campaign gc campaigns/sweep.yml'],
  run: gc,
};

/**
 * `campaign gc`: under the campaign's lock, so that no run of this state ships or sends while
 * snapshots go; the snapshot the manifest's code makes now is kept too (a run would ship it).
 */
async function gc({ values, files }: Given): Promise<number> {
  const c = await loadCampaign(files[0]!, values['state-dir'] as string | undefined);
  const [{ removeUnusedCode }, { sshSecretsFrom }] = await Promise.all([
    import('../../app/locked-commands.js'),
    import('../../app/transport-for.js'),
  ]);
  const { removed, kept } = await removeUnusedCode(c, {
    holder: `campaign gc ${files[0]!}`,
    ssh: sshSecretsFrom(process.env),
    warn,
  });
  for (const id of removed) process.stdout.write(`removed code snapshot ${id}\n`);
  process.stderr.write(
    `campaign: ${removed.length} code snapshot${removed.length === 1 ? '' : 's'} removed, ${kept.length} kept (${kept.join(', ') || 'none'})\n`,
  );
  return EXIT.ok;
}
