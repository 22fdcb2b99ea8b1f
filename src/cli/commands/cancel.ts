/** `campaign cancel FILE`: stops the campaign's running tasks, under its lock. */
import { loadCampaign } from '../../app/load.js';
import { EXIT, STATE_DIR, type Command, type Given } from '../command.js';
import { warn } from '../shared.js';

export const command: Command = {
  synopsis: 'cancel FILE',
  help: `stop the campaign's running tasks (each one's whole process group) and record them
cancelled; for when no \`run\` drives it   --state-dir DIR`,
  options: STATE_DIR,
  examples: ['campaign cancel campaigns/sweep.yml'],
  run: cancel,
};

async function cancel({ values, files }: Given): Promise<number> {
  const c = await loadCampaign(files[0]!, values['state-dir'] as string | undefined);
  const [{ cancelCampaign }, { sshSecretsFrom }] = await Promise.all([
    import('../../app/locked-commands.js'),
    import('../../app/transport-for.js'),
  ]);
  // Refused while a `run` holds the lock: it would start the next tasks as these end.
  const r = await cancelCampaign(c, { holder: `campaign cancel ${files[0]!}`, ssh: sshSecretsFrom(process.env), warn });
  for (const id of r.cancelled) process.stdout.write(`cancelled ${id}\n`);
  for (const id of r.running) process.stderr.write(`campaign: ${id} is still running after 60 s\n`);
  return r.running.length === 0 ? EXIT.ok : EXIT.incomplete;
}
